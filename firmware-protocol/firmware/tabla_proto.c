/* tabla sensor-board protocol 1.0: framing and messages. See tabla_proto.h. */
#include "tabla_proto.h"

#include <string.h>

#ifdef __AVR__
#include <util/crc16.h>
#endif

/* ---- CRC ---- */

uint16_t tabla_crc16_update(uint16_t crc, uint8_t byte)
{
#ifdef __AVR__
    /* avr-libc's XMODEM CRC is CRC-16/CCITT-FALSE when seeded with 0xFFFF. */
    return _crc_xmodem_update(crc, byte);
#else
    uint8_t i;
    crc ^= (uint16_t)((uint16_t)byte << 8);
    for (i = 0; i < 8; i++) {
        if (crc & 0x8000u) {
            crc = (uint16_t)((crc << 1) ^ 0x1021u);
        } else {
            crc = (uint16_t)(crc << 1);
        }
    }
    return crc;
#endif
}

uint16_t tabla_crc16(const uint8_t *p, size_t n)
{
    uint16_t crc = TABLA_CRC_INIT;
    while (n--) {
        crc = tabla_crc16_update(crc, *p++);
    }
    return crc;
}

/* ---- Body writer ---- */

void tabla_body_begin(tabla_writer_t *w, uint8_t *buf, uint16_t cap, uint8_t type, uint16_t seq)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->overflow = 0;
    tabla_put_u8(w, type);
    tabla_put_u16(w, seq);
}

void tabla_put_u8(tabla_writer_t *w, uint8_t v)
{
    if (w->len >= w->cap) {
        w->overflow = 1;
        return;
    }
    w->buf[w->len++] = v;
}

void tabla_put_u16(tabla_writer_t *w, uint16_t v)
{
    tabla_put_u8(w, (uint8_t)v);
    tabla_put_u8(w, (uint8_t)(v >> 8));
}

void tabla_put_u32(tabla_writer_t *w, uint32_t v)
{
    tabla_put_u16(w, (uint16_t)v);
    tabla_put_u16(w, (uint16_t)(v >> 16));
}

void tabla_put_bytes(tabla_writer_t *w, const uint8_t *p, uint16_t n)
{
    while (n--) {
        tabla_put_u8(w, *p++);
    }
}

void tabla_put_string(tabla_writer_t *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > TABLA_MAX_STRING) {
        n = TABLA_MAX_STRING;
    }
    tabla_put_u8(w, (uint8_t)n);
    tabla_put_bytes(w, (const uint8_t *)s, (uint16_t)n);
}

uint16_t tabla_body_end(tabla_writer_t *w)
{
    uint16_t crc = tabla_crc16(w->buf, w->overflow ? 0 : w->len);
    tabla_put_u16(w, crc);
    if (w->overflow || w->len > TABLA_MAX_BODY) {
        return 0;
    }
    return w->len;
}

/* ---- COBS output ---- */

uint16_t tabla_frame_emit(const uint8_t *body, uint16_t len, tabla_put_fn put, void *ctx)
{
    uint16_t i = 0, out = 0;
    for (;;) {
        /* One group: up to 254 non-zero bytes, then a zero or the end. */
        uint16_t k = 0, j;
        while (k < 254u && i + k < len && body[i + k] != 0) {
            k++;
        }
        put(ctx, (uint8_t)(k + 1));
        for (j = 0; j < k; j++) {
            put(ctx, body[i + j]);
        }
        out = (uint16_t)(out + k + 1);
        i = (uint16_t)(i + k);
        if (i == len) {
            break; /* end of body: the group needs no zero */
        }
        if (k == 254u) {
            continue; /* a full group stands for no zero */
        }
        i++; /* skip the zero this group stands for */
        if (i == len) {
            put(ctx, 1); /* the body ended in 0x00: an empty final group */
            out++;
            break;
        }
    }
    put(ctx, 0);
    return (uint16_t)(out + 1);
}

typedef struct {
    uint8_t *out;
    uint16_t cap, len;
    uint8_t overflow;
} tabla_buf_sink_t;

static void buf_put(void *ctx, uint8_t b)
{
    tabla_buf_sink_t *s = (tabla_buf_sink_t *)ctx;
    if (s->len >= s->cap) {
        s->overflow = 1;
        return;
    }
    s->out[s->len++] = b;
}

uint16_t tabla_frame_encode(const uint8_t *body, uint16_t len, uint8_t *out, uint16_t cap)
{
    tabla_buf_sink_t s;
    s.out = out;
    s.cap = cap;
    s.len = 0;
    s.overflow = 0;
    tabla_frame_emit(body, len, buf_put, &s);
    return s.overflow ? 0 : s.len;
}

/* ---- Streaming receiver ---- */

static void rx_reset(tabla_rx_t *rx)
{
    rx->len = 0;
    rx->encoded = 0;
    rx->remain = 0;
    rx->code = 0;
    rx->bad = 0;
}

