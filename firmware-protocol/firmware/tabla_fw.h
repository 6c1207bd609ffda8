/*
 * tabla reference board firmware: sensor scanning with debounce, change
 * events with sequence numbers, heartbeat, snapshots, LED frames, the
 * electronic die, and the host command loop. Portable C99 over hal.h.
 *
 * Compile-time limits (RAM scales with them):
 *   TABLA_MAX_CELLS  sensor cells (default 1024; the AVR build uses 64)
 *   TABLA_MAX_LEDS   LEDs (default TABLA_MAX_CELLS)
 *   TABLA_RX_MAX     largest host frame body accepted, sent as Hello.maxrx
 *                    (default 3 * TABLA_MAX_LEDS + 28, at most TABLA_RX_CAP,
 *                    itself at most 4096)
 *   TABLA_TX_MAX     transmit body buffer (default: a snapshot of
 *                    TABLA_MAX_CELLS identified pieces, at least 128)
 *
 * Storage (packed arrays; see README.md for what each costs):
 *   TABLA_CODE_BITS  bits kept per cell reading: 1, 2, 4 or 8 (default 8).
 *                    With 8 a reading is the wire code itself (0 empty,
 *                    1..254 a piece, 255 unidentified). With fewer it is a
 *                    sensor value: 0 empty, 1..TABLA_CODE_COUNT the wire
 *                    codes listed in TABLA_CODE_TABLE (e.g. {1, 2, 3}), any
 *                    other value an unidentified piece (wire code 255).
 *   TABLA_LED_BITS   bits of palette index per LED: 4 or 8 (default 8)
 *   TABLA_PALETTE    palette entries (colour + blink), 2..2^TABLA_LED_BITS
 *                    (default 2^TABLA_LED_BITS); entry 0 is "off". A frame
 *                    with more distinct lit colours than the palette holds
 *                    shows the extra ones as the nearest colour in it.
 *   TABLA_LED_DEFER_MS  default of tabla_fw_t.led_defer_ms (0): see there.
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
#ifndef TABLA_CODE_BITS
#define TABLA_CODE_BITS 8u
#endif
#ifndef TABLA_CODE_COUNT
#define TABLA_CODE_COUNT 0u
#endif
#ifndef TABLA_LED_BITS
#define TABLA_LED_BITS 8u
#endif
#ifndef TABLA_PALETTE
#define TABLA_PALETTE (1u << TABLA_LED_BITS)
#endif
#ifndef TABLA_LED_DEFER_MS
#define TABLA_LED_DEFER_MS 0u
#endif
#ifndef TABLA_RX_CAP
#define TABLA_RX_CAP TABLA_MAX_BODY
#endif
#ifndef TABLA_RX_MAX
#if 3u * TABLA_MAX_LEDS + 28u > TABLA_RX_CAP
#define TABLA_RX_MAX TABLA_RX_CAP
#else
#define TABLA_RX_MAX (3u * TABLA_MAX_LEDS + 28u)
#endif
#endif
#ifndef TABLA_TX_MAX
#if TABLA_CODE_BITS == 1u
#define TABLA_TX_SNAPSHOT TABLA_SNAPSHOT_LEN(TABLA_MAX_CELLS, 0u, 0u)
#else
#define TABLA_TX_SNAPSHOT TABLA_SNAPSHOT_LEN(TABLA_MAX_CELLS, TABLA_MAX_CELLS, 1u)
#endif
#if TABLA_TX_SNAPSHOT < 128u
#define TABLA_TX_MAX 128u
#else
#define TABLA_TX_MAX TABLA_TX_SNAPSHOT
#endif
#endif

#if TABLA_MAX_CELLS > TABLA_PROTO_MAX_CELLS || TABLA_MAX_LEDS > TABLA_PROTO_MAX_LEDS
#error "TABLA_MAX_CELLS or TABLA_MAX_LEDS beyond the protocol's limits"
#endif
#if TABLA_RX_MAX < 64u || TABLA_RX_MAX > TABLA_MAX_BODY
#error "TABLA_RX_MAX must be 64..4096"
#endif
#if TABLA_CODE_BITS != 1u && TABLA_CODE_BITS != 2u && TABLA_CODE_BITS != 4u && TABLA_CODE_BITS != 8u
#error "TABLA_CODE_BITS must be 1, 2, 4 or 8"
#endif
#if TABLA_CODE_BITS < 8u && TABLA_CODE_COUNT >= (1u << TABLA_CODE_BITS)
#error "TABLA_CODE_COUNT codes do not fit TABLA_CODE_BITS bits (value 0 is empty)"
#endif
#if TABLA_CODE_BITS < 8u && TABLA_CODE_COUNT > 0u && !defined(TABLA_CODE_TABLE)
#error "TABLA_CODE_COUNT needs TABLA_CODE_TABLE, e.g. {1, 2, 3}"
#endif
#if TABLA_LED_BITS != 4u && TABLA_LED_BITS != 8u
#error "TABLA_LED_BITS must be 4 or 8"
#endif
#if TABLA_PALETTE < 2u || TABLA_PALETTE > (1u << TABLA_LED_BITS)
#error "TABLA_PALETTE must be 2..2^TABLA_LED_BITS"
#endif

/* Bytes of a packed array of n fields of b bits. */
#define TABLA_PACKED(n, b) (((uint32_t)(n) * (b) + 7u) / 8u)

