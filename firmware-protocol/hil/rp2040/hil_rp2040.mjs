// The simulated board around the RP2040 build of a board file
// (firmware/hal_rp2040.c), for the hardware-in-the-loop test (../hil_test.go):
// the firmware image runs in the rp2040js emulator, in step with the wall
// clock, with the same hardware around it as firmware/hil_sim.c gives the
// AVR builds under simavr, and the same line protocol on standard input and
// output, so that the Go test drives both alike:
//
//   - the USB serial cable: UART0 on a pseudo-terminal behind a symbolic
//     link (-link), kept by firmware/hil_cable (-cable; Node has no ptys),
//     which "unplug" and "replug" pull and plug back. Bytes to the MCU are
//     fed at 115200 baud into the UART's 32-byte FIFO;
//   - the 74HC165 chain: a low SH/LD (GP2) latches the sensor values the
//     test set, each rising CLK (GP3) while SH/LD is high brings the next
//     bit to QH (GP4);
//   - the WS2812B strip on GP5: the PIO's pulses are decoded by their high
//     time (a 0 bit 200-400 ns, a 1 bit 580-1000 ns: what a WS2812B takes),
//     a frame ends at a low pause of 50 us or more, and each frame that
//     differs from the last is printed;
//   - the buttons (GP10..GP14, pressed = low) and the floating ADC0 the die
//     samples: to show a chosen face the harness reads the die's state from
//     the MCU's RAM (-rng, the address of hal_rp2040.c's rng_state) and
//     feeds the ADC the noise bits that roll that face.
//
// rp2040js runs its PIO on its own timer, apart from the CPU's time; here
// the state machines are stepped with the CPU instead, each at its clock
// divider (and instruction delays), so that the pulses on the pins have
// their real lengths in the emulated time. The boot ROM is not emulated:
// the image is loaded into the flash and the core starts at the vector
// table that boot2 would enter (0x10000100); boot2 itself runs only on
// hardware. A watchdog reset is reported as an error (a hung firmware).
//
// With -usb VID:PID the firmware is a build with RP2040_LINK=usb
// (firmware/usb_cdc.c): the line is the chip's USB port instead of UART0,
// and the harness is the host (usb_host.mjs, on rp2040js's USB controller):
// it enumerates the device as Linux does, checks its descriptors (the ids
// must be VID:PID, four hex digits each) and every answer, then bridges the
// CDC data endpoints to the pty as the UART is bridged. The pty comes (and
// "ready" is printed) once the device is configured and DTR raised, as
// /dev/ttyACM0 appears once cdc_acm has bound; "unplug" makes the device
// deaf and removes the pty, "replug" resets the bus and enumerates again,
// and a reset of the MCU takes the pty away until the new chip has
// enumerated (a Pico that resets leaves the bus). Output line "usb VID:PID
// MANUFACTURER|PRODUCT|SERIAL" after each enumeration.
//
// Usage: node hil_rp2040.mjs -cable PATH -link PATH -cells N -bits B -leds L
//                            [-rng ADDR] [-die 6|4] [-usb VID:PID] [-frames]
//                            [-bench MS] firmware.bin
//
// -bench MS runs MS milliseconds of MCU time as fast as it can (no wall
// clock, no commands but "go") and prints "bench mcu S cpu S instructions
// N": what the emulation of that firmware costs (BENCHMARKS.md).
//
// Commands on standard input, one a line, each optionally prefixed by
// "@MS " (carried out MS milliseconds of MCU time after the previous
// prefixed one): set CELL VALUE, go, press B, release B, tap B MS,
// roll FACE, unplug, replug, mute, unmute, reset, quit. Lines on standard
// output: ready PATH, leds N HEX MS, frame DIR TYPE SEQ MS [REFSEQ
// REFTYPE], bad DIR CODE MS, reset MS, error TEXT, stats ... (see
// firmware/hil_sim.c; "scans" is hil_sim's alone).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { RP2040 } from 'rp2040js';
import { UsbHost } from './usb_host.mjs';