void tabla_rx_init(tabla_rx_t *rx, uint8_t *buf, uint16_t cap)
{
    rx->buf = buf;
    rx->cap = cap;
    rx_reset(rx);
}

static void rx_store(tabla_rx_t *rx, uint8_t b)
{
    if (rx->len >= rx->cap) {
        rx->bad = (uint8_t)-TABLA_RX_ERR_TOO_LONG;
        return;
    }
    rx->buf[rx->len++] = b;
}

int tabla_rx_feed(tabla_rx_t *rx, uint8_t byte)
{
    if (byte == 0) {
        int result;
        if (rx->encoded == 0) {
            return TABLA_RX_NONE; /* an empty frame: idle delimiter */
        }
        if (rx->bad) {
            result = -(int)rx->bad;
        } else if (rx->remain != 0) {
            result = TABLA_RX_ERR_COBS; /* the last group runs past the delimiter */
        } else if (rx->len < TABLA_MIN_BODY) {
            result = TABLA_RX_ERR_TOO_SHORT;
        } else if (tabla_crc16(rx->buf, (size_t)(rx->len - TABLA_CRC_LEN)) !=
                   tabla_get_u16(rx->buf + rx->len - TABLA_CRC_LEN)) {
            result = TABLA_RX_ERR_CRC;
        } else {
            result = TABLA_RX_FRAME;
        }
        {
            uint16_t len = rx->len;
            rx_reset(rx);
            rx->len = len; /* keep the body readable until the next byte */
        }
        return result;
    }
    if (rx->encoded == 0) {
        rx->len = 0; /* the previous body is gone now */
    }
    if (rx->encoded < 0xFFFFu) {
        rx->encoded++;
    }
    if (rx->encoded > TABLA_MAX_ENCODED) {
        rx->bad = (uint8_t)-TABLA_RX_ERR_TOO_LONG;
    }
    if (rx->bad) {
        return TABLA_RX_NONE; /* drop the rest of this frame */
    }
    if (rx->remain == 0) {
        /* A code byte. The group before it, unless full, stood for a zero. */
        if (rx->code != 0 && rx->code != 0xFF) {
            rx_store(rx, 0);
        }
        rx->code = byte;
        rx->remain = (uint8_t)(byte - 1);
    } else {
        rx_store(rx, byte);
        rx->remain--;
    }
    return TABLA_RX_NONE;
}

/* ---- Host messages ---- */

int tabla_parse_host(const uint8_t *body, uint16_t len, tabla_host_msg_t *m)
{
    const uint8_t *p = body + TABLA_HEADER_LEN;
    uint16_t n;
    if (len < TABLA_MIN_BODY) {
        return TABLA_PARSE_TRUNCATED;
    }
    n = (uint16_t)(len - TABLA_MIN_BODY);
    m->type = body[0];
    m->seq = tabla_get_u16(body + 1);
    switch (m->type) {
    case TABLA_T_HELLO_REQUEST:
        if (n < 2) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.hello_request.major = p[0];
        m->u.hello_request.minor = p[1];
        return TABLA_PARSE_OK;
    case TABLA_T_SNAPSHOT_REQUEST:
        return TABLA_PARSE_OK;
    case TABLA_T_ACK:
        if (n < 3) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.ack.refseq = tabla_get_u16(p);
        m->u.ack.reftype = p[2];
        return m->u.ack.reftype == 0 ? TABLA_PARSE_INVALID : TABLA_PARSE_OK;
    case TABLA_T_CONFIG:
        if (n < 10) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.config.scan_hz = tabla_get_u16(p);
        m->u.config.debounce = p[2];
        m->u.config.heartbeat_ms = tabla_get_u16(p + 3);
        m->u.config.snapshot_ms = tabla_get_u32(p + 5);
        m->u.config.brightness = p[9];
        if (m->u.config.scan_hz == 0 || m->u.config.debounce == 0) {
            return TABLA_PARSE_INVALID;
        }
        return TABLA_PARSE_OK;
    case TABLA_T_LED_FRAME: {
        uint32_t count;
        if (n < 4) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.led_frame.start = tabla_get_u16(p);
        m->u.led_frame.count = tabla_get_u16(p + 2);
        count = m->u.led_frame.count;
        if ((uint32_t)m->u.led_frame.start + count > TABLA_PROTO_MAX_LEDS) {
            return TABLA_PARSE_INVALID;
        }
        if ((uint32_t)n < 4u + 3u * count) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.led_frame.rgb = p + 4;
        return TABLA_PARSE_OK;
    }
    case TABLA_T_LED_SET: {
        uint16_t i;
        if (n < 5) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.led_set.r = p[0];
        m->u.led_set.g = p[1];
        m->u.led_set.b = p[2];
        m->u.led_set.blink = p[3];
        m->u.led_set.count = p[4];
        if ((uint32_t)n < 5u + 4u * (uint32_t)m->u.led_set.count) {
            return TABLA_PARSE_TRUNCATED;
        }
        m->u.led_set.ranges = p + 5;
        for (i = 0; i < m->u.led_set.count; i++) {
            const uint8_t *r = m->u.led_set.ranges + 4u * i;
            if ((uint32_t)tabla_get_u16(r) + tabla_get_u16(r + 2) > TABLA_PROTO_MAX_LEDS) {
                return TABLA_PARSE_INVALID;
            }
        }
        return TABLA_PARSE_OK;
    }
    default:
        return TABLA_PARSE_UNKNOWN;
    }
}

