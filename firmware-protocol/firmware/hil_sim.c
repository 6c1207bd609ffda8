/*
 * The hardware around a board built from a board file (hal_165.c), for the
 * hardware-in-the-loop test (../hil): runs the firmware ELF in simavr, in
 * step with the wall clock, and emulates
 *
 *   - the USB serial cable: the MCU's UART0 on a pseudo-terminal reached
 *     through a symbolic link (-link), which the host daemon opens like a
 *     /dev/serial/by-id name. "unplug" closes the pty and removes the link
 *     (the MCU keeps running, its bytes are lost), "replug" makes a new pty
 *     and points the link at it;
 *   - the 74HC165 chain: on a low SH/LD pulse it latches the sensor values
 *     the test set, and each rising CLK edge shifts the next bit to QH;
 *   - the WS2812B strip: the data pin's pulses are decoded by their length
 *     in cycles (375 ns a 0, 750 ns a 1), a frame ends at the latch pause,
 *     and each frame that differs from the last is printed;
 *   - the buttons, and the floating A0 pin whose noise the die samples: to
 *     show a chosen face the harness reads the die's state from the MCU's
 *     RAM (-rng, the address of hal_165.c's rng_state) and feeds the ADC the
 *     noise bits that roll that face.
 *
 * Usage: hil_sim -mcu atmega2560|atmega328p -link PATH -cells N -bits B
 *                -leds L [-rng ADDR] [-die 6|4] [-frames] firmware.elf
 *
 * Commands on standard input, one a line, each optionally prefixed by
 * "@MS ": carry it out MS milliseconds of MCU time after the previous
 * prefixed one (see take):
 *   set CELL VALUE    a sensor now reads VALUE (0 empty)
 *   go                start the MCU (sensors set before it are there at boot)
 *   press B, release B   button B (0 roll, 1 takeback, 2 hint, 3 confirm, 4 new)
 *   tap B MS          press button B for MS milliseconds of MCU time
 *   roll FACE         the next roll of the die shows FACE (1..6, or 1..4 N E S W)
 *   unplug, replug    the cable
 *   mute, unmute      the cable's MCU-to-host wire cut and mended: the MCU's
 *                     bytes are lost, the host's still reach it
 *   scans on|off      (on) report every latch of the sensor chain and every
 *                     set, for the test to count the scans between a change
 *                     on a sensor and the MCU's CellChange
 *   reset             the MCU's reset line
 *   quit
 * Lines on standard output:
 *   ready PATH        the link exists (after go)
 *   leds N HEX MS     frame N of the strip: r g b per LED, hex, latched at
 *                     MS milliseconds of MCU time
 *   frame DIR TYPE SEQ MS [REFSEQ REFTYPE]   (-frames) every intact frame on
 *                     the line, DIR up (MCU to host) or down (as the MCU's
 *                     UART receives it), type and seq in decimal, MCU time;
 *                     Acks and Errors add the frame they answer
 *   reset MS          (-frames) the MCU's reset line was pulled
 *   bad DIR CODE MS   (-frames) a frame on the line that failed to decode
 *                     (CODE: tabla_rx_feed's negative result)
 *   scan MS, set CELL VALUE MS   (scans on) a latch of the chain, a set
 *   error TEXT        something the test must fail on (bad WS2812 pulses, a
 *                     crashed CPU)
 *   stats ...         at the end: MCU seconds, wall seconds, frames, and the
 *                     most stack the run used (RAMEND - the lowest SP seen
 *                     after any instruction, interrupts included)
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 600
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_adc.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>

#include "tabla_proto.h"

#define F_CPU 16000000u
#define CYCLES_PER_MS (F_CPU / 1000u)
#define MAX_CELLS 2048
#define MAX_LEDS 4096

static avr_t *avr;
static int tracing; /* TABLA_HIL_TRACE set: log to stderr */
static const char *trace_name = "";

/* Pins, per MCU (hal_165.c). */
static char chain_port = 'B', button_port;
static int pl_bit, clk_bit, qh_bit, led_bit, button_shift;

/* ---- Output to the test ---- */

static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

/* ---- The 74HC165 chain ---- */

static int ncells, sensor_bits;
static uint8_t sensors[MAX_CELLS];
static uint8_t chain[MAX_CELLS * 8];
static int chain_len, chain_pos, pl_level = 1;

/* Drives an input pin. simavr passes a pin's IRQ on only when its value
 * changes, and a reset clears the PIN registers behind the IRQs' backs:
 * force re-raises the level through the other one. */
