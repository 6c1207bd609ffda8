/*
 * Runs the ATmega328P build (tabla.elf) in simavr and talks to it over its
 * simulated UART, as a host would: the integration test of hal_avr.c (UART,
 * timer, ring buffer, WS2812 driver, matrix scan, avr-libc's CRC) and of
 * the firmware on the real instruction set.
 *
 * The simulated board: a 74HC138 row decoder on PC0..PC2 and the column
 * inputs PD2..PD7, PB0..PB1 follow the cells set in `pieces`; the buttons
 * PB3, PB4, PC3..PC5 are released (high) unless pressed.
 *
 * Usage: sim_avr tabla.elf. Prints "N passed, N failed".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>

#include "tabla_proto.h"

#define F_CPU 16000000u

static avr_t *avr;
static uint8_t pieces[64];
static uint8_t roll_pressed;

static uint8_t tx[1 << 16];
static size_t tx_len;

static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf(ok ? "ok   " : "FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (ok) {
        passed++;
    } else {
        failed++;
    }
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (tx_len < sizeof tx) {
        tx[tx_len++] = (uint8_t)value;
    }
}

/* The WS2812 data line PB2: every high pulse, decoded into bits. */
static avr_cycle_count_t rise;
static uint8_t ws_bits[8192];
static int ws_nbits, ws_bad_pulse, ws_bad_period;

static void led_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    avr_cycle_count_t now = avr->cycle;
    (void)irq;
    (void)param;
    if (value) {
        /* Inside a byte a bit lasts 20 cycles; between bytes and LEDs
         * the low time may stretch, but never past the 50 us latch. */
        if (rise != 0 && ws_nbits % 8 != 0 && now - rise != 20) {
            ws_bad_period++;
        }
        if (rise != 0 && now - rise > 50u * 16u) {
            ws_bad_period += ws_nbits % 24 != 0; /* a latch inside an LED */
        }
        rise = now;
        return;
    }
    if (ws_nbits < (int)sizeof ws_bits) {
        avr_cycle_count_t high = now - rise;
        if (high == 6) {
            ws_bits[ws_nbits++] = 0;
        } else if (high == 12) {
            ws_bits[ws_nbits++] = 1;
        } else {
            ws_bad_pulse++;
        }
    }
}

static void set_pin(char port, int pin, int level)
{
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), pin), level ? 1 : 0);
}

/* Drives the column inputs for the row the firmware selected. */
static void update_columns(void)
{
    avr_ioport_state_t st;
    int row, col;
    if (avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE('C'), &st) != 0) {
        return;
    }
    row = st.port & 7;
    for (col = 0; col < 8; col++) {
        int level = pieces[row * 8 + col] ? 0 : 1;
        if (col < 6) {
            set_pin('D', col + 2, level);
        } else {
            set_pin('B', col - 6, level);
        }
    }
}

static void row_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    update_columns();
}

static void set_buttons(void)
{
    set_pin('B', 3, !roll_pressed);
    set_pin('B', 4, 1);
    set_pin('C', 3, 1);
    set_pin('C', 4, 1);
    set_pin('C', 5, 1);
}

static void run_cycles(avr_cycle_count_t n)
{
    avr_cycle_count_t end = avr->cycle + n;
    while (avr->cycle < end) {
        int st = avr_run(avr);
        if (st == cpu_Done || st == cpu_Crashed) {
            check(0, "the CPU stopped (state %d)", st);
            exit(1);
        }
    }
}

static void run_ms(unsigned ms)
{
    run_cycles((avr_cycle_count_t)ms * (F_CPU / 1000u));
}

static void send(const uint8_t *body, uint16_t len)
{
    uint8_t frame[600];
    uint16_t n = tabla_frame_encode(body, len, frame, sizeof frame), i;
    avr_irq_t *in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    /* Pace the bytes as a UART would. simavr 1.6 moves one byte every
     * ~3000 cycles at this UBRR/U2X setting (slower than the real 1360:
     * it seems to ignore U2X and count 11 bits), and its input FIFO holds
     * 64 bytes, so feed one byte per 3200 cycles. */
    for (i = 0; i < n; i++) {
        avr_raise_irq(in, frame[i]);
        run_cycles(3200);
    }
}

