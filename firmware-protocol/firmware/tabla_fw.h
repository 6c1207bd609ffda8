/*
 * tabla reference board firmware: sensor scanning with debounce, change
 * events with sequence numbers, heartbeat, snapshots, LED frames, the
 * electronic die, and the host command loop. Portable C99 over hal.h.
 *
 * Compile-time limits (RAM scales with them):
 *   TABLA_MAX_CELLS  sensor cells (default 1024; the AVR build uses 64)
 *   TABLA_MAX_LEDS   LEDs (default TABLA_MAX_CELLS)
 *   TABLA_RX_MAX     largest host frame body accepted, sent as Hello.maxrx
 *                    (default 3 * TABLA_MAX_LEDS + 28, at most 4096)
 *   TABLA_TX_MAX     transmit body buffer (default: a snapshot of
 *                    TABLA_MAX_CELLS identified pieces, at least 128)
 */
#ifndef TABLA_FW_H
#define TABLA_FW_H

#include <stdint.h>

#include "tabla_proto.h"

#ifndef TABLA_MAX_CELLS
#define TABLA_MAX_CELLS 1024u
#endif
#ifndef TABLA_MAX_LEDS
#define TABLA_MAX_LEDS TABLA_MAX_CELLS
#endif
#ifndef TABLA_RX_MAX
#if 3u * TABLA_MAX_LEDS + 28u > TABLA_MAX_BODY
#define TABLA_RX_MAX TABLA_MAX_BODY
#else
#define TABLA_RX_MAX (3u * TABLA_MAX_LEDS + 28u)
#endif
#endif
#ifndef TABLA_TX_MAX
#if TABLA_SNAPSHOT_LEN(TABLA_MAX_CELLS, TABLA_MAX_CELLS, 1u) < 128u
#define TABLA_TX_MAX 128u
#else
#define TABLA_TX_MAX TABLA_SNAPSHOT_LEN(TABLA_MAX_CELLS, TABLA_MAX_CELLS, 1u)
#endif
#endif

#if TABLA_MAX_CELLS > TABLA_PROTO_MAX_CELLS || TABLA_MAX_LEDS > TABLA_PROTO_MAX_LEDS
#error "TABLA_MAX_CELLS or TABLA_MAX_LEDS beyond the protocol's limits"
#endif
#if TABLA_RX_MAX < 64u || TABLA_RX_MAX > TABLA_MAX_BODY
#error "TABLA_RX_MAX must be 64..4096"
#endif

/* Changes per CellChange frame: what fits the transmit buffer. */
#define TABLA_CHANGE_BATCH                                                                    \
    ((TABLA_TX_MAX - TABLA_MIN_BODY - 5u) / 3u > 255u ? 255u                                  \
                                                      : (TABLA_TX_MAX - TABLA_MIN_BODY - 5u) / 3u)

/* Protocol timings (PROTOCOL.md sections 5 and 6.11). */
#define TABLA_HELLO_INTERVAL_MS 1000u
#define TABLA_MAX_SCAN_HZ 1000u
#define TABLA_MIN_HEARTBEAT_MS 100u
#define TABLA_MIN_SNAPSHOT_MS 1000u
#define TABLA_BLINK_UNIT_MS 20u

typedef struct {
    uint8_t r, g, b;
    uint8_t blink; /* full period in 20 ms units, 0 steady */
} tabla_led_t;

typedef struct {
    tabla_config_t cfg;
    uint8_t running; /* handshake done: events, heartbeats and snapshots flow */
    uint16_t seq;    /* number of the next frame sent */

    uint32_t last_scan, last_heartbeat, last_snapshot, last_hello;
    uint32_t rate_start;
    uint16_t scans, scan_rate;
    uint16_t rx_errors;

    /* Debounce: the reported code, the candidate and how many scans in a
     * row have read it. */
    uint8_t stable[TABLA_MAX_CELLS];
    uint8_t cand[TABLA_MAX_CELLS];
    uint8_t count[TABLA_MAX_CELLS];
    uint8_t btn_stable, btn_cand, btn_count;

    tabla_led_t leds[TABLA_MAX_LEDS];
    uint16_t led_signature; /* what is lit now, to re-drive only on change */

    tabla_rx_t rx;
    uint8_t rx_buf[TABLA_RX_MAX];
    uint8_t tx_buf[TABLA_TX_MAX];
} tabla_fw_t;

/* Resets the board state (default Config), takes the current sensor
 * readings as the reported state, and sends the first Hello. Call
 * hal_init first. */
void tabla_fw_init(tabla_fw_t *fw);

/* One pass of the main loop: receive and handle host frames, scan when
 * due, send heartbeats, snapshots and Hellos when due, refresh blinking
 * LEDs. Call it as often as possible. */
void tabla_fw_poll(tabla_fw_t *fw);

/* Handles one received byte (tabla_fw_poll calls it for each byte). */
void tabla_fw_rx_byte(tabla_fw_t *fw, uint8_t byte, uint32_t now);

/* A uniformly distributed number in [0, n), n >= 1, from hal_random. */
uint32_t tabla_random_below(uint32_t n);

#endif /* TABLA_FW_H */