const PIN_SHLD = 2, PIN_CLK = 3, PIN_QH = 4, PIN_LED = 5, PIN_BUTTON0 = 10;
const FLASH_IMAGE = 0x100; // the vector table, after the 256 bytes of boot2
const BAUD = 115200;
const BYTE_NS = (1e9 * 10) / BAUD;
const SLICE_NS = 1e6; // run 1 ms of MCU time between looks at the world
const HIGH = 1, LOW = 0; // GPIOPinState

// ---- Arguments ----

const opt = { bits: 0, cells: 0, leds: 0, rng: 0, die: 0, frames: false, bench: 0, usb: '' };
let image = null;
{
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    const k = a[i];
    if (k === '-frames') opt.frames = true;
    else if (['-cable', '-link', '-cells', '-bits', '-leds', '-rng', '-die', '-bench', '-usb'].includes(k) && i + 1 < a.length) {
      const v = a[++i];
      opt[k.slice(1)] = ['-cable', '-link', '-usb'].includes(k) ? v : Number(v);
    } else if (!k.startsWith('-') && image === null) image = k;
    else { image = null; break; }
  }
  if (image === null || !opt.cable || !opt.link || !(opt.cells >= 1) || !(opt.bits >= 1 && opt.bits <= 8) || !(opt.leds >= 0) ||
      (opt.usb && !/^[0-9a-f]{4}:[0-9a-f]{4}$/.test(opt.usb))) {
    process.stderr.write('usage: node hil_rp2040.mjs -cable PATH -link PATH -cells N -bits B -leds L [-rng ADDR] [-die FACES] [-usb VID:PID] [-frames] firmware.bin\n');
    process.exit(2);
  }
}
const tracing = !!process.env.TABLA_HIL_TRACE;
const traceName = image.replace(/.*\//, '');
const flash = readFileSync(image);

function out(line) {
  process.stdout.write(line + '\n');
}
function trace(text) {
  if (tracing) process.stderr.write(`trace ${traceName} ${(mcuNanos() / 1e9).toFixed(3)} ${text}\n`);
}

// ---- The chip ----

let rp; // the RP2040; a reset makes a new one
let instructions = 0;
let baseNanos = 0; // MCU time before the last reset
let slept = 0; // nanoseconds the core spent in WFI
let crashed = false;
const mcuNanos = () => baseNanos + (rp ? rp.clock.nanos : 0);
const mcuMs = () => Math.floor(mcuNanos() / 1e6);

function makeChip(sram) {
  const chip = new RP2040();
  chip.logger = { debug() {}, info() {}, warn() {}, error(component, msg) { trace(`${component}: ${msg}`); } };
  chip.flash.set(flash, 0);
  if (sram) chip.sram.set(sram); // RAM keeps its contents through a reset
  const vt = 0x10000000 + FLASH_IMAGE;
  chip.core.VTOR = vt;
  chip.core.SP = chip.flashView.getUint32(FLASH_IMAGE, true);
  chip.core.PC = chip.flashView.getUint32(FLASH_IMAGE + 4, true) & ~1;
  const pio0 = chip.pio[0];
  const pioRead = pio0.readUint32.bind(pio0), pioWrite = pio0.writeUint32.bind(pio0);
  pio0.readUint32 = (offset) => ((pioDirty = true), pioRead(offset));
  pio0.writeUint32 = (offset, value) => ((pioDirty = true), pioWrite(offset, value));
  for (const pio of chip.pio) {
    pio.run = () => {}; // stepped with the CPU below
    for (const sm of pio.machines) sm.skip = 0, sm.acc = 0, sm.seen = sm.cycles;
  }
  chip.peripherals[0x40058].onWatchdogTrigger = () => {
    out(`error the watchdog reset the MCU at ${mcuMs()} ms (the firmware hung)`);
    setImmediate(resetChip); // not from inside the emulator's clock
  };
  chip.uart[0].onByte = (b) => toHost(b);
  if (opt.usb) {
    const [vid, pid] = opt.usb.split(':');
    usb = new UsbHost(chip, {
      vid, pid,
      onData: (buf) => {
        for (const b of buf) toHost(b);
      },
      onToDevice: (b) => traceDown(b),
      onConfigured: (info) => {
        out(`usb ${info.vid}:${info.pid} ${info.manufacturer}|${info.product}|${info.serial}`);
        trace(`usb configured: ${JSON.stringify(info)}`);
        if (plugged) cablePlug(true);
      },
      onError: (text) => out(`error ${text}`),
      trace,
    });
    if (!plugged) usb.unplug();
  }
  const adcRead = chip.adc.onADCRead;
  chip.adc.onADCRead = (channel) => {
    if (channel === 0) chip.adc.channelValues[0] = noiseBit() ? 4095 : 0;
    adcRead(channel);
  };
  chip.gpio[PIN_SHLD].addListener((v) => shldChanged(v));
  chip.gpio[PIN_CLK].addListener((v, old) => clkChanged(v, old));
  chip.gpio[PIN_LED].addListener((v) => ledPin(v));
  feedAlarm = chip.clock.createAlarm(feedUart);
  feeding = false;
  return chip;
}

// ---- PIO, stepped with the CPU ----

const smDiv = (sm) => (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;

// CPU cycles until the next state machine runs an instruction, or 0 when
// every one is stalled (waiting for a FIFO, a pin or an IRQ).
function pioNext(pio) {
  let next = 0;
  for (const sm of pio.machines) {
    if (sm.enabled && (!sm.waiting || sm.skip > 0)) {
      const c = Math.max(1, Math.ceil((sm.skip + 1) * smDiv(sm) - sm.acc));
      if (next === 0 || c < next) next = c;
    }
  }
  return next;
}

// Steps the state machines through `cycles` CPU cycles that end now. Pin
// changes are looked at after each step and stamped with its own time
// (pinNanos), not the end of the CPU instruction: a WS2812 pulse is 31
// CPU cycles, an exception entry a dozen.
let pinNanos = 0;
function pioAdvance(pio, cycles) {
  const endNs = rp.clock.nanos, cycleNs = 1e9 / rp.clkSys;
  for (const sm of pio.machines) {
    if (!sm.enabled) continue;
    // A stall the CPU ended (a FIFO write or read resumes the machine at
    // once) adds its instruction's delay.
    if (sm.cycles !== sm.seen) {
      if (sm.cycles > sm.seen) sm.skip += sm.cycles - sm.seen;
      sm.seen = sm.cycles;
    }
    // A stalled machine waits for the CPU, which resumes it: no steps.
    if (sm.waiting && sm.skip === 0) {
      sm.acc = 0;
      continue;
    }
    const div = smDiv(sm);
    sm.acc += cycles;
    while (sm.acc >= div) {
      if (sm.skip > 0) {
        const k = Math.min(sm.skip, Math.floor(sm.acc / div));
        sm.skip -= k;
        sm.acc -= k * div;
        continue;
      }
      sm.acc -= div;
      const was = sm.waiting, c0 = sm.cycles;
      pinNanos = endNs - sm.acc * cycleNs;
      sm.step();
      pio.checkChangedPins();
      // The instruction's delay (or, for a stall that ended, its delay
      // then) holds the machine for as many cycles.
      const d = sm.cycles - c0 - (was ? 0 : 1);
      if (d > 0) sm.skip = d;
      sm.seen = sm.cycles;
      if (sm.waiting && sm.skip === 0) {
        sm.acc = 0;
        break;
      }
    }
  }
}

// Whether PIO0 may have work: the CPU touched its registers (a FIFO write
// or read resumes a stalled machine at once), a harness pin changed, or a
// machine was still running after the last steps. While false the machines
// are all stalled and the CPU's instructions need not step them.
let pioDirty = true;

function run(untilNanos) {
  const { core, clock } = rp;
  const pio = rp.pio[0];
  let pioActive = true;
  while (clock.nanos < untilNanos && !crashed) {
    const cycleNs = 1e9 / rp.clkSys;
    if (core.waiting) {
      const left = untilNanos - clock.nanos;
      const next = clock.nanosToNextAlarm;
      let dt = next > 0 && next < left ? next : left;
      const pioCycles = pioNext(pio);
      if (pioCycles > 0 && pioCycles * cycleNs < dt) {
        dt = pioCycles * cycleNs;
        clock.tick(dt);
        pioAdvance(pio, pioCycles);
      } else {
        clock.tick(dt);
        if (pioCycles > 0) pioAdvance(pio, dt / cycleNs);
      }
      slept += dt;
      continue;
    }
    let cycles;
    try {
      cycles = core.executeInstruction();
    } catch (e) {
      out(`error the CPU stopped at ${(mcuNanos() / 1e9).toFixed(3)} s: ${e.message}`);
      crashed = true;
      return;
    }
    instructions++;
    clock.tick(cycles * cycleNs);
    if (pioActive || pioDirty) {
      pioDirty = false;
      pioAdvance(pio, cycles);
      pioActive = pioNext(pio) > 0;
    }
  }
}

// ---- The 74HC165 chain ----

const sensors = new Uint8Array(opt.cells);
let chain = new Uint8Array(0), chainPos = 0, shld = true;

function setQH() {
  if (!rp) return;
  pioDirty = true;
  rp.gpio[PIN_QH].setInputValue(chainPos < chain.length ? chain[chainPos] === 1 : false); // the last DS is tied low
}
function latch() {
  chain = new Uint8Array(opt.cells * opt.bits);
  for (let i = 0; i < opt.cells; i++) {
    for (let k = 0; k < opt.bits; k++) chain[i * opt.bits + k] = (sensors[i] >> (opt.bits - 1 - k)) & 1;
  }
  chainPos = 0;
  setQH();
}
function shldChanged(v) {
  shld = v !== LOW;
  if (v === LOW) latch(); // parallel load while SH/LD is low
}
function clkChanged(v, old) {
  if (v === HIGH && old !== HIGH && shld) {
    chainPos++;
    setQH();
  }
}

// ---- Buttons ----

let buttons = 0; // bit b: button b held
const releaseAt = [0, 0, 0, 0, 0];
function setButtons() {
  if (!rp) return;
  pioDirty = true;
  for (let b = 0; b < 5; b++) rp.gpio[PIN_BUTTON0 + b].setInputValue(!((buttons >> b) & 1));
  trace(`buttons ${buttons.toString(16).padStart(2, '0')}`);
}

// ---- The die's noise ----

let noiseWord = 0, noiseBits = 0, lcg = 12345;
function nextLcg() {
  lcg = (Math.imul(lcg, 1664525) + 1013904223) >>> 0;
  return lcg;
}
function noiseBit() {
  if (noiseBits > 0) {
    noiseBits--;
    return (noiseWord >>> noiseBits) & 1;
  }
  return nextLcg() >>> 31;
}
function xorshift(x) {
  if (x === 0) x = 0x9e3779b9;
  x = (x ^ (x << 13)) >>> 0;
  x = (x ^ (x >>> 17)) >>> 0;
  x = (x ^ (x << 5)) >>> 0;
  return x;
}
// Chooses the noise that makes hal_random's next value roll `face`
// through tabla_random_below(die).
function arrangeRoll(face) {
  if (!opt.die || !opt.rng || face < 1 || face > opt.die) return false;
  const off = opt.rng - 0x20000000;
  if (off < 0 || off + 4 > rp.sram.length) return false;
  const state = rp.sramView.getUint32(off, true);
  const lim = 0xffffffff - (0xffffffff % opt.die);
  for (let tries = 0; tries < 10000; tries++) {
    const w = (nextLcg() ^ (nextLcg() << 16)) >>> 0;
    const x = xorshift((state ^ w) >>> 0);
    if (x < lim && x % opt.die === face - 1) {
      noiseWord = w;
      noiseBits = 32;
      trace(`roll ${face}: state ${state.toString(16)} noise ${w.toString(16)}`);
      return true;
    }
  }
  return false;
}

// ---- The WS2812B strip ----

let ledLevel = false, ledRise = 0, ledFall = 0, ledBits = [], ledBad = 0;
let frames = 0, shown = null;

function ledFrameDone() {
  if (ledBits.length === 0) return;
  const bits = ledBits, bad = ledBad;
  ledBits = [];
  ledBad = 0;
  if (bits.length !== opt.leds * 24 || bad) {
    out(`error WS2812 frame of ${bits.length} bits for ${opt.leds} LEDs, ${bad} bad pulses`);
    return;
  }
  const rgb = Buffer.alloc(opt.leds * 3);
  for (let i = 0; i < opt.leds; i++) {
    const grb = [0, 0, 0];
    for (let k = 0; k < 24; k++) grb[k >> 3] = (grb[k >> 3] << 1) | bits[i * 24 + k];
    rgb[3 * i] = grb[1];
    rgb[3 * i + 1] = grb[0];
    rgb[3 * i + 2] = grb[2];
  }
  frames++;
  if (shown && shown.equals(rgb)) return;
  shown = rgb;
  out(`leds ${frames} ${rgb.toString('hex')} ${mcuMs()}`);
}

function ledPin(v) {
  const now = pinNanos;
  const high = v === HIGH;
  if (high && !ledLevel) {
    if (ledBits.length > 0 && now - ledFall >= 50e3) ledFrameDone(); // a latch pause
    ledRise = now;
  } else if (!high && ledLevel) {
    const t = now - ledRise;
    if (t >= 200 && t <= 400) ledBits.push(0);
    else if (t >= 580 && t <= 1000) ledBits.push(1);
    else {
      ledBad++;
      trace(`WS2812 pulse of ${t.toFixed(0)} ns`);
    }
    ledFall = now;
  }
  ledLevel = high;
}

// ---- Frames on the line (-frames, TABLA_HIL_TRACE) ----

function crc16(buf, n) {
  let crc = 0xffff;
  for (let i = 0; i < n; i++) {
    crc ^= buf[i] << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

// A COBS frame receiver (tabla_proto.c's tabla_rx_feed, for reporting).
function tracer(dir) {
  let enc = [];
  return (b) => {
    if (!opt.frames && !tracing) return;
    if (b !== 0) {
      if (enc.length < 8192) enc.push(b);
      return;
    }
    if (enc.length === 0) return;
    const body = [];
    let ok = true;
    for (let i = 0; i < enc.length; ) {
      const code = enc[i++];
      if (i + code - 1 > enc.length) {
        ok = false;
        break;
      }
      for (let k = 1; k < code; k++) body.push(enc[i++]);
      if (code !== 0xff && i < enc.length) body.push(0);
    }
    enc = [];
    const len = body.length;
    if (!ok || len < 5 || crc16(body, len - 2) !== (body[len - 2] | (body[len - 1] << 8))) {
      trace(`${dir} bad frame`);
      if (opt.frames) out(`bad ${dir} -1 ${mcuMs()}`);
      return;
    }
    const type = body[0], seq = body[1] | (body[2] << 8), ms = mcuMs();
    trace(`${dir} type 0x${type.toString(16).padStart(2, '0')} seq ${seq} len ${len}`);
    if (!opt.frames) return;
    if (type === 0x20 && len >= 3 + 3 + 2) out(`frame ${dir} ${type} ${seq} ${ms} ${body[3] | (body[4] << 8)} ${body[5]}`);
    else if (type === 0x07 && len >= 3 + 4 + 2) out(`frame ${dir} ${type} ${seq} ${ms} ${body[4] | (body[5] << 8)} ${body[6]}`);
    else out(`frame ${dir} ${type} ${seq} ${ms}`);
  };
}
const traceUp = tracer('up'), traceDown = tracer('down');

// ---- The serial cable ----

let cable = null, plugged = false;
let muted = false; // "mute": the MCU's bytes never reach the host
let usb = null; // the USB host (-usb): a new one with every chip
let cableIn = true; // the pty is there (hil_cable starts plugged)
let cableAsked = 0, cableAnswered = 0; // unplug/replug commands to hil_cable, and its replies
function cablePlug(on) {
  if (!cable || on === cableIn) return;
  cableIn = on;
  cableAsked++;
  cable.stdio[3].write(on ? 'r' : 'u');
}
let toMcu = []; // bytes the host sent, not yet in the UART
let toHostBuf = [];
let feedAlarm = null;

function toHost(b) {
  traceUp(b);
  if (plugged && !muted) toHostBuf.push(b);
}
function flushToHost() {
  if (toHostBuf.length > 0 && cable) cable.stdin.write(Buffer.from(toHostBuf));
  toHostBuf = [];
}
// One byte into the UART every byte time, while the FIFO has room.
let feeding = false; // the feed alarm is scheduled (rp2040js keeps a fired alarm's flag set)
function feedUart() {
  feeding = false;
  const uart = rp.uart[0];
  if (toMcu.length > 0 && !uart.rxFIFO.full) {
    const b = toMcu.shift();
    traceDown(b);
    uart.feedByte(b);
  }
  startFeed();
}
function startFeed() {
  if (toMcu.length > 0 && !feeding) {
    feeding = true;
    feedAlarm.schedule(BYTE_NS);
  }
}

let cableReady;
function startCable() {
  cable = spawn(opt.cable, [opt.link], { stdio: ['pipe', 'pipe', 'inherit', 'pipe', 'pipe'] });
  cable.stdin.on('error', () => {});
  cable.stdout.on('data', (d) => {
    if (!plugged) return;
    if (usb) usb.send(d);
    else for (const b of d) toMcu.push(b);
  });
  let buf = '';
  cableReady = new Promise((resolve) => {
    cable.stdio[4].on('data', (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line === 'plugged' || line === 'unplugged') cableAnswered++;
        if (line === 'plugged') resolve(true);
        else if (line.startsWith('error')) {
          out(`error cable: ${line.slice(6)}`);
          resolve(false);
        }
      }
    });
  });
  cable.on('exit', (code) => {
    if (code && !quitting) out(`error the cable helper exited with ${code}`);
  });
}
function unplug() {
  plugged = false;
  toMcu = [];
  if (usb) usb.unplug();
  cablePlug(false);
}

function replug() {
  if (plugged) return;
  plugged = true;
  if (usb) usb.replug(); // the pty comes back once the device is configured
  else cablePlug(true);
}

// ---- Reset ----

function resetChip() {
  if (usb) {
    usb.unplug(); // the old chip's host
    cablePlug(false);
  }
  const sram = rp.sram.slice();
  baseNanos += rp.clock.nanos;
  rp = makeChip(sram);
  // A strip frame cut by the reset is no frame.
  ledBits = [];
  ledBad = 0;
  ledLevel = false;
  shld = true;
  setButtons();
  setQH();
  toMcu = [];
}

// ---- Commands ----

let started = false, quitting = false;
const pending = []; // {timed, ms, text}
let lastDue = 0, nextDue = null;

function command(l) {
  const f = l.trim().split(/\s+/);
  const n = f.slice(1).map(Number);
  switch (f[0]) {
    case 'set':
      if (n[0] >= 0 && n[0] < opt.cells) sensors[n[0]] = n[1] & 0xff;
      return;
    case 'go':
      started = true;
      return;
    case 'press':
      if (n[0] >= 0 && n[0] < 5) {
        buttons |= 1 << n[0];
        releaseAt[n[0]] = 0;
        setButtons();
      }
      return;
    case 'release':
      if (n[0] >= 0 && n[0] < 5) {
        buttons &= ~(1 << n[0]);
        setButtons();
      }
      return;
    case 'tap':
      if (n[0] >= 0 && n[0] < 5) {
        buttons |= 1 << n[0];
        releaseAt[n[0]] = mcuNanos() + n[1] * 1e6;
        setButtons();
      }
      return;
    case 'roll':
      if (!arrangeRoll(n[0])) out(`error cannot roll ${n[0]} (die of ${opt.die} faces, rng at 0x${opt.rng.toString(16)})`);
      return;
    case 'unplug':
      unplug();
      return;
    case 'replug':
      replug();
      return;
    case 'mute':
    case 'unmute':
      muted = f[0] === 'mute';
      return;
    case 'reset':
      trace('reset');
      if (opt.frames) out(`reset ${mcuMs()}`);
      resetChip();
      return;
    case 'quit':
      quitting = true;
      return;
    case '':
      return;
  }
  out(`error unknown command: ${l}`);
}

// A command "@MS rest" is due MS milliseconds of MCU time after the
// previous such command was carried out (see firmware/hil_sim.c).
function runDue() {
  while (pending.length > 0) {
    const p = pending[0];
    if (nextDue === null) nextDue = Math.max(p.timed ? lastDue + p.ms * 1e6 : mcuNanos(), mcuNanos());
    if (nextDue > mcuNanos()) return;
    if (p.timed) lastDue = mcuNanos();
    nextDue = null;
    pending.shift();
    command(p.text);
  }
}

function take(l) {
  const m = /^@(\d+)\s*(.*)$/.exec(l);
  pending.push(m ? { timed: true, ms: Number(m[1]), text: m[2] } : { timed: false, ms: 0, text: l });
  runDue();
}

let inBuf = '';
process.stdin.on('data', (d) => {
  inBuf += d.toString();
  let i;
  while ((i = inBuf.indexOf('\n')) >= 0) {
    take(inBuf.slice(0, i));
    inBuf = inBuf.slice(i + 1);
  }
});
process.stdin.on('end', () => {
  quitting = true; // the test is gone
});

// ---- Main loop ----

const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  while (!started && !quitting) await sleep(5);
  if (quitting) process.exit(0);
  plugged = true;
  rp = makeChip(null);
  setButtons();
  latch();
  startCable();
  if (!(await cableReady)) process.exit(1);
  if (usb) {
    // The pty waits for the device: gone until it is configured.
    cablePlug(false);
    const t0 = mcuNanos();
    while (!usb.configured && !crashed) {
      if (usb.failed || mcuNanos() - t0 > 2e9) {
        if (!usb.failed) out('error usb: the device was not configured within 2 s of MCU time');
        process.exit(1);
      }
      run(rp.clock.nanos + SLICE_NS);
      usb.poll(rp.clock.nanos);
      await tick();
    }
    while (cableAnswered < cableAsked + 1) await sleep(1); // the pty is back
  }
  const start = performance.now();
  out(`ready ${opt.link}`);
  if (opt.bench > 0) {
    const cpu0 = process.cpuUsage();
    run(opt.bench * 1e6);
    const cpu = process.cpuUsage(cpu0);
    out(`bench mcu ${(mcuNanos() / 1e9).toFixed(3)} s cpu ${((cpu.user + cpu.system) / 1e6).toFixed(3)} s instructions ${instructions}`);
    quitting = true;
  }
  while (!quitting && !crashed) {
    run(rp.clock.nanos + SLICE_NS);
    const now = mcuNanos();
    for (let b = 0; b < 5; b++) {
      if (releaseAt[b] && now >= releaseAt[b]) {
        releaseAt[b] = 0;
        buttons &= ~(1 << b);
        setButtons();
      }
    }
    if (ledBits.length > 0 && !ledLevel && rp.clock.nanos - ledFall >= 50e3) ledFrameDone();
    pinNanos = rp.clock.nanos;
    if (usb) usb.poll(rp.clock.nanos);
    flushToHost();
    await tick(); // the cable's and the test's input
    startFeed();
    runDue();
    // Stay in step with the wall clock: the daemon's timeouts are real.
    const ahead = mcuNanos() / 1e6 - (performance.now() - start);
    if (ahead > 2) await sleep(ahead);
  }
  const wall = (performance.now() - start) / 1000;
  const mcu = mcuNanos() / 1e9;
  out(`stats mcu ${mcu.toFixed(3)} s wall ${wall.toFixed(3)} s busy ${mcu > 0 ? ((100 * (mcuNanos() - slept)) / mcuNanos()).toFixed(0) : 0}% frames ${frames}`);
  if (cable) {
    cable.stdio[3].end();
    cable.stdin.end();
  }
  process.exit(0);
}

main();