static void drive(char port, int bit, int level, int force)
{
    avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
    if (force) {
        avr_raise_irq(irq, !level);
    }
    avr_raise_irq(irq, level);
}

static void set_qh(void)
{
    int v = chain_pos < chain_len ? chain[chain_pos] : 0; /* the last DS is tied low */
    drive(chain_port, qh_bit, v, 0);
}

static int report_scans; /* "scans on" */

static void latch(void)
{
    int i, k;
    if (report_scans) {
        out("scan %lu\n", (unsigned long)(avr->cycle / CYCLES_PER_MS));
    }
    chain_len = ncells * sensor_bits;
    for (i = 0; i < ncells; i++) {
        for (k = 0; k < sensor_bits; k++) {
            chain[i * sensor_bits + k] = (uint8_t)((sensors[i] >> (sensor_bits - 1 - k)) & 1);
        }
    }
    chain_pos = 0;
    set_qh();
}

static void pl_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    pl_level = value != 0;
    if (!pl_level) {
        latch(); /* parallel load while SH/LD is low */
    }
}

static void clk_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (value && pl_level) {
        chain_pos++;
        set_qh();
    }
}

/* ---- Buttons ---- */

static uint8_t buttons;             /* bit b: button b held */
static avr_cycle_count_t release_at[5];

static void set_buttons(int force)
{
    int b;
    for (b = 0; b < 5; b++) {
        drive(button_port, b + button_shift, (buttons >> b) & 1 ? 0 : 1, force);
    }
    if (tracing) {
        avr_ioport_state_t st;
        avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE(button_port), &st);
        fprintf(stderr, "trace %s %.3f buttons %02x PIN%c %02x\n", trace_name,
                (double)avr->cycle / F_CPU, buttons, button_port, (unsigned)st.pin);
    }
}

/* ---- The die's noise ---- */

static uint32_t rng_addr, noise_word, lcg = 12345;
static int die_faces, noise_bits; /* bits of noise_word still to give, MSB first */

static uint32_t next_lcg(void)
{
    lcg = lcg * 1664525u + 1013904223u;
    return lcg;
}

static void adc_trigger(struct avr_irq_t *irq, uint32_t value, void *param)
{
    int bit;
    (void)irq;
    (void)value;
    (void)param;
    if (noise_bits > 0) {
        bit = (int)((noise_word >> (noise_bits - 1)) & 1u);
        noise_bits--;
    } else {
        bit = (int)(next_lcg() >> 31);
    }
    /* 0 mV reads 0, AVcc reads 1023: the low bit is the noise bit. */
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0), bit ? 5000 : 0);
}

