/*
 * A USB CDC-ACM device on the RP2040's USB controller (usb_cdc.h), written
 * from the RP2040 datasheet (4.1) and the USB 2.0 (chapter 9) and CDC 1.2 /
 * PSTN 1.2 specifications. Full speed, one configuration, two interfaces:
 *
 *   interface 0, communications (class 2, ACM subclass 2, protocol 0), with
 *     the header, call management, ACM and union functional descriptors and
 *     EP1 IN, interrupt, 16 bytes every 16 ms: SERIAL_STATE notifications
 *     (DCD and DSR, sent when the host raises DTR);
 *   interface 1, data (class 10): EP2 OUT and EP2 IN, bulk, 64 bytes.
 *
 * USB ids: VID 0x1209 (pid.codes), PID 0x0001 by default, pid.codes' test
 * id (build with USB_VID/USB_PID, make variables, for a board of your own
 * with a PID of its own). Strings: "tabla", "tabla MODEL board", the serial
 * number of the Hello (TABLA_SERIAL).
 *
 * The controller's dual-port RAM (DPRAM, 4 KiB at 0x50100000): the SETUP
 * packet at 0, endpoint control registers from 0x08 (EPn IN at 8n, OUT at
 * 8n + 4), buffer control registers from 0x80 (EPn IN at 0x80 + 8n, OUT at
 * 0x84 + 8n), EP0's buffer (both directions) at 0x100, then one 64-byte
 * buffer each: EP1 IN 0x180, EP2 IN 0x1c0, EP2 OUT 0x200. Every endpoint
 * is single-buffered and interrupts per buffer (BUFF_STATUS).
 *
 * Control requests answered (anything else stalls EP0, as chapter 9 asks):
 * GET_DESCRIPTOR (device, configuration, string 0-3), SET_ADDRESS (taken
 * after the status stage), SET_CONFIGURATION 0/1, GET_CONFIGURATION,
 * GET_STATUS (device, interface, endpoint), GET_INTERFACE, SET_INTERFACE
 * (alternate 0), CLEAR_FEATURE (ENDPOINT_HALT: the data toggle back to
 * DATA0); CDC SET_LINE_CODING (kept, not used: the line is USB),
 * GET_LINE_CODING, SET_CONTROL_LINE_STATE (DTR: the port is open) and
 * SEND_BREAK (ignored). EP0's data stages toggle DATA1, DATA0, ... from
 * DATA1 and send a zero-length packet when an answer shorter than asked
 * ends on a full packet; status stages are DATA1.
 *
 * Data: the host's bytes go into a receive ring; EP2 OUT is armed again
 * only while the ring has room for a whole packet, so a host that sends
 * faster than the firmware reads is held back (NAK), never loses bytes.
 * Bytes for the host go into a transmit ring, sent on EP2 IN from the main
 * loop's flush and, as each packet completes, from the interrupt; a packet
 * of 64 bytes that empties the ring is followed by a zero-length one (a
 * host reading more than 64 bytes at a time ends its transfer there).
 * A bus reset forgets the address, the configuration, DTR and both rings.
 */
#include "usb_cdc.h"

#include "rp2040/regs.h"

#ifndef USB_VID
#define USB_VID 0x1209u
#endif
#ifndef USB_PID
#define USB_PID 0x0001u
#endif
#ifndef TABLA_SERIAL
#define TABLA_SERIAL "RP2040-0001"
#endif
#ifndef TABLA_BOARD_MODEL
#define TABLA_BOARD_MODEL "tabla"
#endif
#ifndef TABLA_USB_STALL_MS
#define TABLA_USB_STALL_MS 20u
#endif

/* ---- Registers (datasheet 4.1.4) ---- */

#define RESET_USBCTRL (1u << 24)
#define IRQ_USBCTRL 5u
#define CLK_USB_CTRL (CLOCKS_BASE + 0x54u)
#define CLK_USB_DIV (CLOCKS_BASE + 0x58u)
#define CLK_USB_AUX_PLL_USB (0u << 5)

