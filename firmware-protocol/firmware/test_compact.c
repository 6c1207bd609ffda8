/*
 * Host unit tests of the firmware's compact storage, as the board-file
 * builds use it (hal_165.c): readings packed at TABLA_CODE_BITS per cell
 * and turned into wire codes through TABLA_CODE_TABLE, LEDs as 4-bit
 * palette indices with a palette smaller than the frame's colours, the
 * debounce counter's limit, and the deferred strip refresh.
 *
 * Built by `make host-test` with the flags in the Makefile (COMPACT_DEFS).
 * Prints "N passed, N failed".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hal_host.h"
#include "tabla_fw.h"
#include "tabla_proto.h"

#if TABLA_CODE_BITS != 4 || TABLA_LED_BITS != 4 || TABLA_PALETTE != 4 || TABLA_LED_DEFER_MS != 2
#error "build with the Makefile's COMPACT_DEFS"
#endif

static int checks_failed, tests_passed, tests_failed;
static const char *current;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    checks_failed++;
    printf("FAIL %s (test_compact.c:%d): ", current, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fail(__LINE__, __VA_ARGS__);                                                        \
        }                                                                                       \
    } while (0)

static void run(const char *name, void (*fn)(void))
{
    int before = checks_failed;
    current = name;
    fn();
    if (checks_failed == before) {
        tests_passed++;
        printf("ok   %s\n", name);
    } else {
        tests_failed++;
    }
}

/* ---- The board over hal_host ---- */

static tabla_fw_t fw;
static uint8_t out[64][TABLA_TX_MAX];
static uint16_t out_len[64];
static int nout;

static void collect(void)
{
    static uint8_t buf[TABLA_TX_MAX];
    tabla_rx_t rx;
    size_t i;
    tabla_rx_init(&rx, buf, sizeof buf);
    nout = 0;
    for (i = 0; i < hal_host_tx_len; i++) {
        int r = tabla_rx_feed(&rx, hal_host_tx[i]);
        if (r == TABLA_RX_FRAME && nout < 64) {
            memcpy(out[nout], buf, rx.len);
            out_len[nout++] = rx.len;
        }
        CHECK(r >= 0, "board sent a bad frame (%d)", r);
    }
    hal_host_tx_len = 0;
}

static int find(uint8_t type)
{
    int i;
    for (i = 0; i < nout; i++) {
        if (out[i][0] == type) {
            return i;
        }
    }
    return -1;
}

static int count(uint8_t type)
{
    int i, n = 0;
    for (i = 0; i < nout; i++) {
        n += out[i][0] == type;
    }
    return n;
}

static void host_send(uint8_t type, uint16_t seq, const uint8_t *payload, uint16_t n)
{
    static uint8_t body[TABLA_RX_MAX + 8], frame[2 * TABLA_RX_MAX + 16];
    tabla_writer_t w;
    uint16_t len;
    tabla_body_begin(&w, body, sizeof body, type, seq);
    tabla_put_bytes(&w, payload, n);
    len = tabla_body_end(&w);
    len = tabla_frame_encode(body, len, frame, sizeof frame);
    hal_host_receive(frame, len);
}

static void run_for(uint32_t ms)
{
    while (ms--) {
        hal_host_now++;
        tabla_fw_poll(&fw);
    }
}

static void boot_running(void)
{
    static const uint8_t ack[] = {0, 0, TABLA_T_HELLO};
    tabla_fw_init(&fw);
    host_send(TABLA_T_ACK, 0, ack, 3);
    run_for(5);
    collect();
}

/* ---- Tests ---- */

static void test_code_table(void)
{
    CHECK(tabla_code_of(0) == 0 && tabla_code_of(1) == 7 && tabla_code_of(2) == 8 &&
              tabla_code_of(3) == 9,
          "sensor values 0..3 -> %u %u %u %u", tabla_code_of(0), tabla_code_of(1),
          tabla_code_of(2), tabla_code_of(3));
    CHECK(tabla_code_of(4) == 255 && tabla_code_of(15) == 255, "values past the table: %u %u",
          tabla_code_of(4), tabla_code_of(15));
}