/* Debounce counters: 4 bits (debounce at most 15) unless readings are
 * whole codes, then 8 (at most 255). Config asks beyond it are clamped. */
#if TABLA_CODE_BITS == 8u
#define TABLA_COUNT_BITS 8u
#else
#define TABLA_COUNT_BITS 4u
#endif
#define TABLA_MAX_DEBOUNCE ((1u << TABLA_COUNT_BITS) - 1u)

/* Commands whose Ack can wait for a deferred LED refresh: enough for the
 * burst a host sends on connecting (Config, a whole frame in parts, LEDSets);
 * a fuller queue drives the strip at once. */
#ifndef TABLA_ACK_QUEUE
#if TABLA_LED_DEFER_MS > 0
#define TABLA_ACK_QUEUE 16u
#else
#define TABLA_ACK_QUEUE 1u
#endif
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

#if TABLA_MAX_LEDS < 256u
typedef uint8_t tabla_led_refs_t;
#else
typedef uint16_t tabla_led_refs_t;
#endif

typedef struct {
    tabla_config_t cfg;
    uint8_t running; /* handshake done: events, heartbeats and snapshots flow */
    uint16_t seq;    /* number of the next frame sent */

    uint32_t last_scan, last_heartbeat, last_snapshot, last_hello;
    uint32_t rate_start;
    uint16_t scans, scan_rate;
    uint16_t rx_errors;

    /* Debounce, packed: the reported reading, the candidate and how many
     * scans in a row have read it (tabla_fw_reading gets a cell's). */
    uint8_t stable[TABLA_PACKED(TABLA_MAX_CELLS, TABLA_CODE_BITS)];
    uint8_t cand[TABLA_PACKED(TABLA_MAX_CELLS, TABLA_CODE_BITS)];
    uint8_t count[TABLA_PACKED(TABLA_MAX_CELLS, TABLA_COUNT_BITS)];
    uint16_t pending; /* cells whose count is not 0 */
    uint8_t btn_stable, btn_cand, btn_count;

    /* LEDs: a palette index per LED (packed), the palette (colour and
     * blink; entry 0 is off), how many LEDs use each entry, and the
     * colours last shown per entry (brightness and blink phase applied).
     * tabla_fw_led gets an LED's colour. */
    uint8_t led[TABLA_PACKED(TABLA_MAX_LEDS, TABLA_LED_BITS)];
    tabla_led_t palette[TABLA_PALETTE];
    tabla_led_refs_t refs[TABLA_PALETTE];
    uint8_t shown[TABLA_PALETTE][3];
    uint16_t led_signature; /* what is lit now, to re-drive only on change */

    /* Deferred LED refresh: with led_defer_ms > 0, LED commands are applied
     * at once but the strip is driven (and the commands acknowledged) only
     * once no byte has arrived for led_defer_ms, so that a burst of partial
     * frames costs one refresh and no byte arrives while the strip driver
     * blocks interrupts. 0: drive and acknowledge each command at once. */
    uint16_t led_defer_ms;
    uint8_t render_due, acks;
    uint32_t last_rx;
    struct {
        uint16_t seq;
        uint8_t type;
    } ack_queue[TABLA_ACK_QUEUE];

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

/* The reported reading of a cell as a wire code (0 empty, 1..254 a piece,
 * 255 unidentified). */
uint8_t tabla_fw_reading(const tabla_fw_t *fw, uint16_t cell);

/* The colour and blink the host set for an LED. */
tabla_led_t tabla_fw_led(const tabla_fw_t *fw, uint16_t led);

/* The wire code of a sensor value (see TABLA_CODE_BITS). */
uint8_t tabla_code_of(uint8_t value);

/* A uniformly distributed number in [0, n), n >= 1, from hal_random. */
uint32_t tabla_random_below(uint32_t n);

#endif /* TABLA_FW_H */