static void send_msg(uint8_t type, uint16_t seq, const uint8_t *payload, uint16_t n)
{
    uint8_t body[600];
    tabla_writer_t w;
    tabla_body_begin(&w, body, sizeof body, type, seq);
    tabla_put_bytes(&w, payload, n);
    send(body, tabla_body_end(&w));
}

/* Frames the board sent since the last call. */
typedef struct {
    uint8_t body[300];
    uint16_t len;
} frame_t;
static frame_t frames[64];
static int nframes, bad_frames;

static void collect(void)
{
    static uint8_t buf[300];
    tabla_rx_t rx;
    size_t i;
    tabla_rx_init(&rx, buf, sizeof buf);
    nframes = 0;
    for (i = 0; i < tx_len; i++) {
        int r = tabla_rx_feed(&rx, tx[i]);
        if (r == TABLA_RX_FRAME && nframes < 64) {
            memcpy(frames[nframes].body, buf, rx.len);
            frames[nframes].len = rx.len;
            nframes++;
        } else if (r < 0) {
            bad_frames++;
        }
    }
    tx_len = 0;
}

static int find(uint8_t type)
{
    int i;
    for (i = 0; i < nframes; i++) {
        if (frames[i].body[0] == type) {
            return i;
        }
    }
    return -1;
}

static uint16_t seq_of(int i)
{
    return tabla_get_u16(frames[i].body + 1);
}