#define USB_BASE 0x50110000u
#define USB_ADDR_ENDP (USB_BASE + 0x00u)
#define USB_MAIN_CTRL (USB_BASE + 0x40u)
#define USB_SIE_CTRL (USB_BASE + 0x4cu)
#define USB_SIE_STATUS (USB_BASE + 0x50u)
#define USB_BUFF_STATUS (USB_BASE + 0x58u)
#define USB_EP_STALL_ARM (USB_BASE + 0x68u)
#define USB_MUXING (USB_BASE + 0x74u)
#define USB_PWR (USB_BASE + 0x78u)
#define USB_INTE (USB_BASE + 0x90u)
#define USB_INTS (USB_BASE + 0x98u)

#define MAIN_CTRL_CONTROLLER_EN (1u << 0)
#define SIE_CTRL_EP0_INT_1BUF (1u << 29)
#define SIE_CTRL_PULLUP_EN (1u << 16)
#define SIE_STATUS_BUS_RESET (1u << 19)
#define SIE_STATUS_SETUP_REC (1u << 17)
#define MUXING_TO_PHY (1u << 0)
#define MUXING_SOFTCON (1u << 3)
#define PWR_VBUS_DETECT (1u << 2)
#define PWR_VBUS_DETECT_OVERRIDE_EN (1u << 3)
#define INT_BUFF_STATUS (1u << 4)
#define INT_BUS_RESET (1u << 12)
#define INT_SETUP_REQ (1u << 16)

#define DPRAM_BASE 0x50100000u
#define DPRAM(off) REG(DPRAM_BASE + (off))
#define EP_CTRL(ep, out) (0x08u + 8u * ((ep) - 1u) + ((out) ? 4u : 0u))
#define BUF_CTRL(ep, out) (0x80u + 8u * (ep) + ((out) ? 4u : 0u))
#define EP0_BUF 0x100u
#define EP1_IN_BUF 0x180u
#define EP2_IN_BUF 0x1c0u
#define EP2_OUT_BUF 0x200u

#define EP_CTRL_ENABLE (1u << 31)
#define EP_CTRL_INT_PER_BUFF (1u << 29)
#define EP_CTRL_TYPE_BULK (2u << 26)
#define EP_CTRL_TYPE_INTERRUPT (3u << 26)

#define BUF_FULL (1u << 15)
#define BUF_DATA1 (1u << 13)
#define BUF_STALL (1u << 11)
#define BUF_AVAILABLE (1u << 10)
#define BUF_LEN 0x3ffu

#define BIT_IN(ep) (1u << (2u * (ep)))
#define BIT_OUT(ep) (1u << (2u * (ep) + 1u))

#define EP0_SIZE 64u
#define BULK_SIZE 64u
#define NOTIFY_SIZE 16u
#define EP_NOTIFY 1u
#define EP_DATA 2u

/* ---- Descriptors (USB 2.0 9.6, CDC 1.2 5, PSTN 1.2 5.3) ---- */

#define LO(x) ((uint8_t)((x) & 0xffu))
#define HI(x) ((uint8_t)(((x) >> 8) & 0xffu))

static const uint8_t device_desc[18] = {
    18, 1,                /* bLength, DEVICE */
    0x00, 0x02,           /* bcdUSB 2.00 */
    0x02, 0x00, 0x00,     /* class CDC (the interfaces say the rest) */
    EP0_SIZE,             /* bMaxPacketSize0 */
    LO(USB_VID), HI(USB_VID), LO(USB_PID), HI(USB_PID),
    0x00, 0x01,           /* bcdDevice 1.00 */
    1, 2, 3,              /* iManufacturer, iProduct, iSerialNumber */
    1,                    /* bNumConfigurations */
};

#define CONFIG_LEN 67u
static const uint8_t config_desc[CONFIG_LEN] = {
    9, 2, LO(CONFIG_LEN), HI(CONFIG_LEN), /* CONFIGURATION, wTotalLength */
    2, 1, 0,              /* 2 interfaces, bConfigurationValue 1, no string */
    0x80, 50,             /* bus powered, 100 mA */
    /* interface 0: communications, ACM, no protocol, one endpoint */
    9, 4, 0, 0, 1, 0x02, 0x02, 0x00, 0,
    5, 0x24, 0x00, 0x20, 0x01,   /* header, bcdCDC 1.20 */
    5, 0x24, 0x01, 0x00, 1,      /* call management: none, data interface 1 */
    4, 0x24, 0x02, 0x02,         /* ACM: line coding, control line state, serial state */
    5, 0x24, 0x06, 0, 1,         /* union: interface 0 controls interface 1 */
    7, 5, 0x80u | EP_NOTIFY, 0x03, NOTIFY_SIZE, 0, 16, /* EP1 IN, interrupt, 16 ms */
    /* interface 1: data, two endpoints */
    9, 4, 1, 0, 2, 0x0a, 0x00, 0x00, 0,
    7, 5, EP_DATA, 0x02, BULK_SIZE, 0, 0,          /* EP2 OUT, bulk */
    7, 5, 0x80u | EP_DATA, 0x02, BULK_SIZE, 0, 0,  /* EP2 IN, bulk */
};

