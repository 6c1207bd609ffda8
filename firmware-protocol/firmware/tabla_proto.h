/*
 * tabla sensor-board protocol 1.0: framing (COBS + CRC-16/CCITT-FALSE) and
 * message encoding for the board side. See ../PROTOCOL.md.
 *
 * Portable C99, no malloc, fixed buffers owned by the caller. All integers
 * on the wire are little-endian.
 */
#ifndef TABLA_PROTO_H
#define TABLA_PROTO_H

/* The Arduino IDE has no -include: the sketch's generated tabla_board.h
 * (../arduino/tabla) comes in here, before anything uses it. */
#if defined(ARDUINO) && !defined(TABLA_BOARD_H)
#include "tabla_board.h"
#endif

#include <stddef.h>
#include <stdint.h>

#define TABLA_VERSION_MAJOR 1u
#define TABLA_VERSION_MINOR 0u

/* Frame limits (section 2.1). */
#define TABLA_HEADER_LEN 3u
#define TABLA_CRC_LEN 2u
#define TABLA_MIN_BODY 5u
#define TABLA_MAX_BODY 4096u
#define TABLA_MAX_ENCODED 4113u /* MAX_BODY + ceil(MAX_BODY / 254) */
#define TABLA_MAX_STRING 64u
#define TABLA_PROTO_MAX_CELLS 2048u
#define TABLA_PROTO_MAX_LEDS 4096u

/* Message types (section 4.1). */
enum {
    TABLA_T_HELLO = 0x01,
    TABLA_T_SNAPSHOT = 0x02,
    TABLA_T_CELL_CHANGE = 0x03,
    TABLA_T_ROLL = 0x04,
    TABLA_T_BUTTON = 0x05,
    TABLA_T_HEARTBEAT = 0x06,
    TABLA_T_ERROR = 0x07,
    TABLA_T_ACK = 0x20,
    TABLA_T_HELLO_REQUEST = 0x40,
    TABLA_T_SNAPSHOT_REQUEST = 0x41,
    TABLA_T_CONFIG = 0x42,
    TABLA_T_LED_FRAME = 0x43,
    TABLA_T_LED_SET = 0x44
};

/* Hello abilities. */
enum {
    TABLA_AB_IDENTIFY = 1u << 0,
    TABLA_AB_D6 = 1u << 1,
    TABLA_AB_NSEW = 1u << 2,
    TABLA_AB_BUTTONS = 1u << 3
};

/* Buttons: Hello.buttons has bit (id - 1). */
enum {
    TABLA_BTN_ROLL = 1,
    TABLA_BTN_TAKEBACK = 2,
    TABLA_BTN_HINT = 3,
    TABLA_BTN_CONFIRM = 4,
    TABLA_BTN_NEW = 5
};

enum { TABLA_DIE_D6 = 1, TABLA_DIE_NSEW = 2 };

enum {
    TABLA_REASON_CONNECT = 0,
    TABLA_REASON_REQUEST = 1,
    TABLA_REASON_PERIODIC = 2,
    TABLA_REASON_RESYNC = 3
};

/* Error codes and bad-frame details. */
enum {
    TABLA_E_BAD_FRAME = 1,
    TABLA_E_UNKNOWN_TYPE = 2,
    TABLA_E_BAD_PAYLOAD = 3,
    TABLA_E_OUT_OF_RANGE = 4,
    TABLA_E_OVERFLOW = 5,
    TABLA_E_HARDWARE = 6
};
enum {
    TABLA_BAD_COBS = 1,
    TABLA_BAD_CRC = 2,
    TABLA_BAD_TOO_LONG = 3,
    TABLA_BAD_TOO_SHORT = 4
};

/* ---- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), check 0x29B1 ---- */

#define TABLA_CRC_INIT 0xFFFFu
uint16_t tabla_crc16_update(uint16_t crc, uint8_t byte);
uint16_t tabla_crc16(const uint8_t *p, size_t n);

/* ---- Little-endian helpers ---- */

static inline uint16_t tabla_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

static inline uint32_t tabla_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

/* ---- Body writer: builds type, seq, payload and CRC in a fixed buffer ---- */

typedef struct {
    uint8_t *buf;
    uint16_t cap;
    uint16_t len;
    uint8_t overflow; /* set when a put did not fit; the body is unusable */
} tabla_writer_t;

void tabla_body_begin(tabla_writer_t *w, uint8_t *buf, uint16_t cap, uint8_t type,
                      uint16_t seq);
void tabla_put_u8(tabla_writer_t *w, uint8_t v);
void tabla_put_u16(tabla_writer_t *w, uint16_t v);
void tabla_put_u32(tabla_writer_t *w, uint32_t v);
void tabla_put_bytes(tabla_writer_t *w, const uint8_t *p, uint16_t n);
/* Length-prefixed string, at most TABLA_MAX_STRING bytes (longer ones are cut). */
void tabla_put_string(tabla_writer_t *w, const char *s);
/* Appends the CRC; returns the body length, or 0 if the body overflowed. */
uint16_t tabla_body_end(tabla_writer_t *w);

/* ---- COBS frame output ---- */

typedef void (*tabla_put_fn)(void *ctx, uint8_t byte);

