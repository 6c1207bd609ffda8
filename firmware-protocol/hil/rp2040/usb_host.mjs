// The USB host of the RP2040 harness (hil_rp2040.mjs -usb): it stands where
// the Raspberry Pi's USB port and Linux's cdc_acm driver stand for a board
// built with RP2040_LINK=usb (firmware/usb_cdc.c), on rp2040js's emulated
// USB controller, whose device side the firmware drives.
//
// rp2040js ships a minimal CDC host (USBCDC: SET_ADDRESS, the configuration
// descriptor, SET_CONFIGURATION, SET_CONTROL_LINE_STATE, and a zero-length
// OUT packet every time the device arms its OUT endpoint with nothing to
// send). This host uses the same controller hooks (sendSetupPacket,
// onEndpointWrite, onEndpointRead, endpointReadDone, resetDevice) but
// enumerates as Linux does and checks every answer, so that the firmware's
// USB device is tested, not only its data path:
//
//   - it resets the bus when the device pulls D+ up (SIE_CTRL.PULLUP_EN),
//     asks for the device descriptor at address 0 (64 bytes), sets address
//     9 and checks the controller took it after the status stage, reads the
//     device descriptor (18 bytes), the configuration (9 bytes, then
//     wTotalLength), the language and the three strings (255 bytes each),
//     asks for a device qualifier (a full-speed device must stall it), sets
//     configuration 1, reads it back, sets the line coding (an OUT data
//     stage) and reads it back, and raises DTR and RTS;
//   - the descriptors must be a CDC-ACM function: VID:PID as -vid/-pid say,
//     bMaxPacketSize0 64, a communications interface (class 2, subclass 2)
//     with the header, ACM and union functional descriptors and an interrupt
//     IN endpoint, a data interface (class 10) with a bulk IN and a bulk
//     OUT endpoint of 64 bytes;
//   - every packet the device gives the controller must carry the right
//     data toggle (EP0: DATA1 first after a SETUP, then alternating, status
//     stages DATA1; the other endpoints DATA0 first after
//     SET_CONFIGURATION, then alternating), a stall must set both the
//     buffer's STALL bit and EP_STALL_ARM, and the SERIAL_STATE notification
//     must be well formed;
//   - data: the bytes the device sends on its bulk IN endpoint go to onData;
//     bytes to the device wait until it arms its bulk OUT endpoint (an
//     armed endpoint with nothing to send stays armed, as a real host NAKs
//     rather than sending empty packets), 64 bytes a packet.
//
// Unplugging (unplug) leaves the device powered and pulled up but deaf:
// nothing it sends arrives, nothing reaches it; plugging back (replug)
// resets the bus and enumerates it again. Every problem goes to onError
// once, with what was asked and what came back. Times are the MCU's
// (poll(nanos) from the harness's loop).

const SIE_CTRL = 0x4c;
const PULLUP_EN = 1 << 16;
const BUF_FULL = 1 << 15, BUF_DATA1 = 1 << 13, BUF_STALL = 1 << 11, BUF_AVAILABLE = 1 << 10, BUF_LEN = 0x3ff;
const EP0_SIZE = 64;
const ADDRESS = 9;
const CONTROL_TIMEOUT_NS = 50e6; // a control transfer the device does not finish in 50 ms

const hex4 = (n) => n.toString(16).padStart(4, '0');

function setupPacket(type, request, value, index, length) {
  return new Uint8Array([type, request, value & 0xff, value >> 8, index & 0xff, index >> 8, length & 0xff, length >> 8]);
}