static const uint8_t lang_desc[4] = {4, 3, 0x09, 0x04}; /* English (US) */
static const char *const strings[] = {"tabla", "tabla " TABLA_BOARD_MODEL " board", TABLA_SERIAL};

/* ---- State ---- */

enum { EP0_IDLE, EP0_IN_DATA, EP0_OUT_STATUS, EP0_OUT_DATA, EP0_IN_STATUS };

static struct {
    uint8_t state;       /* EP0_* */
    uint8_t pid;         /* the next EP0 data packet's PID: 1 DATA1 */
    uint8_t zlp;         /* a zero-length packet ends the data stage */
    uint8_t address;     /* SET_ADDRESS's, taken after its status stage */
    uint8_t request;     /* the request of an OUT data stage */
    uint16_t left;       /* bytes of the IN data stage still to send */
    const uint8_t *src;
    uint8_t scratch[EP0_SIZE]; /* string descriptors, small answers */
} ep0;

static volatile uint8_t configured, dtr;
static uint8_t line_coding[7] = {0x00, 0xc2, 0x01, 0x00, 0, 0, 8}; /* 115200 8N1 */

#define RX_RING 1024u
#define TX_RING 1024u
static volatile uint8_t rx_ring[RX_RING];
static volatile uint16_t rx_head, rx_tail;
static volatile uint8_t out_armed, out_pid;
static volatile uint8_t tx_ring[TX_RING];
static volatile uint16_t tx_head, tx_tail;
static volatile uint8_t in_busy, in_pid, in_last;
static volatile uint8_t notify_busy, notify_pid;
static uint8_t tx_stalled;