/* Every cell a different sensor value, in a packed array of 4-bit fields:
 * the Snapshot carries each one's code. */
static void test_packed_snapshot(void)
{
    int i, k, occupied = 0;
    const uint8_t *p;
    hal_host_reset();
    for (i = 0; i < 64; i++) {
        hal_host_cells[i] = (uint8_t)((i * 7 + 3) % 6); /* 0..5: empty, codes, unidentified */
    }
    boot_running();
    k = find(TABLA_T_SNAPSHOT);
    CHECK(k >= 0, "no Snapshot after the handshake");
    if (k < 0) {
        return;
    }
    p = out[k] + TABLA_HEADER_LEN;
    CHECK(p[5] == 1 && tabla_get_u16(p + 6) == 64, "flags %u, %u cells", p[5],
          tabla_get_u16(p + 6));
    for (i = 0; i < 64; i++) {
        uint8_t v = hal_host_cells[i];
        int present = (p[8 + i / 8] >> (i % 8)) & 1;
        CHECK(present == (v != 0), "cell %d presence %d, value %u", i, present, v);
        if (v != 0) {
            CHECK(p[16 + occupied] == tabla_code_of(v), "cell %d code %u, want %u", i,
                  p[16 + occupied], tabla_code_of(v));
            CHECK(tabla_fw_reading(&fw, (uint16_t)i) == tabla_code_of(v), "reading of cell %d", i);
            occupied++;
        }
    }
    CHECK(out_len[k] == TABLA_MIN_BODY + 8 + 8 + occupied, "snapshot of %u bytes", out_len[k]);
}

/* Neighbours in one byte change on their own: a CellChange each, with the
 * table's codes, and the other nibble of the byte unharmed. */
static void test_packed_changes(void)
{
    int k;
    hal_host_reset();
    hal_host_cells[20] = 1;
    boot_running();
    hal_host_cells[21] = 3;
    run_for(40);
    collect();
    k = find(TABLA_T_CELL_CHANGE);
    CHECK(k >= 0 && out[k][7] == 1 && tabla_get_u16(out[k] + 8) == 21 && out[k][10] == 9,
          "CellChange of cell 21 to code 9");
    CHECK(tabla_fw_reading(&fw, 20) == 7 && tabla_fw_reading(&fw, 21) == 9,
          "cells 20, 21 read %u %u", tabla_fw_reading(&fw, 20), tabla_fw_reading(&fw, 21));
    hal_host_cells[20] = 0;
    hal_host_cells[21] = 2;
    run_for(40);
    collect();
    k = find(TABLA_T_CELL_CHANGE);
    CHECK(k >= 0 && out[k][7] == 2 && out[k][10] == 0 && out[k][13] == 8,
          "one CellChange of both cells");
}

/* Debounce beyond the 4-bit counter is clamped; the clamped value works. */
static void test_debounce_clamp(void)
{
    static const uint8_t cfg[] = {100, 0, 200, 0xE8, 3, 0, 0, 0, 0, 255};
    int k;
    hal_host_reset();
    boot_running();
    host_send(TABLA_T_CONFIG, 1, cfg, sizeof cfg);
    run_for(5);
    collect();
    CHECK(fw.cfg.debounce == TABLA_MAX_DEBOUNCE && TABLA_MAX_DEBOUNCE == 15,
          "debounce %u, limit %u", fw.cfg.debounce, TABLA_MAX_DEBOUNCE);
    hal_host_cells[5] = 2;
    run_for(140); /* 14 scans */
    collect();
    CHECK(find(TABLA_T_CELL_CHANGE) < 0, "change after 14 scans");
    run_for(20);
    collect();
    k = find(TABLA_T_CELL_CHANGE);
    CHECK(k >= 0 && tabla_get_u16(out[k] + 8) == 5, "no change after 16 scans");
}

