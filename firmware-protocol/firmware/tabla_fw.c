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

static void send_snapshot(tabla_fw_t *fw, uint32_t now, uint8_t reason)
{
    send(fw, tabla_build_snapshot(fw->tx_buf, TABLA_TX_MAX, fw->seq, now, reason, fw->stable,
                                  hal_board()->cells));
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

/* One debounce step: a new reading becomes the reported one after `need`
 * consecutive scans agree on it. Returns 1 when the reported value changes. */
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

static void flush_changes(tabla_fw_t *fw, uint32_t now, const tabla_change_t *ch, uint8_t n)
{
    send(fw, tabla_build_cell_change(fw->tx_buf, TABLA_TX_MAX, fw->seq, now, ch, n));
}

static void scan(tabla_fw_t *fw, uint32_t now)
{
    const hal_board_t *b = hal_board();
    tabla_change_t ch[TABLA_CHANGE_BATCH];
    uint8_t n = 0, old, pressed, id;
    uint16_t i;

    hal_scan_begin();
    for (i = 0; i < b->cells; i++) {
        uint8_t raw = hal_read_cell(i);
        if (!debounce(&fw->stable[i], &fw->cand[i], &fw->count[i], raw, fw->cfg.debounce)) {
            continue;
        }
        if (!fw->running) {
            continue; /* the Snapshot after the handshake will carry it */
        }
        ch[n].cell = i;
        ch[n].code = fw->stable[i];
        if (++n == TABLA_CHANGE_BATCH) {
            flush_changes(fw, now, ch, n);
            n = 0;
        }
    }
    if (n) {
        flush_changes(fw, now, ch, n);
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

/* A cheap digest of which blinking LEDs are lit: the strip is re-driven
 * only when it changes, since driving it may block interrupts. */
static uint16_t blink_signature(const tabla_fw_t *fw, uint32_t now)
{
    uint16_t i, sig = 0x5A5Au, n = hal_board()->leds;
    for (i = 0; i < n; i++) {
        if (fw->leds[i].blink) {
            sig = tabla_crc16_update(sig, (uint8_t)(led_on(&fw->leds[i], now) + (i & 0x7Fu)));
        }
    }
    return sig;
}

static void render(tabla_fw_t *fw, uint32_t now)
{
    uint16_t i, n = hal_board()->leds;
    for (i = 0; i < n; i++) {
        const tabla_led_t *l = &fw->leds[i];
        if (led_on(l, now)) {
            hal_led_set(i, scale(l->r, fw->cfg.brightness), scale(l->g, fw->cfg.brightness),
                        scale(l->b, fw->cfg.brightness));
        } else {
            hal_led_set(i, 0, 0, 0);
        }
    }
    hal_led_show();
    fw->led_signature = blink_signature(fw, now);
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
        render(fw, now); /* brightness */
        send_ack(fw, m->seq, m->type);
        return;
    case TABLA_T_LED_FRAME: {
        uint16_t start = m->u.led_frame.start, count = m->u.led_frame.count;
        const uint8_t *rgb = m->u.led_frame.rgb;
        if ((uint32_t)start + count > leds) {
            send_error(fw, TABLA_E_OUT_OF_RANGE, m->seq, m->type, start < leds ? leds : start);
            return;
        }
        for (i = 0; i < count; i++, rgb += 3) {
            tabla_led_t *l = &fw->leds[start + i];
            l->r = rgb[0];
            l->g = rgb[1];
            l->b = rgb[2];
            l->blink = 0;
        }
        render(fw, now);
        send_ack(fw, m->seq, m->type);
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
                fw->leds[i].r = m->u.led_set.r;
                fw->leds[i].g = m->u.led_set.g;
                fw->leds[i].b = m->u.led_set.b;
                fw->leds[i].blink = m->u.led_set.blink;
            }
        }
        render(fw, now);
        send_ack(fw, m->seq, m->type);
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
    tabla_rx_init(&fw->rx, fw->rx_buf, TABLA_RX_MAX);

    hal_scan_begin();
    for (i = 0; i < b->cells && i < TABLA_MAX_CELLS; i++) {
        fw->stable[i] = hal_read_cell(i);
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

    /* Re-drive blinking LEDs when their on/off pattern changes, but not
     * in the middle of receiving a frame (driving may block interrupts). */
    if (fw->rx.encoded == 0 && blink_signature(fw, now) != fw->led_signature) {
        render(fw, now);
    }
}