int main(int argc, char **argv)
{
    elf_firmware_t fw;
    uint32_t flags = 0;
    int i, k;
    const uint8_t *p;

    if (argc != 2) {
        fprintf(stderr, "usage: sim_avr tabla.elf\n");
        return 2;
    }
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "simavr has no atmega328p\n");
        return 2;
    }
    avr_init(avr);
    avr->frequency = F_CPU;
    avr->log = 0;
    avr_load_firmware(avr, &fw);

    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, 0);
    for (i = 0; i < 3; i++) {
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), i),
                                row_changed, 0);
    }
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), led_pin, 0);
    pieces[9] = 1;
    set_buttons();
    update_columns();

    /* Boot: a Hello at once. */
    run_ms(50);
    collect();
    k = find(TABLA_T_HELLO);
    check(k == 0 && seq_of(k) == 0, "boot: Hello seq 0 first (%d frames)", nframes);
    if (k >= 0) {
        p = frames[k].body + TABLA_HEADER_LEN;
        check(p[0] == 1 && p[1] == 0 && tabla_get_u16(p + 5) == 64 && tabla_get_u16(p + 7) == 64 &&
                  tabla_get_u16(p + 9) == 220,
              "Hello: v%u.%u, %u cells, %u LEDs, maxrx %u", p[0], p[1], tabla_get_u16(p + 5),
              tabla_get_u16(p + 7), tabla_get_u16(p + 9));
        check(p[11] == 5 && memcmp(p + 12, "tabla", 5) == 0 && p[17] == 12 &&
                  memcmp(p + 18, "ref-328p 8x8", 12) == 0,
              "Hello identity strings");
    }

    /* One second later, the next Hello: the timer runs, no watchdog reset. */
    run_ms(1000);
    collect();
    k = find(TABLA_T_HELLO);
    check(nframes == 1 && k == 0 && seq_of(k) == 1, "Hello repeated with seq 1 (%d frames)",
          nframes);

    /* Handshake: Ack(Hello) brings the Snapshot with the piece on cell 9. */
    {
        static const uint8_t ack[] = {1, 0, TABLA_T_HELLO};
        send_msg(TABLA_T_ACK, 0, ack, sizeof ack);
    }
    run_ms(20);
    collect();
    k = find(TABLA_T_SNAPSHOT);
    check(k >= 0 && seq_of(k) == 2, "Snapshot after Ack(Hello), seq 2");
    if (k >= 0) {
        p = frames[k].body + TABLA_HEADER_LEN;
        check(p[4] == TABLA_REASON_CONNECT && p[5] == 0 && tabla_get_u16(p + 6) == 64 &&
                  p[8] == 0x00 && p[9] == 0x02 && p[10] == 0,
              "Snapshot: presence of cell 9 only");
    }

    /* A piece put on cell 20: a CellChange after the debounce. */
    pieces[20] = 1;
    run_ms(60);
    collect();
    k = find(TABLA_T_CELL_CHANGE);
    check(k >= 0 && frames[k].body[7] == 1 && tabla_get_u16(frames[k].body + 8) == 20 &&
              frames[k].body[10] == 255,
          "CellChange for cell 20");
    pieces[20] = 0;
    run_ms(60);
    collect();
    k = find(TABLA_T_CELL_CHANGE);
    check(k >= 0 && frames[k].body[10] == 0, "CellChange when it is lifted");

    /* LEDs: a whole frame (the WS2812 driver runs with interrupts off),
     * then an LEDSet; both acknowledged. */
    {
        static uint8_t led[4 + 3 * 64];
        static const uint8_t set[] = {255, 0, 0, 25, 1, 3, 0, 2, 0};
        led[2] = 64;
        for (i = 0; i < 3 * 64; i++) {
            led[4 + i] = (uint8_t)(i + 1);
        }
        ws_nbits = ws_bad_pulse = ws_bad_period = 0;
        rise = 0;
        send_msg(TABLA_T_LED_FRAME, 1, led, sizeof led);
        run_ms(40);
        collect();
        k = find(TABLA_T_ACK);
        check(k >= 0 && tabla_get_u16(frames[k].body + 3) == 1 &&
                  frames[k].body[5] == TABLA_T_LED_FRAME,
              "LEDFrame of 64 LEDs acknowledged");
        /* The strip saw exactly the colours, in G, R, B order, MSB first,
         * with 375/750 ns pulses in 1.25 us bit cells. */
        {
            int ok = ws_nbits == 64 * 24 && ws_bad_pulse == 0 && ws_bad_period == 0, bit;
            for (bit = 0; ok && bit < 64 * 24; bit++) {
                int led_i = bit / 24, byte_i = (bit % 24) / 8, shift = 7 - bit % 8;
                static const int order[3] = {1, 0, 2}; /* G, R, B */
                uint8_t want = led[4 + 3 * led_i + order[byte_i]];
                ok = ws_bits[bit] == ((want >> shift) & 1);
            }
            check(ok, "WS2812 waveform: %d bits, %d bad pulses, %d bad bit cells", ws_nbits,
                  ws_bad_pulse, ws_bad_period);
        }
        send_msg(TABLA_T_LED_SET, 2, set, sizeof set);
        run_ms(20);
        collect();
        k = find(TABLA_T_ACK);
        check(k >= 0 && tabla_get_u16(frames[k].body + 3) == 2, "LEDSet acknowledged");
    }

    /* The roll button: a d6 roll. */
    roll_pressed = 1;
    set_buttons();
    run_ms(60);
    roll_pressed = 0;
    set_buttons();
    run_ms(60);
    collect();
    k = find(TABLA_T_ROLL);
    check(k >= 0 && frames[k].body[7] == TABLA_DIE_D6 && frames[k].body[8] >= 1 &&
              frames[k].body[8] <= 6,
          "Roll of the d6: %d", k >= 0 ? frames[k].body[8] : -1);

    /* A corrupted host frame: Error bad-frame, CRC. */
    {
        uint8_t body[8];
        tabla_writer_t w;
        uint16_t n;
        tabla_body_begin(&w, body, sizeof body, TABLA_T_SNAPSHOT_REQUEST, 3);
        n = tabla_body_end(&w);
        body[2] ^= 0x40;
        send(body, n);
    }
    run_ms(20);
    collect();
    k = find(TABLA_T_ERROR);
    check(k >= 0 && frames[k].body[3] == TABLA_E_BAD_FRAME &&
              tabla_get_u16(frames[k].body + 7) == TABLA_BAD_CRC,
          "corrupted frame: Error bad-frame (CRC)");

    /* Heartbeat with the measured scan rate. */
    run_ms(1100);
    collect();
    k = find(TABLA_T_HEARTBEAT);
    check(k >= 0 && tabla_get_u16(frames[k].body + 7) >= 90 &&
              tabla_get_u16(frames[k].body + 7) <= 101 &&
              tabla_get_u16(frames[k].body + 9) == 1,
          "Heartbeat: scan rate %u Hz, %u rx errors",
          k >= 0 ? tabla_get_u16(frames[k].body + 7) : 0,
          k >= 0 ? tabla_get_u16(frames[k].body + 9) : 0);

    check(bad_frames == 0, "every board frame passed COBS and CRC (%d bad)", bad_frames);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
