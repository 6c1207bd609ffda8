/* tabla reference board firmware. See tabla_fw.h and ../PROTOCOL.md. */
#include "tabla_fw.h"

#include <string.h>

#include "hal.h"

/* ---- Output ---- */

static void uart_put(void *ctx, uint8_t b)
{
    (void)ctx;
    hal_uart_write(b);
}

/* Sends a built body. Every frame the board meant to send takes a
 * sequence number, even one that could not be built, so that the host
 * sees the gap (PROTOCOL.md 4.2). */
static void send(tabla_fw_t *fw, uint16_t len)
{
    fw->seq++;
    if (len != 0) {
        tabla_frame_emit(fw->tx_buf, len, uart_put, 0);
    }
}

static void send_error(tabla_fw_t *fw, uint8_t code, uint16_t refseq, uint8_t reftype,
                       uint16_t detail)
{
    send(fw, tabla_build_error(fw->tx_buf, TABLA_TX_MAX, fw->seq, code, refseq, reftype, detail,
                               ""));
}

static void send_ack(tabla_fw_t *fw, uint16_t refseq, uint8_t reftype)
{
    send(fw, tabla_build_ack(fw->tx_buf, TABLA_TX_MAX, fw->seq, refseq, reftype));
}

static void send_hello(tabla_fw_t *fw, uint32_t now)
{
    const hal_board_t *b = hal_board();
    tabla_hello_t h;
    h.major = TABLA_VERSION_MAJOR;
    h.minor = TABLA_VERSION_MINOR;
    h.abilities = b->abilities;
    h.buttons = b->buttons;
    h.cells = b->cells;
    h.leds = b->leds;
    h.maxrx = TABLA_RX_MAX;
    h.vendor = b->vendor;
    h.model = b->model;
    h.serial = b->serial;
    h.firmware = b->firmware;
    send(fw, tabla_build_hello(fw->tx_buf, TABLA_TX_MAX, fw->seq, &h));
    fw->last_hello = now;
}

/* ---- Packed arrays ---- */

/* Field i, bits wide (1, 2, 4 or 8), of a packed array: fields fill each
 * byte from its low bits up. bits is a constant at every use, so these
 * fold into an index, a shift and a mask (macros, so that even -Os inlines
 * them in the scan loop). */
#define PK_INDEX(i, bits) ((uint16_t)(i) / (8u / (bits)))
#define PK_SHIFT(i, bits) ((uint8_t)(((uint16_t)(i) & (7u / (bits))) * (bits)))
#define PK_MASK(bits) ((uint8_t)((1u << (bits)) - 1u))
#define PK_GET(a, i, bits)                                                                      \
    ((bits) == 8u ? (a)[i] : (uint8_t)(((a)[PK_INDEX(i, bits)] >> PK_SHIFT(i, bits)) & PK_MASK(bits)))

static uint8_t pk_get(const uint8_t *a, uint16_t i, uint8_t bits)
{
    switch (bits) {
    case 1:
        return PK_GET(a, i, 1u);
    case 2:
        return PK_GET(a, i, 2u);
    case 4:
        return PK_GET(a, i, 4u);
    default:
        return a[i];
    }
}

static void pk_set(uint8_t *a, uint16_t i, uint8_t bits, uint8_t v)
{
    uint8_t sh, mask;
    if (bits == 8u) {
        a[i] = v;
        return;
    }
    sh = (uint8_t)((i & (7u / bits)) * bits);
    mask = (uint8_t)(((1u << bits) - 1u) << sh);
    a[i / (8u / bits)] = (uint8_t)((a[i / (8u / bits)] & (uint8_t)~mask) | ((uint8_t)(v << sh) & mask));
}

#define STABLE(fw, i) PK_GET((fw)->stable, (i), TABLA_CODE_BITS)

uint8_t tabla_code_of(uint8_t value)
{
#if TABLA_CODE_BITS == 8u
    return value;
#else
#if TABLA_CODE_COUNT > 0u
    static const uint8_t table[TABLA_CODE_COUNT] = TABLA_CODE_TABLE;
    if (value != 0 && value <= TABLA_CODE_COUNT) {
        return table[value - 1u];
    }
#endif
    return value ? 255u : 0u;
#endif
}