/*
 * Writes the frame of a finished body (COBS encoding, then 0x00) through
 * put, byte by byte: suitable for a blocking UART write. Canonical COBS:
 * no empty group after a final run of 254 bytes. Returns the frame length.
 */
uint16_t tabla_frame_emit(const uint8_t *body, uint16_t len, tabla_put_fn put, void *ctx);

/* Same into a buffer; returns the frame length, or 0 if cap is too small. */
uint16_t tabla_frame_encode(const uint8_t *body, uint16_t len, uint8_t *out, uint16_t cap);

/* Largest frame of a body of len bytes: len + ceil(len / 254) + 1 delimiter. */
#define TABLA_FRAME_MAX(len) ((len) + ((len) + 253u) / 254u + 1u)

/* ---- Streaming frame receiver ---- */

/*
 * Feed it one byte at a time (from a UART ISR or the main loop). It decodes
 * COBS straight into buf, so it needs no second buffer. When it returns
 * TABLA_RX_FRAME, buf[0..len) holds a body with a good CRC (CRC included)
 * until the next call. After any error it resynchronises at the next 0x00.
 */
enum {
    TABLA_RX_NONE = 0,
    TABLA_RX_FRAME = 1,
    TABLA_RX_ERR_COBS = -1,
    TABLA_RX_ERR_CRC = -2,
    TABLA_RX_ERR_TOO_LONG = -3,
    TABLA_RX_ERR_TOO_SHORT = -4
};

typedef struct {
    uint8_t *buf;
    uint16_t cap;
    uint16_t len;     /* decoded bytes so far */
    uint16_t encoded; /* encoded bytes since the last delimiter */
    uint8_t remain;   /* bytes left in the current COBS group */
    uint8_t code;     /* code byte of the current group, 0 before the first */
    uint8_t bad;      /* 0, or the TABLA_RX_ERR_* to report at the delimiter */
} tabla_rx_t;

void tabla_rx_init(tabla_rx_t *rx, uint8_t *buf, uint16_t cap);
int tabla_rx_feed(tabla_rx_t *rx, uint8_t byte);

/* ---- Host → board messages ---- */

enum {
    TABLA_PARSE_OK = 0,
    TABLA_PARSE_UNKNOWN = 1,   /* unknown or board→host type */
    TABLA_PARSE_TRUNCATED = 2, /* payload shorter than its fields */
    TABLA_PARSE_INVALID = 3    /* a forbidden field value */
};

typedef struct {
    uint16_t scan_hz;
    uint8_t debounce;
    uint16_t heartbeat_ms;
    uint32_t snapshot_ms;
    uint8_t brightness;
} tabla_config_t;

typedef struct {
    uint8_t type;
    uint16_t seq;
    union {
        struct {
            uint8_t major, minor;
        } hello_request;
        struct {
            uint16_t refseq;
            uint8_t reftype;
        } ack;
        tabla_config_t config;
        struct {
            uint16_t start, count;
            const uint8_t *rgb; /* count * 3 bytes, inside the body */
        } led_frame;
        struct {
            uint8_t r, g, b, blink, count;
            const uint8_t *ranges; /* count * 4 bytes (start u16, count u16) */
        } led_set;
    } u;
} tabla_host_msg_t;

/* Parses a body received by tabla_rx_feed (CRC already checked). Unknown
 * trailing payload bytes are ignored. */
int tabla_parse_host(const uint8_t *body, uint16_t len, tabla_host_msg_t *m);

/* ---- Board → host message bodies (section 6) ---- */

typedef struct {
    uint8_t major, minor; /* TABLA_VERSION_MAJOR, TABLA_VERSION_MINOR */
    uint16_t abilities;
    uint8_t buttons;
    uint16_t cells, leds, maxrx;
    const char *vendor, *model, *serial, *firmware;
} tabla_hello_t;

typedef struct {
    uint16_t cell;
    uint8_t code;
} tabla_change_t;

/* Each returns the body length, or 0 if buf is too small. */
uint16_t tabla_build_hello(uint8_t *buf, uint16_t cap, uint16_t seq, const tabla_hello_t *h);
uint16_t tabla_build_snapshot(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                              uint8_t reason, const uint8_t *cells, uint16_t n);
uint16_t tabla_build_cell_change(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                                 const tabla_change_t *ch, uint8_t n);
uint16_t tabla_build_roll(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time, uint8_t die,
                          uint8_t value);
uint16_t tabla_build_button(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                            uint8_t button);
uint16_t tabla_build_heartbeat(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                               uint16_t scan_rate, uint16_t rx_errors);
uint16_t tabla_build_error(uint8_t *buf, uint16_t cap, uint16_t seq, uint8_t code,
                           uint16_t refseq, uint8_t reftype, uint16_t detail, const char *text);
uint16_t tabla_build_ack(uint8_t *buf, uint16_t cap, uint16_t seq, uint16_t refseq,
                         uint8_t reftype);

/* Body length of a snapshot of n cells of which occupied are occupied;
 * codes is nonzero if any occupied cell is not 255. */
#define TABLA_SNAPSHOT_LEN(n, occupied, codes)                                                 \
    (TABLA_MIN_BODY + 8u + ((n) + 7u) / 8u + ((codes) ? (occupied) : 0u))

#endif /* TABLA_PROTO_H */