static uint32_t xorshift(uint32_t x)
{
    if (x == 0) {
        x = 0x9E3779B9u;
    }
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

/* Chooses the noise that makes hal_random's next value roll `face`
 * through tabla_random_below(die_faces). */
static int arrange_roll(int face)
{
    uint32_t state, lim, w;
    int tries;
    if (die_faces == 0 || rng_addr == 0 || face < 1 || face > die_faces) {
        return -1;
    }
    state = (uint32_t)avr->data[rng_addr] | ((uint32_t)avr->data[rng_addr + 1] << 8) |
            ((uint32_t)avr->data[rng_addr + 2] << 16) | ((uint32_t)avr->data[rng_addr + 3] << 24);
    lim = 0xFFFFFFFFu - (0xFFFFFFFFu % (uint32_t)die_faces);
    for (tries = 0; tries < 10000; tries++) {
        uint32_t x;
        w = next_lcg() ^ (next_lcg() << 16);
        x = xorshift(state ^ w);
        if (x < lim && x % (uint32_t)die_faces == (uint32_t)(face - 1)) {
            noise_word = w;
            noise_bits = 32;
            if (tracing) {
                fprintf(stderr, "trace %s %.3f roll %d: state %08x noise %08x\n", trace_name,
                        (double)avr->cycle / F_CPU, face, state, w);
            }
            return 0;
        }
    }
    return -1;
}

/* ---- The WS2812B strip ---- */

static int nleds;
static avr_cycle_count_t led_rise, led_fall;
static int led_level;
static uint8_t led_bits[MAX_LEDS * 24];
static int led_nbits, led_bad;
static uint8_t shown[MAX_LEDS * 3];
static int frames, shown_valid;

static void led_frame_done(void)
{
    static char hex[MAX_LEDS * 6 + 1];
    uint8_t rgb[MAX_LEDS * 3];
    int i, k;
    if (led_nbits == 0) {
        return;
    }
    if (led_nbits != nleds * 24 || led_bad) {
        out("error WS2812 frame of %d bits for %d LEDs, %d bad pulses\n", led_nbits, nleds,
            led_bad);
        led_nbits = led_bad = 0;
        return;
    }
    for (i = 0; i < nleds; i++) {
        uint8_t grb[3] = {0, 0, 0};
        for (k = 0; k < 24; k++) {
            grb[k / 8] = (uint8_t)((grb[k / 8] << 1) | led_bits[i * 24 + k]);
        }
        rgb[3 * i] = grb[1];
        rgb[3 * i + 1] = grb[0];
        rgb[3 * i + 2] = grb[2];
    }
    led_nbits = 0;
    frames++;
    if (shown_valid && memcmp(rgb, shown, (size_t)nleds * 3) == 0) {
        return;
    }
    memcpy(shown, rgb, (size_t)nleds * 3);
    shown_valid = 1;
    for (i = 0; i < nleds * 3; i++) {
        snprintf(hex + 2 * i, 3, "%02x", rgb[i]);
    }
    out("leds %d %s %lu\n", frames, hex, (unsigned long)(avr->cycle / CYCLES_PER_MS));
}

static void led_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    avr_cycle_count_t now = avr->cycle;
    (void)irq;
    (void)param;
    if (value && !led_level) {
        /* A low pause of 50 us or more latched the previous frame. */
        if (led_nbits > 0 && now - led_fall >= 50u * 16u) {
            led_frame_done();
        }
        led_rise = now;
    } else if (!value && led_level) {
        avr_cycle_count_t high = now - led_rise;
        if (led_nbits < (int)sizeof led_bits && (high == 6 || high == 12)) {
            led_bits[led_nbits++] = high == 12;
        } else {
            led_bad++;
        }
        led_fall = now;
    }
    led_level = value != 0;
}

/* ---- Tracing (TABLA_HIL_TRACE=1): every frame on the line, to stderr ---- */

typedef struct {
    tabla_rx_t rx;
    uint8_t buf[TABLA_MAX_BODY + 8];
    const char *dir;
} tracer_t;

static tracer_t trace_up = {.dir = "mcu>host"}, trace_down = {.dir = "host>mcu"};
static int report_frames; /* -frames: every frame to stdout, for the test */

static void trace(tracer_t *tr, uint8_t b)
{
    int r;
    if (!tracing && !report_frames) {
        return;
    }
    if (tr->rx.buf == NULL) {
        tabla_rx_init(&tr->rx, tr->buf, sizeof tr->buf);
    }
    r = tabla_rx_feed(&tr->rx, b);
    if (r < 0 && report_frames) {
        out("bad %s %d %lu\n", tr == &trace_up ? "up" : "down", r,
            (unsigned long)(avr->cycle / CYCLES_PER_MS));
    }
    if (r == TABLA_RX_FRAME && report_frames) {
        unsigned long ms = (unsigned long)(avr->cycle / CYCLES_PER_MS);
        const char *dir = tr == &trace_up ? "up" : "down";
        uint8_t type = tr->buf[0];
        unsigned seq = tabla_get_u16(tr->buf + 1);
        if (type == TABLA_T_ACK && tr->rx.len >= 3 + 3 + 2) {
            out("frame %s %u %u %lu %u %u\n", dir, type, seq, ms, tabla_get_u16(tr->buf + 3),
                tr->buf[5]);
        } else if (type == TABLA_T_ERROR && tr->rx.len >= 3 + 4 + 2) {
            out("frame %s %u %u %lu %u %u\n", dir, type, seq, ms, tabla_get_u16(tr->buf + 4),
                tr->buf[6]);
        } else {
            out("frame %s %u %u %lu\n", dir, type, seq, ms);
        }
    }
    if (!tracing) {
        return;
    }
    if (r == TABLA_RX_FRAME) {
        fprintf(stderr, "trace %s %.3f %s type 0x%02x seq %u len %u\n", trace_name,
                (double)avr->cycle / F_CPU, tr->dir, tr->buf[0], tabla_get_u16(tr->buf + 1),
                tr->rx.len);
    } else if (r < 0) {
        fprintf(stderr, "trace %s %.3f %s bad frame %d\n", trace_name, (double)avr->cycle / F_CPU,
                tr->dir, r);
    }
}

/* ---- The serial cable ---- */