static inline uint32_t irq_save(void)
{
    uint32_t primask;
    __asm__ __volatile__("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}

static inline void irq_restore(uint32_t primask)
{
    __asm__ __volatile__("msr primask, %0" ::"r"(primask) : "memory");
}

/* ---- DPRAM ---- */

/* Word by word: the buffers are 64-byte aligned. */
static void dpram_put(uint32_t off, const volatile uint8_t *src, uint32_t n)
{
    uint32_t i, w;
    for (i = 0; i < n; i += 4u) {
        w = src[i];
        if (i + 1u < n) {
            w |= (uint32_t)src[i + 1u] << 8;
        }
        if (i + 2u < n) {
            w |= (uint32_t)src[i + 2u] << 16;
        }
        if (i + 3u < n) {
            w |= (uint32_t)src[i + 3u] << 24;
        }
        DPRAM(off + i) = w;
    }
}

/* Hands a buffer to the controller: the length, PID and FULL first, then,
 * a few cycles later, AVAILABLE (datasheet 4.1.2.5.1: clk_sys runs faster
 * than clk_usb, which must see the other bits settled). */
static void buf_give(uint32_t ctrl, uint32_t val)
{
    DPRAM(ctrl) = val;
    __asm__ __volatile__("nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
    DPRAM(ctrl) = val | BUF_AVAILABLE;
}

/* ---- EP0 ---- */

static void ep0_stall(void)
{
    REG(USB_EP_STALL_ARM) = 3u; /* EP0 IN and OUT */
    DPRAM(BUF_CTRL(0, 0)) = BUF_STALL;
    DPRAM(BUF_CTRL(0, 1)) = BUF_STALL;
    ep0.state = EP0_IDLE;
}

static void ep0_in_next(void)
{
    uint32_t n = ep0.left > EP0_SIZE ? EP0_SIZE : ep0.left;
    dpram_put(EP0_BUF, ep0.src, n);
    ep0.src += n;
    ep0.left = (uint16_t)(ep0.left - n);
    if (n < EP0_SIZE) {
        ep0.zlp = 0; /* a short packet ends the stage */
    }
    buf_give(BUF_CTRL(0, 0), BUF_FULL | (ep0.pid ? BUF_DATA1 : 0u) | n);
    ep0.pid ^= 1u;
}

/* Answers an IN request with len bytes (of which the host asked for at
 * most wlength). */
static void ep0_answer(const uint8_t *src, uint16_t len, uint16_t wlength)
{
    if (len > wlength) {
        len = wlength;
    }
    ep0.src = src;
    ep0.left = len;
    ep0.zlp = len < wlength && len % EP0_SIZE == 0u;
    ep0.state = EP0_IN_DATA;
    ep0_in_next();
}

/* The status stage of a request without data, or of an OUT data stage. */
static void ep0_status_in(void)
{
    ep0.state = EP0_IN_STATUS;
    buf_give(BUF_CTRL(0, 0), BUF_FULL | BUF_DATA1);
}

static void ep0_out_arm(uint8_t state)
{
    ep0.state = state;
    buf_give(BUF_CTRL(0, 1), BUF_DATA1 | EP0_SIZE);
}

static uint16_t string_desc(uint8_t index)
{
    const char *s;
    uint16_t n = 2;
    if (index == 0u) {
        return 0;
    }
    for (s = strings[index - 1u]; *s != '\0' && n + 2u <= EP0_SIZE; s++) {
        ep0.scratch[n++] = (uint8_t)*s; /* ASCII: UTF-16LE is the byte, then 0 */
        ep0.scratch[n++] = 0;
    }
    ep0.scratch[0] = (uint8_t)n;
    ep0.scratch[1] = 3;
    return n;
}

static void data_reset(void);
static void out_arm(void);
static void notify(void);

static void endpoints_on(void)
{
    DPRAM(EP_CTRL(EP_NOTIFY, 0)) = EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_CTRL_TYPE_INTERRUPT | EP1_IN_BUF;
    DPRAM(EP_CTRL(EP_DATA, 0)) = EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_CTRL_TYPE_BULK | EP2_IN_BUF;
    DPRAM(EP_CTRL(EP_DATA, 1)) = EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | EP_CTRL_TYPE_BULK | EP2_OUT_BUF;
    configured = 1;
    out_arm();
}

static void endpoints_off(void)
{
    configured = 0;
    dtr = 0;
    DPRAM(EP_CTRL(EP_NOTIFY, 0)) = 0;
    DPRAM(EP_CTRL(EP_DATA, 0)) = 0;
    DPRAM(EP_CTRL(EP_DATA, 1)) = 0;
    DPRAM(BUF_CTRL(EP_NOTIFY, 0)) = 0;
    DPRAM(BUF_CTRL(EP_DATA, 0)) = 0;
    DPRAM(BUF_CTRL(EP_DATA, 1)) = 0;
    data_reset();
}

static void setup(void)
{
    uint32_t w0 = DPRAM(0), w1 = DPRAM(4);
    uint8_t type = (uint8_t)w0, req = (uint8_t)(w0 >> 8);
    uint16_t value = (uint16_t)(w0 >> 16), index = (uint16_t)w1, length = (uint16_t)(w1 >> 16);
    uint16_t n;

    /* A SETUP ends whatever EP0 was doing. */
    DPRAM(BUF_CTRL(0, 0)) = 0;
    DPRAM(BUF_CTRL(0, 1)) = 0;
    ep0.state = EP0_IDLE;
    ep0.pid = 1;
    ep0.address = 0;

    switch ((type << 8) | req) {
    case 0x8006: /* GET_DESCRIPTOR */
        switch (value >> 8) {
        case 1:
            ep0_answer(device_desc, sizeof device_desc, length);
            return;
        case 2:
            if ((value & 0xffu) == 0u) {
                ep0_answer(config_desc, sizeof config_desc, length);
                return;
            }
            break;
        case 3:
            if ((value & 0xffu) == 0u) {
                ep0_answer(lang_desc, sizeof lang_desc, length);
                return;
            }
            if ((value & 0xffu) <= sizeof strings / sizeof strings[0]) {
                n = string_desc((uint8_t)value);
                ep0_answer(ep0.scratch, n, length);
                return;
            }
            break;
        default: /* device qualifier, other speed: a full-speed device stalls */
            break;
        }
        break;
    case 0x0005: /* SET_ADDRESS */
        if (value <= 127u && index == 0u && length == 0u) {
            ep0_status_in();
            ep0.address = (uint8_t)(value | 0x80u); /* taken once the status stage is done */
            return;
        }
        break;
    case 0x0009: /* SET_CONFIGURATION */
        if (value == 0u) {
            endpoints_off();
            ep0_status_in();
            return;
        }
        if (value == 1u) {
            endpoints_off();
            endpoints_on();
            ep0_status_in();
            return;
        }
        break;
    case 0x8008: /* GET_CONFIGURATION */
        ep0.scratch[0] = configured;
        ep0_answer(ep0.scratch, 1, length);
        return;
    case 0x8000: /* GET_STATUS: device (bus powered, no remote wake-up) */
    case 0x8100: /* interface */
    case 0x8200: /* endpoint: never halted */
        ep0.scratch[0] = 0;
        ep0.scratch[1] = 0;
        ep0_answer(ep0.scratch, 2, length);
        return;
    case 0x810a: /* GET_INTERFACE */
        if (configured && index <= 1u) {
            ep0.scratch[0] = 0;
            ep0_answer(ep0.scratch, 1, length);
            return;
        }
        break;
    case 0x010b: /* SET_INTERFACE: alternate setting 0 only */
        if (configured && index <= 1u && value == 0u) {
            ep0_status_in();
            return;
        }
        break;
    case 0x0201: /* CLEAR_FEATURE(ENDPOINT_HALT): the toggle back to DATA0 */
        if (value == 0u && configured) {
            if (index == EP_DATA) {
                out_pid = 0;
            } else if (index == (0x80u | EP_DATA)) {
                in_pid = 0;
            } else if (index == (0x80u | EP_NOTIFY)) {
                notify_pid = 0;
            }
            ep0_status_in();
            return;
        }
        break;
    case 0x2120: /* SET_LINE_CODING */
        if (length == sizeof line_coding) {
            ep0.request = req;
            ep0_out_arm(EP0_OUT_DATA);
            return;
        }
        break;
    case 0xa121: /* GET_LINE_CODING */
        ep0_answer(line_coding, sizeof line_coding, length);
        return;
    case 0x2122: /* SET_CONTROL_LINE_STATE: bit 0 DTR, bit 1 RTS */
        if (configured) {
            uint8_t was = dtr;
            dtr = (uint8_t)(value & 1u);
            if (dtr != was) {
                tx_tail = tx_head; /* what was queued for a closed port is stale */
                tx_stalled = 0;
                if (dtr) {
                    notify();
                }
            }
            ep0_status_in();
            return;
        }
        break;
    case 0x2123: /* SEND_BREAK */
        ep0_status_in();
        return;
    default:
        break;
    }
    ep0_stall();
}

static void ep0_in_done(void)
{
    if (ep0.state == EP0_IN_DATA) {
        if (ep0.left > 0u || ep0.zlp) {
            ep0_in_next();
        } else {
            ep0_out_arm(EP0_OUT_STATUS); /* the host's zero-length packet */
        }
    } else if (ep0.state == EP0_IN_STATUS) {
        if (ep0.address) {
            REG(USB_ADDR_ENDP) = ep0.address & 0x7fu;
            ep0.address = 0;
        }
        ep0.state = EP0_IDLE;
    }
}

static void ep0_out_done(void)
{
    uint32_t len = DPRAM(BUF_CTRL(0, 1)) & BUF_LEN, i, w = 0;
    if (ep0.state == EP0_OUT_DATA) {
        if (ep0.request == 0x20u && len == sizeof line_coding) {
            for (i = 0; i < len; i++) {
                if ((i & 3u) == 0u) {
                    w = DPRAM(EP0_BUF + i);
                }
                line_coding[i] = (uint8_t)(w >> (8u * (i & 3u)));
            }
            ep0_status_in();
        } else {
            ep0_stall();
        }
    } else {
        ep0.state = EP0_IDLE; /* the status stage of an IN request */
    }
}

/* ---- Data endpoints ---- */

static void data_reset(void)
{
    rx_head = rx_tail = 0;
    tx_head = tx_tail = 0;
    in_busy = 0;
    in_last = 0;
    notify_busy = 0;
    tx_stalled = 0;
    out_armed = 0;
    in_pid = out_pid = notify_pid = 0;
    /* Whatever the controller still held goes: a configured device arms
     * EP2 OUT again (out_arm). */
    DPRAM(BUF_CTRL(EP_DATA, 0)) = 0;
    DPRAM(BUF_CTRL(EP_NOTIFY, 0)) = 0;
    if (configured) {
        DPRAM(BUF_CTRL(EP_DATA, 1)) = 0;
        out_arm();
    }
}

static uint16_t rx_free(void)
{
    return (uint16_t)((rx_tail - rx_head - 1u) & (RX_RING - 1u));
}

/* EP2 OUT takes a packet when the ring has room for one (else the host is
 * NAKed until usb_cdc_read makes room). Interrupts masked, or from the ISR. */
static void out_arm(void)
{
    if (configured && !out_armed && rx_free() >= BULK_SIZE) {
        out_armed = 1;
        buf_give(BUF_CTRL(EP_DATA, 1), (out_pid ? BUF_DATA1 : 0u) | BULK_SIZE);
    }
}

static void out_done(void)
{
    uint32_t len = DPRAM(BUF_CTRL(EP_DATA, 1)) & BUF_LEN, i, w = 0;
    uint16_t h = rx_head;
    out_armed = 0;
    out_pid ^= 1u;
    for (i = 0; i < len && i < BULK_SIZE; i++) {
        if ((i & 3u) == 0u) {
            w = DPRAM(EP2_OUT_BUF + i);
        }
        rx_ring[h] = (uint8_t)(w >> (8u * (i & 3u)));
        h = (uint16_t)((h + 1u) & (RX_RING - 1u));
    }
    rx_head = h;
    out_arm();
}

static uint16_t tx_used(void)
{
    return (uint16_t)((tx_head - tx_tail) & (TX_RING - 1u));
}

/* Sends the next packet from the transmit ring (or the zero-length packet
 * after a full one that emptied it). Interrupts masked, or from the ISR. */
static void in_start(void)
{
    uint8_t pkt[BULK_SIZE];
    uint32_t n = 0;
    uint16_t t = tx_tail;
    if (in_busy || !configured) {
        return;
    }
    while (n < BULK_SIZE && t != tx_head) {
        pkt[n++] = tx_ring[t];
        t = (uint16_t)((t + 1u) & (TX_RING - 1u));
    }
    if (n == 0u && in_last != BULK_SIZE) {
        return;
    }
    tx_tail = t;
    dpram_put(EP2_IN_BUF, pkt, n);
    in_busy = 1;
    in_last = (uint8_t)n;
    buf_give(BUF_CTRL(EP_DATA, 0), BUF_FULL | (in_pid ? BUF_DATA1 : 0u) | n);
    in_pid ^= 1u;
}

/* SERIAL_STATE (PSTN 1.2 6.5.4): DCD and DSR on while the host holds DTR. */
static void notify(void)
{
    static const uint8_t serial_state[10] = {0xa1, 0x20, 0, 0, 0, 0, 2, 0, 0x03, 0};
    if (!configured || notify_busy) {
        return;
    }
    dpram_put(EP1_IN_BUF, serial_state, sizeof serial_state);
    notify_busy = 1;
    buf_give(BUF_CTRL(EP_NOTIFY, 0), BUF_FULL | (notify_pid ? BUF_DATA1 : 0u) | sizeof serial_state);
    notify_pid ^= 1u;
}

/* ---- Interrupt ---- */

static void bus_reset(void)
{
    REG(USB_ADDR_ENDP) = 0;
    endpoints_off();
    DPRAM(BUF_CTRL(0, 0)) = 0;
    DPRAM(BUF_CTRL(0, 1)) = 0;
    ep0.state = EP0_IDLE;
    ep0.address = 0;
}

void isr_usbctrl(void)
{
    uint32_t ints = REG(USB_INTS);
    /* Buffers first: a transfer that completed came before a SETUP that
     * waits beside it. */
    if (ints & INT_BUFF_STATUS) {
        uint32_t done = REG(USB_BUFF_STATUS);
        REG(USB_BUFF_STATUS) = done; /* write 1 to clear */
        if (done & BIT_IN(0)) {
            ep0_in_done();
        }
        if (done & BIT_OUT(0)) {
            ep0_out_done();
        }
        if (done & BIT_IN(EP_NOTIFY)) {
            notify_busy = 0;
        }
        if (done & BIT_OUT(EP_DATA)) {
            out_done();
        }
        if (done & BIT_IN(EP_DATA)) {
            in_busy = 0;
            in_start();
        }
    }
    if (ints & INT_SETUP_REQ) {
        REG(USB_SIE_STATUS) = SIE_STATUS_SETUP_REC;
        setup();
    }
    if (ints & INT_BUS_RESET) {
        REG(USB_SIE_STATUS) = SIE_STATUS_BUS_RESET;
        bus_reset();
    }
}

/* ---- The line, for the HAL ---- */

int usb_cdc_read(void)
{
    uint8_t b;
    uint32_t m;
    if (rx_tail == rx_head) {
        return -1;
    }
    b = rx_ring[rx_tail];
    rx_tail = (uint16_t)((rx_tail + 1u) & (RX_RING - 1u));
    if (!out_armed) {
        m = irq_save();
        out_arm();
        irq_restore(m);
    }
    return b;
}

uint8_t usb_cdc_rx_pending(void)
{
    return rx_head != rx_tail;
}

void usb_cdc_flush(void)
{
    uint32_t m = irq_save();
    in_start();
    irq_restore(m);
}

void usb_cdc_write(uint8_t byte)
{
    uint16_t next;
    if (!configured || !dtr) {
        return;
    }
    if (tx_stalled) {
        if (tx_used() >= TX_RING / 2u) {
            return; /* the host still takes nothing */
        }
        tx_stalled = 0;
    }
    next = (uint16_t)((tx_head + 1u) & (TX_RING - 1u));
    if (next == tx_tail) {
        uint32_t start = REG(TIMER_TIMERAWL);
        usb_cdc_flush();
        while (next == tx_tail) {
            if (!configured || !dtr) {
                return;
            }
            if (REG(TIMER_TIMERAWL) - start >= 1000u * TABLA_USB_STALL_MS) {
                tx_stalled = 1;
                return;
            }
        }
    }
    tx_ring[tx_head] = byte;
    tx_head = next;
    if (tx_used() >= BULK_SIZE) {
        usb_cdc_flush();
    }
}

static void unreset_usb(void)
{
    REG_SET(RESETS_RESET) = RESET_USBCTRL;
    REG_CLR(RESETS_RESET) = RESET_USBCTRL;
    while (!(REG(RESETS_RESET_DONE) & RESET_USBCTRL)) {
    }
}

void usb_cdc_init(void)
{
    uint32_t off;
    /* clk_usb: pll_usb's 48 MHz, undivided. */
    REG(CLK_USB_DIV) = 1u << 8;
    REG(CLK_USB_CTRL) = CLK_CTRL_ENABLE | CLK_USB_AUX_PLL_USB;
    unreset_usb();
    for (off = 0; off < 0x1000u; off += 4u) {
        DPRAM(off) = 0;
    }
    REG(USB_MUXING) = MUXING_TO_PHY | MUXING_SOFTCON;
    /* The Pico senses VBUS on GP24 through a divider, not on the
     * controller's VBUS_DETECT pin: tell the controller it is there. */
    REG(USB_PWR) = PWR_VBUS_DETECT | PWR_VBUS_DETECT_OVERRIDE_EN;
    REG(USB_MAIN_CTRL) = MAIN_CTRL_CONTROLLER_EN;
    REG(USB_INTE) = INT_BUFF_STATUS | INT_BUS_RESET | INT_SETUP_REQ;
    REG(NVIC_ISER) = 1u << IRQ_USBCTRL;
    /* An interrupt per EP0 buffer; the D+ pull-up on: the device is on the
     * bus, the host resets it and enumerates it. */
    REG(USB_SIE_CTRL) = SIE_CTRL_EP0_INT_1BUF | SIE_CTRL_PULLUP_EN;
}