/* ---- Board messages ---- */

uint16_t tabla_build_hello(uint8_t *buf, uint16_t cap, uint16_t seq, const tabla_hello_t *h)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_HELLO, seq);
    tabla_put_u8(&w, h->major);
    tabla_put_u8(&w, h->minor);
    tabla_put_u16(&w, h->abilities);
    tabla_put_u8(&w, h->buttons);
    tabla_put_u16(&w, h->cells);
    tabla_put_u16(&w, h->leds);
    tabla_put_u16(&w, h->maxrx);
    tabla_put_string(&w, h->vendor);
    tabla_put_string(&w, h->model);
    tabla_put_string(&w, h->serial);
    tabla_put_string(&w, h->firmware);
    return tabla_body_end(&w);
}

uint16_t tabla_build_snapshot(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                              uint8_t reason, const uint8_t *cells, uint16_t n)
{
    tabla_writer_t w;
    uint16_t i;
    uint8_t codes = 0, acc = 0;
    for (i = 0; i < n; i++) {
        if (cells[i] != 0 && cells[i] != 255) {
            codes = 1;
        }
    }
    tabla_body_begin(&w, buf, cap, TABLA_T_SNAPSHOT, seq);
    tabla_put_u32(&w, time);
    tabla_put_u8(&w, reason);
    tabla_put_u8(&w, codes);
    tabla_put_u16(&w, n);
    for (i = 0; i < n; i++) {
        if (cells[i] != 0) {
            acc = (uint8_t)(acc | (1u << (i & 7u)));
        }
        if ((i & 7u) == 7u) {
            tabla_put_u8(&w, acc);
            acc = 0;
        }
    }
    if (n & 7u) {
        tabla_put_u8(&w, acc);
    }
    if (codes) {
        for (i = 0; i < n; i++) {
            if (cells[i] != 0) {
                tabla_put_u8(&w, cells[i]);
            }
        }
    }
    return tabla_body_end(&w);
}

uint16_t tabla_build_cell_change(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                                 const tabla_change_t *ch, uint8_t n)
{
    tabla_writer_t w;
    uint8_t i;
    tabla_body_begin(&w, buf, cap, TABLA_T_CELL_CHANGE, seq);
    tabla_put_u32(&w, time);
    tabla_put_u8(&w, n);
    for (i = 0; i < n; i++) {
        tabla_put_u16(&w, ch[i].cell);
        tabla_put_u8(&w, ch[i].code);
    }
    return tabla_body_end(&w);
}

uint16_t tabla_build_roll(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time, uint8_t die,
                          uint8_t value)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_ROLL, seq);
    tabla_put_u32(&w, time);
    tabla_put_u8(&w, die);
    tabla_put_u8(&w, value);
    return tabla_body_end(&w);
}

uint16_t tabla_build_button(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                            uint8_t button)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_BUTTON, seq);
    tabla_put_u32(&w, time);
    tabla_put_u8(&w, button);
    return tabla_body_end(&w);
}

uint16_t tabla_build_heartbeat(uint8_t *buf, uint16_t cap, uint16_t seq, uint32_t time,
                               uint16_t scan_rate, uint16_t rx_errors)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_HEARTBEAT, seq);
    tabla_put_u32(&w, time);
    tabla_put_u16(&w, scan_rate);
    tabla_put_u16(&w, rx_errors);
    return tabla_body_end(&w);
}

uint16_t tabla_build_error(uint8_t *buf, uint16_t cap, uint16_t seq, uint8_t code,
                           uint16_t refseq, uint8_t reftype, uint16_t detail, const char *text)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_ERROR, seq);
    tabla_put_u8(&w, code);
    tabla_put_u16(&w, refseq);
    tabla_put_u8(&w, reftype);
    tabla_put_u16(&w, detail);
    tabla_put_string(&w, text);
    return tabla_body_end(&w);
}

uint16_t tabla_build_ack(uint8_t *buf, uint16_t cap, uint16_t seq, uint16_t refseq,
                         uint8_t reftype)
{
    tabla_writer_t w;
    tabla_body_begin(&w, buf, cap, TABLA_T_ACK, seq);
    tabla_put_u16(&w, refseq);
    tabla_put_u8(&w, reftype);
    return tabla_body_end(&w);
}