static const char *link_path;
static int master = -1, slave = -1;
static uint8_t to_mcu[1 << 16];
static size_t to_mcu_len, to_mcu_off;
static int uart_xon = 1;
static int muted; /* "mute": the MCU's bytes never reach the host */

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    uint8_t b = (uint8_t)value;
    (void)irq;
    (void)param;
    trace(&trace_up, b);
    if (master >= 0 && !muted && write(master, &b, 1) != 1) {
        /* nobody reads the other end (or its buffer is full): the byte is
         * lost, as on a cable nobody listens to */
    }
}

static void feed_uart(void)
{
    avr_irq_t *in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    while (uart_xon && to_mcu_off < to_mcu_len) {
        trace(&trace_down, to_mcu[to_mcu_off]);
        avr_raise_irq(in, to_mcu[to_mcu_off++]);
    }
    if (to_mcu_off == to_mcu_len) {
        to_mcu_off = to_mcu_len = 0;
    }
}

static void uart_xon_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 1;
    feed_uart();
}

static void uart_xoff_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 0;
}

static int plug(void)
{
    char tmp[4200];
    struct termios tio;
    const char *name;
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
        (name = ptsname(master)) == NULL) {
        return -1;
    }
    /* Keep a handle on the slave (or the master reads EIO while the daemon
     * has it closed) and make it raw at once: no echo, no line editing. */
    slave = open(name, O_RDWR | O_NOCTTY);
    if (slave < 0 || tcgetattr(slave, &tio) != 0) {
        return -1;
    }
    cfmakeraw(&tio);
    if (tcsetattr(slave, TCSANOW, &tio) != 0) {
        return -1;
    }
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    snprintf(tmp, sizeof tmp, "%s.new", link_path);
    unlink(tmp);
    if (symlink(name, tmp) != 0 || rename(tmp, link_path) != 0) {
        return -1;
    }
    return 0;
}

static void unplug(void)
{
    unlink(link_path);
    if (master >= 0) {
        close(master);
    }
    if (slave >= 0) {
        close(slave);
    }
    master = slave = -1;
    to_mcu_len = to_mcu_off = 0;
}

static void read_host(void)
{
    ssize_t n;
    if (master < 0 || to_mcu_len > sizeof to_mcu / 2) {
        return;
    }
    n = read(master, to_mcu + to_mcu_len, sizeof to_mcu - to_mcu_len);
    if (n > 0) {
        to_mcu_len += (size_t)n;
    }
}

/* ---- Time ---- */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* simavr would usleep through the MCU's sleep; the main loop paces instead. */
static avr_cycle_count_t slept;

static void no_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    (void)a;
    slept += how_long;
}

/* ---- Commands ---- */

static char line[256];
static size_t line_len;
static int quit, started;
static uint16_t min_sp = 0xFFFFu; /* the lowest stack pointer seen */

static void command(char *l)
{
    int a = 0, b = 0;
    char word[32];
    if (sscanf(l, "%31s", word) != 1) {
        return;
    }
    if (strcmp(word, "set") == 0 && sscanf(l, "set %d %d", &a, &b) == 2 && a >= 0 && a < ncells) {
        sensors[a] = (uint8_t)b;
        if (report_scans) {
            out("set %d %d %lu\n", a, b, (unsigned long)(avr->cycle / CYCLES_PER_MS));
        }
    } else if (strcmp(word, "go") == 0) {
        started = 1;
    } else if (strcmp(word, "press") == 0 && sscanf(l, "press %d", &a) == 1 && a >= 0 && a < 5) {
        buttons |= (uint8_t)(1u << a);
        release_at[a] = 0;
        set_buttons(0);
    } else if (strcmp(word, "release") == 0 && sscanf(l, "release %d", &a) == 1 && a >= 0 &&
               a < 5) {
        buttons &= (uint8_t)~(1u << a);
        set_buttons(0);
    } else if (strcmp(word, "tap") == 0 && sscanf(l, "tap %d %d", &a, &b) == 2 && a >= 0 &&
               a < 5) {
        buttons |= (uint8_t)(1u << a);
        release_at[a] = avr->cycle + (avr_cycle_count_t)b * CYCLES_PER_MS;
        set_buttons(0);
    } else if (strcmp(word, "roll") == 0 && sscanf(l, "roll %d", &a) == 1) {
        if (arrange_roll(a) != 0) {
            out("error cannot roll %d (die of %d faces, rng at 0x%x)\n", a, die_faces, rng_addr);
        }
    } else if (strcmp(word, "unplug") == 0) {
        unplug();
    } else if (strcmp(word, "replug") == 0) {
        if (master < 0 && plug() != 0) {
            out("error replug: %s\n", strerror(errno));
        }
    } else if (strcmp(word, "mute") == 0 || strcmp(word, "unmute") == 0) {
        muted = strcmp(word, "mute") == 0;
    } else if (strcmp(word, "scans") == 0 && sscanf(l, "scans %31s", word) == 1) {
        report_scans = strcmp(word, "on") == 0;
    } else if (strcmp(word, "reset") == 0) {
        if (tracing) {
            fprintf(stderr, "trace %s %.3f reset\n", trace_name, (double)avr->cycle / F_CPU);
        }
        if (report_frames) {
            out("reset %lu\n", (unsigned long)(avr->cycle / CYCLES_PER_MS));
        }
        avr_reset(avr);
        /* A strip frame cut by the reset is no frame (a real strip would
         * show it half updated until the next one). The data line is low
         * from the reset on (the pin an input, the strip's input low): a
         * reset while a bit was high left led_level set, and the firmware
         * driving the pin low once it ran again counted as a pulse of the
         * next frame, a bad one ("WS2812 frame of 5208 bits for 217 LEDs,
         * 1 bad pulses", TestHIL/six at script line 18 on a busy host). */
        led_nbits = led_bad = 0;
        led_level = 0;
        pl_level = 1;
        set_buttons(1);
        drive(chain_port, qh_bit, chain_pos < chain_len ? chain[chain_pos] : 0, 1);
    } else if (strcmp(word, "quit") == 0) {
        quit = 1;
    } else {
        out("error unknown command: %s\n", l);
    }
}