uint8_t tabla_fw_reading(const tabla_fw_t *fw, uint16_t cell)
{
    return cell < hal_board()->cells ? tabla_code_of(STABLE(fw, cell)) : 0u;
}

tabla_led_t tabla_fw_led(const tabla_fw_t *fw, uint16_t led)
{
    return fw->palette[led < hal_board()->leds ? pk_get(fw->led, led, TABLA_LED_BITS) : 0u];
}

/* The Snapshot, built straight from the packed readings. */
static void send_snapshot(tabla_fw_t *fw, uint32_t now, uint8_t reason)
{
    uint16_t n = hal_board()->cells, i;
    uint8_t codes = 0, acc = 0, c;
    tabla_writer_t w;
    for (i = 0; i < n && !codes; i++) {
        c = tabla_code_of(STABLE(fw, i));
        codes = (uint8_t)(c != 0 && c != 255u);
    }
    tabla_body_begin(&w, fw->tx_buf, TABLA_TX_MAX, TABLA_T_SNAPSHOT, fw->seq);
    tabla_put_u32(&w, now);
    tabla_put_u8(&w, reason);
    tabla_put_u8(&w, codes);
    tabla_put_u16(&w, n);
    for (i = 0; i < n; i++) {
        if (STABLE(fw, i) != 0) {
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
    for (i = 0; codes && i < n; i++) {
        if (STABLE(fw, i) != 0) {
            tabla_put_u8(&w, tabla_code_of(STABLE(fw, i)));
        }
    }
    send(fw, tabla_body_end(&w));
    fw->last_snapshot = now;
}

/* ---- Die ---- */

uint32_t tabla_random_below(uint32_t n)
{
    /* Reject the top partial block so that every value is equally likely. */
    uint32_t lim = 0xFFFFFFFFu - (0xFFFFFFFFu % n);
    uint32_t r;
    do {
        r = hal_random();
    } while (r >= lim);
    return r % n;
}

static void press(tabla_fw_t *fw, uint32_t now, uint8_t id)
{
    uint16_t ab = hal_board()->abilities;
    if (id == TABLA_BTN_ROLL && (ab & (TABLA_AB_D6 | TABLA_AB_NSEW))) {
        if (ab & TABLA_AB_D6) {
            send(fw, tabla_build_roll(fw->tx_buf, TABLA_TX_MAX, fw->seq, now, TABLA_DIE_D6,
                                      (uint8_t)(1u + tabla_random_below(6))));
        }
        if (ab & TABLA_AB_NSEW) {
            send(fw, tabla_build_roll(fw->tx_buf, TABLA_TX_MAX, fw->seq, now, TABLA_DIE_NSEW,
                                      (uint8_t)(1u + tabla_random_below(4))));
        }
        return;
    }
    send(fw, tabla_build_button(fw->tx_buf, TABLA_TX_MAX, fw->seq, now, id));
}

/* ---- Scanning ---- */

/* One debounce step of a button bitmap: a new reading becomes the reported
 * one after `need` consecutive scans agree on it. Returns 1 when the
 * reported value changes. */
static uint8_t debounce(uint8_t *stable, uint8_t *cand, uint8_t *count, uint8_t raw,
                        uint8_t need)
{
    if (raw == *stable) {
        *count = 0;
        return 0;
    }
    if (*count == 0 || raw != *cand) {
        *cand = raw;
        *count = 1;
    } else if (*count < 255u) {
        (*count)++;
    }
    if (*count >= need) {
        *stable = raw;
        *count = 0;
        return 1;
    }
    return 0;
}

/* The same for cell i in the packed arrays; fw->pending counts the cells
 * whose counter is running, so that a scan of a quiet board only compares
 * each reading with the reported one. */
static uint8_t debounce_cell(tabla_fw_t *fw, uint16_t i, uint8_t raw, uint8_t need)
{
    uint8_t n = pk_get(fw->count, i, TABLA_COUNT_BITS);
    if (raw == STABLE(fw, i)) {
        if (n != 0) {
            pk_set(fw->count, i, TABLA_COUNT_BITS, 0);
            fw->pending--;
        }
        return 0;
    }
    if (n == 0 || raw != pk_get(fw->cand, i, TABLA_CODE_BITS)) {
        pk_set(fw->cand, i, TABLA_CODE_BITS, raw);
        if (n == 0) {
            fw->pending++;
        }
        n = 1;
    } else if (n < TABLA_MAX_DEBOUNCE) {
        n++;
    }
    if (n >= need) {
        pk_set(fw->stable, i, TABLA_CODE_BITS, raw);
        fw->pending--;
        n = 0;
    }
    pk_set(fw->count, i, TABLA_COUNT_BITS, n);
    return (uint8_t)(n == 0);
}

/* A CellChange is built straight into the transmit buffer as changes are
 * found; its count byte is patched when it is sent. */
#define CHANGE_COUNT_AT (TABLA_HEADER_LEN + 4u)

static void flush_changes(tabla_fw_t *fw, tabla_writer_t *w, uint8_t n)
{
    fw->tx_buf[CHANGE_COUNT_AT] = n;
    send(fw, tabla_body_end(w));
}

static void scan(tabla_fw_t *fw, uint32_t now)
{
    const hal_board_t *b = hal_board();
    tabla_writer_t w;
    uint8_t n = 0, old, pressed, id;
    uint16_t i = 0;

    hal_scan_begin();
#ifdef TABLA_HAL_SCAN_SAME
    /* Nothing changed and no count is running: every cell reads as it is
     * reported (a cell whose count is 0 last read its stable value), so
     * the loop is skipped. */
    if (fw->pending == 0 && hal_scan_same()) {
        i = b->cells;
    }
#endif
    for (; i < b->cells; i++) {
        uint8_t raw = (uint8_t)(hal_read_cell(i) & ((1u << TABLA_CODE_BITS) - 1u));
        if ((raw == STABLE(fw, i) && fw->pending == 0) ||
            !debounce_cell(fw, i, raw, fw->cfg.debounce)) {
            continue;
        }
        if (!fw->running) {
            continue; /* the Snapshot after the handshake will carry it */
        }
        if (n == 0) {
            tabla_body_begin(&w, fw->tx_buf, TABLA_TX_MAX, TABLA_T_CELL_CHANGE, fw->seq);
            tabla_put_u32(&w, now);
            tabla_put_u8(&w, 0);
        }
        tabla_put_u16(&w, i);
        tabla_put_u8(&w, tabla_code_of(raw));
        if (++n == TABLA_CHANGE_BATCH) {
            flush_changes(fw, &w, n);
            n = 0;
        }
    }
    if (n) {
        flush_changes(fw, &w, n);
    }

    old = fw->btn_stable;
    if (debounce(&fw->btn_stable, &fw->btn_cand, &fw->btn_count,
                 (uint8_t)(hal_read_buttons() & b->buttons), fw->cfg.debounce)) {
        pressed = (uint8_t)(fw->btn_stable & ~old);
        for (id = 1; id <= 8; id++) {
            if (fw->running && (pressed & (1u << (id - 1)))) {
                press(fw, now, id);
            }
        }
    }
    fw->scans++;
}

/* ---- LEDs ---- */

static uint8_t led_on(const tabla_led_t *l, uint32_t now)
{
    uint32_t period;
    if (l->blink == 0) {
        return 1;
    }
    period = (uint32_t)l->blink * TABLA_BLINK_UNIT_MS;
    return (uint8_t)(now % period < period / 2u);
}

static uint8_t scale(uint8_t c, uint8_t brightness)
{
    return (uint8_t)(((uint16_t)c * (uint16_t)(brightness + 1u)) >> 8);
}

/* A cheap digest of which blinking palette entries are lit: the strip is
 * re-driven only when it changes, since driving it may block interrupts. */
static uint16_t blink_signature(const tabla_fw_t *fw, uint32_t now)
{
    uint16_t k, sig = 0x5A5Au;
    for (k = 1; k < TABLA_PALETTE; k++) {
        if (fw->refs[k] && fw->palette[k].blink) {
            sig = tabla_crc16_update(sig, (uint8_t)(led_on(&fw->palette[k], now) + (k & 0x7Fu)));
        }
    }
    return sig;
}

static void render(tabla_fw_t *fw, uint32_t now)
{
    uint16_t k;
    for (k = 0; k < TABLA_PALETTE; k++) {
        const tabla_led_t *l = &fw->palette[k];
        uint8_t on = (uint8_t)(k != 0 && fw->refs[k] && led_on(l, now));
        fw->shown[k][0] = on ? scale(l->r, fw->cfg.brightness) : 0u;
        fw->shown[k][1] = on ? scale(l->g, fw->cfg.brightness) : 0u;
        fw->shown[k][2] = on ? scale(l->b, fw->cfg.brightness) : 0u;
    }
    hal_led_show(fw->led, TABLA_LED_BITS, hal_board()->leds, &fw->shown[0][0]);
    fw->led_signature = blink_signature(fw, now);
}

static uint16_t colour_distance(const tabla_led_t *a, uint8_t r, uint8_t g, uint8_t b)
{
    return (uint16_t)((a->r > r ? a->r - r : r - a->r) + (a->g > g ? a->g - g : g - a->g) +
                      (a->b > b ? a->b - b : b - a->b));
}

/* The palette entry of a colour: an equal one in use, else a free one,
 * else (palette full) the nearest one in use, preferring the same blink. */
static uint8_t palette_entry(tabla_fw_t *fw, uint8_t r, uint8_t g, uint8_t b, uint8_t blink)
{
    uint16_t k, best = 0, free = 0, dist = 0xFFFFu;
    if ((r | g | b) == 0) {
        return 0;
    }
    for (k = 1; k < TABLA_PALETTE; k++) {
        tabla_led_t *l = &fw->palette[k];
        if (fw->refs[k] == 0) {
            if (free == 0) {
                free = k;
            }
            continue;
        }
        if (l->r == r && l->g == g && l->b == b && l->blink == blink) {
            return (uint8_t)k;
        }
    }
    if (free != 0) {
        tabla_led_t *l = &fw->palette[free];
        l->r = r;
        l->g = g;
        l->b = b;
        l->blink = blink;
        return (uint8_t)free;
    }
    for (k = 1; k < TABLA_PALETTE; k++) {
        uint16_t d = (uint16_t)(colour_distance(&fw->palette[k], r, g, b) +
                                (fw->palette[k].blink == blink ? 0u : 1024u));
        if (d < dist) {
            dist = d;
            best = k;
        }
    }
    return (uint8_t)best;
}

static void set_led(tabla_fw_t *fw, uint16_t i, uint8_t r, uint8_t g, uint8_t b, uint8_t blink)
{
    uint8_t old = pk_get(fw->led, i, TABLA_LED_BITS), k;
    if (old != 0) {
        fw->refs[old]--; /* may free the entry for this very colour */
    }
    k = palette_entry(fw, r, g, b, blink);
    if (k != 0) {
        fw->refs[k]++;
    }
    pk_set(fw->led, i, TABLA_LED_BITS, k);
}

/* Drives the strip and acknowledges the commands waiting for it. */
static void flush_leds(tabla_fw_t *fw, uint32_t now)
{
    uint8_t k;
    render(fw, now);
    fw->render_due = 0;
    for (k = 0; k < fw->acks; k++) {
        send_ack(fw, fw->ack_queue[k].seq, fw->ack_queue[k].type);
    }
    fw->acks = 0;
}

/* A command that changed what the LEDs show has been applied: drive the
 * strip and acknowledge now, or (led_defer_ms) when the line is quiet. */
static void leds_changed(tabla_fw_t *fw, const tabla_host_msg_t *m, uint32_t now)
{
    if (fw->led_defer_ms == 0) {
        render(fw, now);
        send_ack(fw, m->seq, m->type);
        return;
    }
    if (fw->acks == TABLA_ACK_QUEUE) {
        flush_leds(fw, now);
    }
    fw->ack_queue[fw->acks].seq = m->seq;
    fw->ack_queue[fw->acks].type = m->type;
    fw->acks++;
    fw->render_due = 1;
}

/* ---- Host commands ---- */

static void apply_config(tabla_fw_t *fw, const tabla_config_t *c)
{
    fw->cfg = *c;
    if (fw->cfg.scan_hz > TABLA_MAX_SCAN_HZ) {
        fw->cfg.scan_hz = TABLA_MAX_SCAN_HZ;
    }
    if (fw->cfg.heartbeat_ms != 0 && fw->cfg.heartbeat_ms < TABLA_MIN_HEARTBEAT_MS) {
        fw->cfg.heartbeat_ms = TABLA_MIN_HEARTBEAT_MS;
    }
    if (fw->cfg.snapshot_ms != 0 && fw->cfg.snapshot_ms < TABLA_MIN_SNAPSHOT_MS) {
        fw->cfg.snapshot_ms = TABLA_MIN_SNAPSHOT_MS;
    }
#if TABLA_MAX_DEBOUNCE < 255u
    if (fw->cfg.debounce > TABLA_MAX_DEBOUNCE) {
        fw->cfg.debounce = TABLA_MAX_DEBOUNCE;
    }
#endif
}

static void handle(tabla_fw_t *fw, const tabla_host_msg_t *m, uint32_t now)
{
    uint16_t leds = hal_board()->leds, i;
    switch (m->type) {
    case TABLA_T_HELLO_REQUEST:
        fw->running = 0;
        send_hello(fw, now);
        return;
    case TABLA_T_SNAPSHOT_REQUEST:
        send_snapshot(fw, now, TABLA_REASON_REQUEST);
        return;
    case TABLA_T_ACK:
        if (m->u.ack.reftype == TABLA_T_HELLO && !fw->running) {
            fw->running = 1;
            send_snapshot(fw, now, TABLA_REASON_CONNECT);
            fw->last_heartbeat = now;
        }
        return; /* an Ack is never answered */
    case TABLA_T_CONFIG:
        apply_config(fw, &m->u.config);
        leds_changed(fw, m, now); /* brightness */
        return;
    case TABLA_T_LED_FRAME: {
        uint16_t start = m->u.led_frame.start, count = m->u.led_frame.count;
        const uint8_t *rgb = m->u.led_frame.rgb;
        if ((uint32_t)start + count > leds) {
            send_error(fw, TABLA_E_OUT_OF_RANGE, m->seq, m->type, start < leds ? leds : start);
            return;
        }
        for (i = 0; i < count; i++, rgb += 3) {
            set_led(fw, (uint16_t)(start + i), rgb[0], rgb[1], rgb[2], 0);
        }
        leds_changed(fw, m, now);
        return;
    }
    case TABLA_T_LED_SET: {
        const uint8_t *r = m->u.led_set.ranges;
        uint8_t k;
        for (k = 0; k < m->u.led_set.count; k++) {
            uint16_t start = tabla_get_u16(r + 4u * k), count = tabla_get_u16(r + 4u * k + 2);
            if ((uint32_t)start + count > leds) {
                send_error(fw, TABLA_E_OUT_OF_RANGE, m->seq, m->type,
                           start < leds ? leds : start);
                return; /* nothing applied */
            }
        }
        for (k = 0; k < m->u.led_set.count; k++) {
            uint16_t start = tabla_get_u16(r + 4u * k), count = tabla_get_u16(r + 4u * k + 2);
            for (i = start; i < start + count; i++) {
                set_led(fw, i, m->u.led_set.r, m->u.led_set.g, m->u.led_set.b,
                        m->u.led_set.blink);
            }
        }
        leds_changed(fw, m, now);
        return;
    }
    default:
        send_error(fw, TABLA_E_UNKNOWN_TYPE, m->seq, m->type, m->type);
        return;
    }
}

void tabla_fw_rx_byte(tabla_fw_t *fw, uint8_t byte, uint32_t now)
{
    tabla_host_msg_t m;
    int r = tabla_rx_feed(&fw->rx, byte);
    fw->last_rx = now;
    if (r == TABLA_RX_NONE) {
        return;
    }
    if (r < 0) {
        fw->rx_errors++;
        send_error(fw, TABLA_E_BAD_FRAME, 0, 0, (uint16_t)-r);
        return;
    }
    switch (tabla_parse_host(fw->rx.buf, fw->rx.len, &m)) {
    case TABLA_PARSE_OK:
        handle(fw, &m, now);
        return;
    case TABLA_PARSE_UNKNOWN:
        send_error(fw, TABLA_E_UNKNOWN_TYPE, m.seq, m.type, m.type);
        return;
    default:
        fw->rx_errors++;
        send_error(fw, TABLA_E_BAD_PAYLOAD, m.seq, m.type, 0);
        return;
    }
}

/* ---- Main loop ---- */

void tabla_fw_init(tabla_fw_t *fw)
{
    const hal_board_t *b = hal_board();
    uint32_t now = hal_millis();
    uint16_t i;

    memset(fw, 0, sizeof *fw);
    fw->cfg.scan_hz = 100;
    fw->cfg.debounce = 3;
    fw->cfg.heartbeat_ms = 1000;
    fw->cfg.snapshot_ms = 0;
    fw->cfg.brightness = 255;
    fw->led_defer_ms = TABLA_LED_DEFER_MS;
    tabla_rx_init(&fw->rx, fw->rx_buf, TABLA_RX_MAX);

    hal_scan_begin();
    for (i = 0; i < b->cells && i < TABLA_MAX_CELLS; i++) {
        pk_set(fw->stable, i, TABLA_CODE_BITS,
               (uint8_t)(hal_read_cell(i) & ((1u << TABLA_CODE_BITS) - 1u)));
    }
    fw->btn_stable = (uint8_t)(hal_read_buttons() & b->buttons);
    fw->last_scan = fw->rate_start = now;
    render(fw, now);

    hal_uart_write(0); /* end whatever garbage the host holds */
    send_hello(fw, now);
}

void tabla_fw_poll(tabla_fw_t *fw)
{
    uint32_t now = hal_millis();
    uint32_t period = 1000u / fw->cfg.scan_hz;
    int c;

    while ((c = hal_uart_read()) >= 0) {
        tabla_fw_rx_byte(fw, (uint8_t)c, now);
    }

    if (period == 0) {
        period = 1;
    }
    if ((uint32_t)(now - fw->last_scan) >= period) {
        fw->last_scan = now;
        scan(fw, now);
    }
    if ((uint32_t)(now - fw->rate_start) >= 1000u) {
        fw->scan_rate = fw->scans;
        fw->scans = 0;
        fw->rate_start = now;
    }

    if (!fw->running) {
        if ((uint32_t)(now - fw->last_hello) >= TABLA_HELLO_INTERVAL_MS) {
            send_hello(fw, now);
        }
    } else {
        if (fw->cfg.heartbeat_ms != 0 &&
            (uint32_t)(now - fw->last_heartbeat) >= fw->cfg.heartbeat_ms) {
            send(fw, tabla_build_heartbeat(fw->tx_buf, TABLA_TX_MAX, fw->seq, now,
                                           fw->scan_rate, fw->rx_errors));
            fw->last_heartbeat = now;
        }
        if (fw->cfg.snapshot_ms != 0 &&
            (uint32_t)(now - fw->last_snapshot) >= fw->cfg.snapshot_ms) {
            send_snapshot(fw, now, TABLA_REASON_PERIODIC);
        }
    }

    /* Drive the strip for deferred LED commands once the line is quiet,
     * and re-drive blinking LEDs when their on/off pattern changes, but not
     * in the middle of receiving a frame (driving may block interrupts). */
    if (fw->rx.encoded != 0 || (uint32_t)(now - fw->last_rx) < fw->led_defer_ms) {
        return;
    }
    if (fw->render_due) {
        flush_leds(fw, now);
    } else if (blink_signature(fw, now) != fw->led_signature) {
        render(fw, now);
    }
}