export class UsbHost {
  // chip: an RP2040 of rp2040js; opts: {vid, pid, onData(bytes), onConfigured(info),
  // onError(text), onToDevice(byte)} (onToDevice: each byte as it is delivered).
  constructor(chip, opts) {
    this.chip = chip;
    this.ctrl = chip.usbCtrl;
    this.opts = opts;
    this.plugged = true;
    this.pulledUp = false;
    this.configured = false; // enumerated, configured, DTR raised
    this.resetting = false; // a bus reset the device has not seen yet
    this.failed = false;
    this.toDevice = [];
    this.outArmed = 0; // bytes the device's bulk OUT endpoint takes, 0 if not armed
    this.epIn = -1;
    this.epOut = -1;
    this.epNotify = -1;
    this.pid = new Map(); // "IN 2", "OUT 2" -> the toggle the next packet must carry
    this.cur = null; // the control transfer under way
    this.sleeps = [];
    this.generation = 0; // bumped by a detach: an enumeration of an older one stops
    this.serialState = -1;
    this.info = null;
    this.hook();
  }

  hook() {
    const ctrl = this.ctrl;
    const write = ctrl.writeUint32.bind(ctrl);
    ctrl.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset === SIE_CTRL) {
        const up = !!(ctrl.sieCtrl & PULLUP_EN);
        if (up && !this.pulledUp) {
          this.pulledUp = true;
          this.trace('D+ pulled up');
          if (this.plugged) this.busReset();
        } else if (!up) this.pulledUp = false;
      }
    };
    const dpram = ctrl.DPRAMUpdated.bind(ctrl);
    ctrl.DPRAMUpdated = (offset, value) => {
      if (offset >= 0x80 && offset < 0x100) this.bufferControl(offset, value);
      dpram(offset, value);
    };
    ctrl.onResetReceived = () => {
      this.resetting = false;
      this.trace('bus reset taken');
      // The device saw the reset (it cleared SIE_STATUS.BUS_RESET): enumerate.
      if (this.plugged && !this.failed) this.enumerate(this.generation);
    };
    ctrl.onEndpointWrite = (ep, buf) => this.endpointWrite(ep, buf);
    ctrl.onEndpointRead = (ep, size) => this.endpointRead(ep, size);
  }

  trace(text) {
    if (this.opts.trace) this.opts.trace(`usb ${text}`);
  }

  error(text) {
    if (this.failed) return;
    this.failed = true;
    this.opts.onError(`usb: ${text}`);
  }

  busReset() {
    this.configured = false;
    // Until the device sees the reset (SIE_STATUS.BUS_RESET, 10 ms on)
    // it may still hand over a packet of its old configuration: on a bus
    // being reset no token takes it, and the device's reset drops it.
    this.resetting = true;
    this.cur = null;
    this.outArmed = 0;
    this.pid.clear();
    this.ctrl.resetDevice(); // SIE_STATUS.BUS_RESET after 10 ms
  }

  // ---- What the device hands the controller ----

  bufferControl(offset, value) {
    if (!(value & (BUF_AVAILABLE | BUF_STALL))) return;
    const ep = (offset - 0x80) >> 3, out = !!(offset & 4);
    const name = `${out ? 'OUT' : 'IN'} ${ep}`;
    if (value & BUF_STALL) {
      if (ep !== 0) return this.error(`EP${ep} ${out ? 'OUT' : 'IN'} stalled`);
      if (!(this.ctrl.epStallArm & (out ? 2 : 1))) return this.error(`EP0 ${out ? 'OUT' : 'IN'} STALL without EP_STALL_ARM`);
      if (this.cur) this.finish({ stalled: true });
      return;
    }
    const data1 = (value & BUF_DATA1) ? 1 : 0;
    if (ep === 0) {
      const cur = this.cur;
      if (!cur) return;
      let want = 1; // status stages, and an OUT data stage's first packet
      if (!out && cur.dataIn && !cur.dataDone) want = cur.inPid;
      if (data1 !== want) return this.error(`${describe(cur.setup)}: EP0 ${out ? 'OUT armed for' : 'IN packet sent as'} DATA${data1}, want DATA${want}`);
      if (!out && cur.dataIn && !cur.dataDone) cur.inPid ^= 1;
      if (!out && !(value & BUF_FULL)) return this.error(`${describe(cur.setup)}: EP0 IN given without FULL`);
      return;
    }
    if (!this.pid.has(name)) {
      if (this.resetting) return; // handed over before the device saw the reset: lost with it
      return this.error(`EP${ep} ${out ? 'OUT' : 'IN'} used before SET_CONFIGURATION`);
    }
    const want = this.pid.get(name);
    if (data1 !== want) return this.error(`EP${ep} ${out ? 'OUT armed for' : 'IN packet sent as'} DATA${data1}, want DATA${want}`);
    this.pid.set(name, want ^ 1);
    if (!out && !(value & BUF_FULL)) this.error(`EP${ep} IN given without FULL`);
    if (!out && (value & BUF_LEN) > EP0_SIZE) this.error(`EP${ep} IN packet of ${value & BUF_LEN} bytes`);
  }

  endpointWrite(ep, buf) {
    if (!this.plugged) return;
    if (ep === 0) {
      const cur = this.cur;
      if (!cur) return;
      if (cur.dataIn && !cur.dataDone) {
        cur.data.push(...buf);
        if (buf.length < EP0_SIZE || cur.data.length >= cur.length) {
          cur.dataDone = true;
          if (cur.data.length > cur.length) return this.error(`${describe(cur.setup)}: ${cur.data.length} bytes, more than the ${cur.length} asked`);
          if (cur.statusArmed) this.statusOut();
        }
      } else if (buf.length === 0 && (!cur.dataIn)) {
        if (cur.dataOut && !cur.dataSent) return this.error(`${describe(cur.setup)}: status before the data stage`);
        this.finish({ data: [] });
      } else this.error(`${describe(cur.setup)}: ${buf.length} bytes on EP0 IN where the status stage's empty packet belongs`);
      return;
    }
    if (ep === this.epIn && this.configured) {
      if (buf.length > 0) this.opts.onData(buf);
    } else if (ep === this.epNotify) {
      const ok = buf.length === 10 && buf[0] === 0xa1 && buf[1] === 0x20 && buf[2] === 0 && buf[3] === 0 &&
        buf[4] === 0 && buf[5] === 0 && buf[6] === 2 && buf[7] === 0;
      if (!ok) return this.error(`a notification that is not SERIAL_STATE for interface 0: ${Buffer.from(buf).toString('hex')}`);
      this.serialState = buf[8] | (buf[9] << 8);
    } else if (buf.length > 0 && ep !== this.epIn) this.error(`${buf.length} bytes on EP${ep} IN, no IN endpoint of the configuration`);
  }

  endpointRead(ep, size) {
    if (ep === 0) {
      const cur = this.cur;
      if (!cur || !this.plugged) return;
      if (cur.dataIn) {
        cur.statusArmed = true;
        if (cur.dataDone) this.statusOut();
      } else if (cur.dataOut && !cur.dataSent) {
        cur.dataSent = true;
        this.ctrl.endpointReadDone(0, cur.dataOut);
      } else this.error(`${describe(cur.setup)}: EP0 OUT armed where no OUT stage is`);
      return;
    }
    if (ep !== this.epOut) return this.error(`EP${ep} OUT armed, not an OUT endpoint of the configuration`);
    if (size < 64) return this.error(`EP${ep} OUT armed for ${size} bytes, not a whole packet`);
    this.outArmed = size;
    this.pump();
  }

  statusOut() {
    const cur = this.cur;
    this.ctrl.endpointReadDone(0, new Uint8Array(0));
    this.finish({ data: cur.data });
  }

  finish(result) {
    const cur = this.cur;
    if (cur) this.trace(`${describe(cur.setup)}: ${result.stalled ? 'stalled' : `${(result.data || []).length} bytes`}`);
    this.cur = null;
    if (cur) cur.resolve(result);
  }

  // Bytes for the device, delivered while its OUT endpoint is armed.
  send(bytes) {
    for (const b of bytes) this.toDevice.push(b);
    this.pump();
  }

  pump() {
    if (!this.plugged || !this.configured || this.outArmed === 0 || this.toDevice.length === 0) return;
    const n = Math.min(this.outArmed, 64, this.toDevice.length);
    const pkt = Uint8Array.from(this.toDevice.splice(0, n));
    this.outArmed = 0;
    for (const b of pkt) this.opts.onToDevice(b);
    this.ctrl.endpointReadDone(this.epOut, pkt);
  }

  // ---- The cable ----

  unplug() {
    this.plugged = false;
    this.configured = false;
    this.generation++;
    this.toDevice = [];
    this.outArmed = 0;
    if (this.cur) this.cur.resolve({ gone: true });
    this.cur = null;
  }

  replug() {
    if (this.plugged) return;
    this.plugged = true;
    if (this.pulledUp) this.busReset();
  }

  // ---- Time ----

  poll(nanos) {
    this.now = nanos;
    if (this.cur && nanos > this.cur.deadline) {
      const cur = this.cur;
      this.error(`${describe(cur.setup)}: no end in ${CONTROL_TIMEOUT_NS / 1e6} ms (${cur.dataIn ? `${cur.data.length} bytes in` : cur.dataOut ? `data ${cur.dataSent ? 'sent' : 'not taken'}` : 'no data stage'}, status ${cur.statusArmed ? 'armed' : 'not armed'})`);
      this.cur = null;
    }
    this.sleeps = this.sleeps.filter((s) => (nanos >= s.until ? (s.resolve(), false) : true));
    this.pump();
  }

  sleep(ms) {
    return new Promise((resolve) => this.sleeps.push({ until: (this.now || 0) + ms * 1e6, resolve }));
  }

  // ---- Control transfers ----

  control(setup, dataOut = null) {
    return new Promise((resolve) => {
      const length = setup[6] | (setup[7] << 8);
      this.cur = {
        setup, length, resolve, deadline: (this.now || 0) + CONTROL_TIMEOUT_NS,
        dataIn: !!(setup[0] & 0x80) && length > 0, dataDone: false, data: [], inPid: 1, statusArmed: false,
        dataOut, dataSent: false,
      };
      this.trace(describe(setup));
      this.ctrl.sendSetupPacket(setup);
    });
  }

  // One request; its answer, or null after an error (reported) or an unplug.
  async request(gen, setup, { dataOut = null, stall = false } = {}) {
    if (gen !== this.generation || this.failed) return null;
    const r = await this.control(setup, dataOut);
    if (gen !== this.generation || this.failed || r.gone) return null;
    if (r.stalled && !stall) {
      this.error(`${describe(setup)}: stalled`);
      return null;
    }
    if (!r.stalled && stall) {
      this.error(`${describe(setup)}: answered (${r.data.length} bytes), want a stall`);
      return null;
    }
    await this.sleep(1);
    return r;
  }

  async getDescriptor(gen, type, index, length, lang = 0) {
    const r = await this.request(gen, setupPacket(0x80, 6, (type << 8) | index, lang, length));
    if (!r) return null;
    const d = r.data;
    if (d.length < 2 || d[1] !== type || (d[0] > d.length && d.length < length)) {
      this.error(`${describe(setupPacket(0x80, 6, (type << 8) | index, lang, length))}: answered ${Buffer.from(d).toString('hex')}`);
      return null;
    }
    return d;
  }

  async enumerate(gen) {
    await this.sleep(1);
    const fail = (t) => (this.error(t), null);
    // At address 0, as Linux asks first: 64 bytes of the device descriptor.
    let dev = await this.getDescriptor(gen, 1, 0, 64);
    if (!dev) return;
    if (dev.length !== 18) return fail(`device descriptor of ${dev.length} bytes at address 0, want 18`);
    if (!(await this.request(gen, setupPacket(0x00, 5, ADDRESS, 0, 0)))) return;
    if ((this.ctrl.addrEndp & 0x7f) !== ADDRESS) return fail(`SET_ADDRESS ${ADDRESS}: the controller's address is ${this.ctrl.addrEndp & 0x7f}`);
    dev = await this.getDescriptor(gen, 1, 0, 18);
    if (!dev) return;
    const u16 = (d, i) => d[i] | (d[i + 1] << 8);
    if (dev[0] !== 18 || u16(dev, 2) < 0x0110 || dev[7] !== 64 || dev[17] !== 1)
      return fail(`device descriptor ${Buffer.from(dev).toString('hex')}: want bLength 18, USB 1.1 or later, bMaxPacketSize0 64, one configuration`);
    const vid = hex4(u16(dev, 8)), pid = hex4(u16(dev, 10));
    if (vid !== this.opts.vid || pid !== this.opts.pid) return fail(`USB ids ${vid}:${pid}, want ${this.opts.vid}:${this.opts.pid}`);
    const head = await this.getDescriptor(gen, 2, 0, 9);
    if (!head) return;
    const total = u16(head, 2);
    const cfg = await this.getDescriptor(gen, 2, 0, total);
    if (!cfg) return;
    if (cfg.length !== total) return fail(`configuration of ${cfg.length} bytes, wTotalLength ${total}`);
    const problem = this.parseConfiguration(cfg);
    if (problem) return fail(`configuration ${Buffer.from(cfg).toString('hex')}: ${problem}`);
    const lang = await this.getDescriptor(gen, 3, 0, 255);
    if (!lang) return;
    if (lang.length < 4 || u16(lang, 2) !== 0x0409) return fail(`language ids ${Buffer.from(lang).toString('hex')}, want 0409`);
    const strings = [];
    for (const i of [dev[14], dev[15], dev[16]]) {
      if (i === 0) return fail('a string index of 0 (manufacturer, product and serial number are all named)');
      const s = await this.getDescriptor(gen, 3, i, 255, 0x0409);
      if (!s) return;
      if (s[0] !== s.length || s.length % 2 !== 0) return fail(`string ${i}: bLength ${s[0]} for ${s.length} bytes`);
      strings.push(Buffer.from(s.slice(2)).toString('utf16le'));
    }
    // A full-speed-only device stalls GET_DESCRIPTOR(DEVICE_QUALIFIER).
    if (!(await this.request(gen, setupPacket(0x80, 6, 6 << 8, 0, 10), { stall: true }))) return;
    this.pid.set(`IN ${this.epIn}`, 0);
    this.pid.set(`OUT ${this.epOut}`, 0);
    this.pid.set(`IN ${this.epNotify}`, 0);
    if (!(await this.request(gen, setupPacket(0x00, 9, 1, 0, 0)))) return;
    const conf = await this.request(gen, setupPacket(0x80, 8, 0, 0, 1));
    if (!conf) return;
    if (conf.data.length !== 1 || conf.data[0] !== 1) return fail(`GET_CONFIGURATION: ${Buffer.from(conf.data).toString('hex')}, want 01`);
    // What cdc_acm and the tty layer send when tabla opens the port.
    const coding = new Uint8Array([0x00, 0xc2, 0x01, 0x00, 0, 0, 8]); // 115200 8N1
    if (!(await this.request(gen, setupPacket(0x21, 0x20, 0, 0, 7), { dataOut: coding }))) return;
    const back = await this.request(gen, setupPacket(0xa1, 0x21, 0, 0, 7));
    if (!back) return;
    if (Buffer.compare(Buffer.from(back.data), Buffer.from(coding)) !== 0)
      return fail(`GET_LINE_CODING: ${Buffer.from(back.data).toString('hex')}, want ${Buffer.from(coding).toString('hex')}`);
    if (!(await this.request(gen, setupPacket(0x21, 0x22, 3, 0, 0)))) return;
    if (gen !== this.generation) return;
    this.configured = true;
    this.info = { vid, pid, manufacturer: strings[0], product: strings[1], serial: strings[2] };
    this.opts.onConfigured(this.info);
    this.pump();
  }

  // Checks the configuration is a CDC-ACM function and finds its
  // endpoints; a problem in words, or null.
  parseConfiguration(cfg) {
    const ifaces = [];
    let iface = null;
    for (let i = 0; i < cfg.length; ) {
      const len = cfg[i], type = cfg[i + 1];
      if (len < 2 || i + len > cfg.length) return `a descriptor of length ${len} at byte ${i}`;
      if (type === 4) {
        iface = { num: cfg[i + 2], endpoints: cfg[i + 4], cls: cfg[i + 5], sub: cfg[i + 6], eps: [], fn: new Map() };
        ifaces.push(iface);
      } else if (type === 5) {
        if (!iface) return `an endpoint before any interface at byte ${i}`;
        iface.eps.push({ addr: cfg[i + 2], attr: cfg[i + 3] & 3, size: cfg[i + 4] | (cfg[i + 5] << 8) });
      } else if (type === 0x24) {
        if (!iface) return `a functional descriptor before any interface at byte ${i}`;
        iface.fn.set(cfg[i + 2], cfg.slice(i, i + len));
      }
      i += len;
    }
    if (cfg[4] !== ifaces.length) return `bNumInterfaces ${cfg[4]}, ${ifaces.length} interfaces`;
    const comm = ifaces.find((f) => f.cls === 2 && f.sub === 2);
    const data = ifaces.find((f) => f.cls === 10);
    if (!comm) return 'no communications interface of the ACM subclass (class 2, subclass 2)';
    if (!data) return 'no data interface (class 10)';
    for (const f of ifaces) if (f.eps.length !== f.endpoints) return `interface ${f.num}: bNumEndpoints ${f.endpoints}, ${f.eps.length} endpoints`;
    if (!comm.fn.has(0)) return 'no header functional descriptor';
    if (!comm.fn.has(2)) return 'no ACM functional descriptor';
    const union = comm.fn.get(6);
    if (!union || union[3] !== comm.num || union[4] !== data.num) return 'no union functional descriptor joining the two interfaces';
    const cm = comm.fn.get(1);
    if (cm && cm[4] !== data.num) return `call management names data interface ${cm[4]}`;
    const notify = comm.eps.find((e) => e.addr & 0x80 && e.attr === 3);
    if (!notify) return 'no interrupt IN endpoint on the communications interface';
    const bin = data.eps.find((e) => e.addr & 0x80 && e.attr === 2);
    const bout = data.eps.find((e) => !(e.addr & 0x80) && e.attr === 2);
    if (!bin || !bout) return 'the data interface lacks a bulk IN or a bulk OUT endpoint';
    if (bin.size !== 64 || bout.size !== 64) return `bulk endpoints of ${bin.size} and ${bout.size} bytes, want 64`;
    this.epIn = bin.addr & 0xf;
    this.epOut = bout.addr & 0xf;
    this.epNotify = notify.addr & 0xf;
    return null;
  }
}

const requestNames = { 0: 'GET_STATUS', 1: 'CLEAR_FEATURE', 5: 'SET_ADDRESS', 6: 'GET_DESCRIPTOR', 8: 'GET_CONFIGURATION', 9: 'SET_CONFIGURATION' };
const classNames = { 0x20: 'SET_LINE_CODING', 0x21: 'GET_LINE_CODING', 0x22: 'SET_CONTROL_LINE_STATE' };
const descriptorNames = { 1: 'DEVICE', 2: 'CONFIGURATION', 3: 'STRING', 6: 'DEVICE_QUALIFIER' };

function describe(s) {
  const type = s[0], req = s[1], value = s[2] | (s[3] << 8), length = s[6] | (s[7] << 8);
  if ((type & 0x60) === 0x20) return `${classNames[req] || `class request ${req}`} (wValue ${value})`;
  if (req === 6) return `GET_DESCRIPTOR(${descriptorNames[value >> 8] || value >> 8} ${value & 0xff}, ${length} bytes)`;
  return `${requestNames[req] || `request ${req}`} (wValue ${value})`;
}