/* A command "@MS rest" is due MS milliseconds of MCU time after the
 * previous such command was carried out (at once if that has passed): the
 * test writes how long it waited between two actions, so that when this
 * process falls behind (a busy host) and reads several commands at once,
 * the physical actions still keep their spacing in the MCU's time, and so
 * in the board times of the events they cause. Commands wait in order. */
#define PENDING 512
static struct {
    unsigned long ms;
    int timed;
    char text[sizeof line];
} pending[PENDING];
static int pending_head, pending_len;
static avr_cycle_count_t last_due, next_due;
static int next_due_set;

static void run_due(void)
{
    while (pending_len > 0) {
        if (!next_due_set) {
            next_due = pending[pending_head].timed
                           ? last_due + (avr_cycle_count_t)pending[pending_head].ms * CYCLES_PER_MS
                           : avr->cycle;
            if (next_due < avr->cycle) {
                next_due = avr->cycle;
            }
            next_due_set = 1;
        }
        if (next_due > avr->cycle) {
            return;
        }
        if (pending[pending_head].timed) {
            last_due = avr->cycle;
        }
        next_due_set = 0;
        command(pending[pending_head].text);
        pending_head = (pending_head + 1) % PENDING;
        pending_len--;
    }
}

static void take(char *l)
{
    int k = (pending_head + pending_len) % PENDING;
    char *rest = l;
    if (pending_len == PENDING) {
        out("error more than %d commands waiting\n", PENDING);
        return;
    }
    pending[k].timed = l[0] == '@';
    pending[k].ms = 0;
    if (pending[k].timed) {
        pending[k].ms = strtoul(l + 1, &rest, 10);
        while (*rest == ' ') {
            rest++;
        }
    }
    snprintf(pending[k].text, sizeof pending[k].text, "%s", rest);
    pending_len++;
    run_due();
}

static void read_commands(int block)
{
    char buf[4096];
    ssize_t n, i;
    if (!block) {
        fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    }
    n = read(0, buf, sizeof buf);
    if (n == 0) {
        quit = 1; /* the test is gone */
        return;
    }
    for (i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            line[line_len] = 0;
            take(line);
            line_len = 0;
        } else if (line_len < sizeof line - 1) {
            line[line_len++] = buf[i];
        }
    }
}