/* A palette of 4 (off and 3 colours): a frame of more colours shows the
 * extra ones as the nearest colour; colours no LED uses any more are
 * reused. */
static void test_palette(void)
{
    static uint8_t led[4 + 3 * 5] = {0, 0, 5, 0, 200, 0, 0, 0, 200, 0, 0, 0, 200, 190, 10, 0,
                                     0, 0, 0};
    static const uint8_t clear[] = {0, 0, 0, 0, 1, 0, 0, 64, 0};
    static const uint8_t set[] = {1, 2, 3, 0, 1, 10, 0, 2, 0};
    hal_host_reset();
    boot_running();
    host_send(TABLA_T_LED_FRAME, 1, led, sizeof led);
    run_for(5);
    collect();
    CHECK(count(TABLA_T_ACK) == 1, "frame acknowledged (%d Acks)", count(TABLA_T_ACK));
    CHECK(hal_host_leds[0][0] == 200 && hal_host_leds[1][1] == 200 && hal_host_leds[2][2] == 200,
          "the first three colours exact");
    CHECK(hal_host_leds[3][0] == 200 && hal_host_leds[3][1] == 0,
          "LED 3 (190, 10, 0) shows the nearest, red: %u %u %u", hal_host_leds[3][0],
          hal_host_leds[3][1], hal_host_leds[3][2]);
    CHECK(hal_host_leds[4][0] == 0 && hal_host_leds[4][1] == 0 && hal_host_leds[4][2] == 0,
          "LED 4 black is off");
    host_send(TABLA_T_LED_SET, 2, clear, sizeof clear);
    run_for(5);
    host_send(TABLA_T_LED_SET, 3, set, sizeof set);
    run_for(5);
    collect();
    CHECK(hal_host_leds[10][0] == 1 && hal_host_leds[11][2] == 3 && hal_host_leds[0][0] == 0,
          "after clearing, a new colour gets an entry: %u %u %u", hal_host_leds[10][0],
          hal_host_leds[10][1], hal_host_leds[10][2]);
    CHECK(tabla_fw_led(&fw, 11).b == 3 && fw.refs[1] + fw.refs[2] + fw.refs[3] == 2,
          "palette use counts");
}

/* LED commands in a burst: applied at once, the strip driven once after
 * the line is quiet for 2 ms, then every command acknowledged in order. */
static void test_deferred_refresh(void)
{
    static const uint8_t a[] = {0, 0, 1, 0, 9, 9, 9};
    static const uint8_t b[] = {1, 0, 1, 0, 8, 8, 8};
    unsigned shows;
    hal_host_reset();
    boot_running();
    shows = hal_host_shows;
    host_send(TABLA_T_LED_FRAME, 7, a, sizeof a);
    host_send(TABLA_T_LED_FRAME, 8, b, sizeof b);
    hal_host_now++;
    tabla_fw_poll(&fw);
    collect();
    CHECK(nout == 0 && hal_host_shows == shows, "acknowledged or driven before the line is quiet");
    CHECK(tabla_fw_led(&fw, 1).r == 8, "second frame not applied at once");
    run_for(2);
    collect();
    CHECK(hal_host_shows == shows + 1, "driven %u times, want once", hal_host_shows - shows);
    CHECK(nout == 2 && out[0][0] == TABLA_T_ACK && tabla_get_u16(out[0] + 3) == 7 &&
              tabla_get_u16(out[1] + 3) == 8,
          "two Acks in order (%d frames)", nout);
    CHECK(hal_host_leds[0][0] == 9 && hal_host_leds[1][0] == 8, "both frames shown");
}

int main(void)
{
    run("code table", test_code_table);
    run("packed snapshot", test_packed_snapshot);
    run("packed changes", test_packed_changes);
    run("debounce clamp", test_debounce_clamp);
    run("palette overflow and reuse", test_palette);
    run("deferred LED refresh", test_deferred_refresh);
    printf("%d passed, %d failed\n", tests_passed, tests_failed);
    return tests_failed ? 1 : 0;
}