int main(int argc, char **argv)
{
    elf_firmware_t fw;
    const char *mcu = "atmega2560", *elf = NULL;
    uint32_t flags = 0;
    double start;
    avr_cycle_count_t slice = CYCLES_PER_MS;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-mcu") == 0 && i + 1 < argc) {
            mcu = argv[++i];
        } else if (strcmp(argv[i], "-link") == 0 && i + 1 < argc) {
            link_path = argv[++i];
        } else if (strcmp(argv[i], "-cells") == 0 && i + 1 < argc) {
            ncells = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-bits") == 0 && i + 1 < argc) {
            sensor_bits = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-leds") == 0 && i + 1 < argc) {
            nleds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-rng") == 0 && i + 1 < argc) {
            rng_addr = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "-die") == 0 && i + 1 < argc) {
            die_faces = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-frames") == 0) {
            report_frames = 1;
        } else if (argv[i][0] != '-' && elf == NULL) {
            elf = argv[i];
        } else {
            elf = NULL;
            break;
        }
    }
    if (elf == NULL || link_path == NULL || ncells < 1 || ncells > MAX_CELLS || sensor_bits < 1 ||
        sensor_bits > 8 || nleds < 0 || nleds > MAX_LEDS) {
        fprintf(stderr, "usage: hil_sim -mcu MCU -link PATH -cells N -bits B -leds L [-rng ADDR] "
                        "[-die FACES] [-frames] firmware.elf\n");
        return 2;
    }
    tracing = getenv("TABLA_HIL_TRACE") != NULL && *getenv("TABLA_HIL_TRACE") != 0;
    trace_name = strrchr(elf, '/') ? strrchr(elf, '/') + 1 : elf;
    if (strcmp(mcu, "atmega2560") == 0) {
        pl_bit = 0, clk_bit = 1, qh_bit = 3, led_bit = 4;
        button_port = 'A', button_shift = 0;
    } else if (strcmp(mcu, "atmega328p") == 0) {
        pl_bit = 1, clk_bit = 5, qh_bit = 4, led_bit = 2;
        button_port = 'D', button_shift = 2;
    } else {
        fprintf(stderr, "hil_sim: unknown MCU %s\n", mcu);
        return 2;
    }
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "hil_sim: cannot read %s\n", elf);
        return 2;
    }
    avr = avr_make_mcu_by_name(mcu);
    if (!avr) {
        fprintf(stderr, "hil_sim: simavr has no %s\n", mcu);
        return 2;
    }
    avr_init(avr);
    avr->frequency = F_CPU;
    avr->vcc = avr->avcc = avr->aref = 5000;
    avr->log = 0;
    avr->sleep = no_sleep;
    avr_load_firmware(avr, &fw);

    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon_cb, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff_cb, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(chain_port), pl_bit),
                            pl_changed, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(chain_port), clk_bit),
                            clk_changed, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(chain_port), led_bit),
                            led_pin, 0);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER),
                            adc_trigger, 0);

    while (!started && !quit) {
        read_commands(1);
    }
    if (quit) {
        return 0;
    }
    set_buttons(1);
    latch();
    if (plug() != 0) {
        fprintf(stderr, "hil_sim: pty at %s: %s\n", link_path, strerror(errno));
        return 1;
    }
    start = wall();
    out("ready %s\n", link_path);

    while (!quit) {
        avr_cycle_count_t end = avr->cycle + slice;
        double ahead;
        while (avr->cycle < end) {
            int st = avr_run(avr);
            /* The deepest the stack went: SP after every instruction. */
            uint16_t sp = (uint16_t)(avr->data[R_SPL] | (avr->data[R_SPH] << 8));
            if (sp < min_sp) {
                min_sp = sp;
            }
            if (st == cpu_Done || st == cpu_Crashed) {
                out("error the CPU stopped (state %d) at %.3f s\n", st,
                    (double)avr->cycle / F_CPU);
                quit = 1;
                break;
            }
        }
        for (i = 0; i < 5; i++) {
            if (release_at[i] && avr->cycle >= release_at[i]) {
                release_at[i] = 0;
                buttons &= (uint8_t)~(1u << i);
                set_buttons(0);
            }
        }
        if (led_nbits > 0 && !led_level && avr->cycle - led_fall >= 50u * 16u) {
            led_frame_done();
        }
        read_host();
        feed_uart();
        read_commands(0);
        run_due();
        /* Stay in step with the wall clock: the daemon's timeouts are real. */
        ahead = (double)avr->cycle / F_CPU - (wall() - start);
        if (ahead > 0.002) {
            usleep((useconds_t)(ahead * 1e6));
        }
    }
    out("stats mcu %.3f s wall %.3f s busy %.0f%% frames %d stack %u B\n", (double)avr->cycle / F_CPU,
        wall() - start, avr->cycle ? 100.0 * (double)(avr->cycle - slept) / (double)avr->cycle : 0.0,
        frames, (unsigned)(avr->ramend - min_sp));
    unplug();
    return 0;
}
