/*
 * Host unit tests for the reference firmware: the shared test vectors
 * (../testdata/vectors.txt, the same file the Go codec tests read), the
 * framing layer, and the board logic over hal_host.c.
 *
 * Usage: test_host [vectors-file]. Prints "N passed, N failed".
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_host.h"
#include "tabla_fw.h"
#include "tabla_proto.h"

/* ---- Minimal test harness ---- */

static int checks_failed, tests_passed, tests_failed;
static const char *current;

static void fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    checks_failed++;
    printf("FAIL %s (%s:%d): ", current, file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fail(__FILE__, __LINE__, __VA_ARGS__);                                              \
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

/* ---- Framing ---- */

static void test_crc(void)
{
    const char *s = "123456789";
    CHECK(tabla_crc16((const uint8_t *)s, 9) == 0x29B1u, "check value %#x",
          tabla_crc16((const uint8_t *)s, 9));
    CHECK(tabla_crc16(0, 0) == 0xFFFFu, "CRC of nothing");
}

static int cobs_case(const uint8_t *raw, uint16_t n, const uint8_t *enc, uint16_t m)
{
    uint8_t out[600], buf[600];
    uint16_t k = tabla_frame_encode(raw, n, out, sizeof out), i;
    tabla_rx_t rx;
    int r = TABLA_RX_NONE;
    if (k != m + 1u || memcmp(out, enc, m) != 0 || out[m] != 0) {
        return 0;
    }
    /* Decode through the receiver; bodies this short fail as too short
     * or bad CRC, so check the decoded bytes only. */
    tabla_rx_init(&rx, buf, sizeof buf);
    for (i = 0; i < k; i++) {
        r = tabla_rx_feed(&rx, out[i]);
    }
    if (n == 0) {
        return r != TABLA_RX_ERR_COBS;
    }
    return r != TABLA_RX_NONE && r != TABLA_RX_ERR_COBS && rx.len == n &&
           memcmp(buf, raw, n) == 0;
}

static void test_cobs(void)
{
    uint8_t raw[300], enc[310];
    uint16_t i;
    {
        static const uint8_t r1[] = {0x00}, e1[] = {0x01, 0x01};
        static const uint8_t r2[] = {0x11, 0x22, 0x00, 0x33}, e2[] = {0x03, 0x11, 0x22, 0x02, 0x33};
        static const uint8_t r3[] = {0x11, 0x00, 0x00, 0x00}, e3[] = {0x02, 0x11, 0x01, 0x01, 0x01};
        static const uint8_t e0[] = {0x01};
        CHECK(cobs_case(r1, 0, e0, 1), "empty");
        CHECK(cobs_case(r1, 1, e1, 2), "one zero");
        CHECK(cobs_case(r2, 4, e2, 5), "inner zero");
        CHECK(cobs_case(r3, 4, e3, 5), "trailing zeros");
    }
    /* 254 non-zero bytes: one full group, no trailing empty group. */
    for (i = 0; i < 254; i++) {
        raw[i] = (uint8_t)(i + 1);
    }
    enc[0] = 0xFF;
    memcpy(enc + 1, raw, 254);
    CHECK(cobs_case(raw, 254, enc, 255), "254 non-zero");
    /* 255 non-zero: a full group, then a group of one. */
    for (i = 0; i < 255; i++) {
        raw[i] = (uint8_t)(i % 255 + 1);
    }
    enc[0] = 0xFF;
    memcpy(enc + 1, raw, 254);
    enc[255] = 0x02;
    enc[256] = raw[254];
    CHECK(cobs_case(raw, 255, enc, 257), "255 non-zero");
    /* 254 non-zero then a zero: full group, then two empty groups. */
    raw[254] = 0;
    enc[255] = 0x01;
    enc[256] = 0x01;
    CHECK(cobs_case(raw, 255, enc, 257), "254 then zero");
}

/* Feeds bytes; returns the results that were not TABLA_RX_NONE. */
static int feed(tabla_rx_t *rx, const uint8_t *p, size_t n, int *results, int max)
{
    int k = 0;
    while (n--) {
        int r = tabla_rx_feed(rx, *p++);
        if (r != TABLA_RX_NONE && k < max) {
            results[k++] = r;
        }
    }
    return k;
}

static uint16_t heartbeat_frame(uint8_t *out, uint16_t seq)
{
    uint8_t body[32];
    uint16_t n = tabla_build_heartbeat(body, sizeof body, seq, 1000, 100, 0);
    return tabla_frame_encode(body, n, out, 64);
}

static void test_rx_resync(void)
{
    static uint8_t buf[64], stream[400];
    uint8_t f[64];
    tabla_rx_t rx;
    int res[16], k;
    uint16_t n = heartbeat_frame(f, 7), len = 0, i;

    tabla_rx_init(&rx, buf, sizeof buf);
    /* idle zeros, garbage with a delimiter, a frame, a frame with a
     * corrupted byte, a frame missing a byte, a good frame */
    stream[len++] = 0;
    stream[len++] = 0;
    stream[len++] = 0x55;
    stream[len++] = 0x66;
    stream[len++] = 0;
    memcpy(stream + len, f, n);
    len = (uint16_t)(len + n);
    memcpy(stream + len, f, n);
    stream[len + 4] ^= 0x10;
    len = (uint16_t)(len + n);
    memcpy(stream + len, f, 5);
    memcpy(stream + len + 5, f + 6, (size_t)(n - 6));
    len = (uint16_t)(len + n - 1);
    memcpy(stream + len, f, n);
    len = (uint16_t)(len + n);
    k = feed(&rx, stream, len, res, 16);
    CHECK(k == 5, "got %d results, want 5", k);
    CHECK(k > 0 && res[0] == TABLA_RX_ERR_COBS, "garbage: %d", res[0]);
    CHECK(k > 1 && res[1] == TABLA_RX_FRAME, "frame: %d", res[1]);
    CHECK(k > 2 && res[2] == TABLA_RX_ERR_CRC, "corrupted: %d", res[2]);
    CHECK(k > 3 && (res[3] == TABLA_RX_ERR_CRC || res[3] == TABLA_RX_ERR_COBS), "lost byte: %d",
          res[3]);
    CHECK(k > 4 && res[4] == TABLA_RX_FRAME, "good after bad: %d", res[4]);
    CHECK(rx.len == 13 && buf[0] == TABLA_T_HEARTBEAT && tabla_get_u16(buf + 1) == 7,
          "body kept after the frame");

    /* Longer than the buffer: too long, then the next frame is fine. */
    tabla_rx_init(&rx, buf, sizeof buf);
    for (i = 0; i < 100; i++) {
        stream[i] = 0x42;
    }
    stream[100] = 0;
    k = feed(&rx, stream, 101, res, 16);
    k += feed(&rx, f, n, res + k, 16 - k);
    CHECK(k == 2 && res[0] == TABLA_RX_ERR_TOO_LONG && res[1] == TABLA_RX_FRAME,
          "too long: %d results, %d %d", k, res[0], res[1]);

    /* Too short, and a group running past the delimiter. */
    {
        static const uint8_t s1[] = {0x03, 0x06, 0x01, 0x01, 0x01, 0x00};
        static const uint8_t s2[] = {0x05, 0x01, 0x02, 0x00};
        k = feed(&rx, s1, sizeof s1, res, 16);
        CHECK(k == 1 && res[0] == TABLA_RX_ERR_TOO_SHORT, "too short: %d", res[0]);
        k = feed(&rx, s2, sizeof s2, res, 16);
        CHECK(k == 1 && res[0] == TABLA_RX_ERR_COBS, "bad cobs: %d", res[0]);
    }
}

/* ---- Shared test vectors ---- */

#define MAX_FIELDS 16
#define MAX_VALUE 2048

typedef struct {
    char name[64];
    uint8_t wire[8192];
    size_t wire_len;
    char type[32];
    long seq;
    int decode_only;
    char error[32];
    long errtype, errseq;
    int nfields;
    char key[MAX_FIELDS][32];
    char value[MAX_FIELDS][MAX_VALUE];
} vector_t;

static const struct {
    const char *name;
    uint8_t code;
    int from_host;
} types[] = {
    {"Hello", TABLA_T_HELLO, 0},
    {"Snapshot", TABLA_T_SNAPSHOT, 0},
    {"CellChange", TABLA_T_CELL_CHANGE, 0},
    {"Roll", TABLA_T_ROLL, 0},
    {"Button", TABLA_T_BUTTON, 0},
    {"Heartbeat", TABLA_T_HEARTBEAT, 0},
    {"Error", TABLA_T_ERROR, 0},
    {"Ack", TABLA_T_ACK, 1},
    {"HelloRequest", TABLA_T_HELLO_REQUEST, 1},
    {"SnapshotRequest", TABLA_T_SNAPSHOT_REQUEST, 1},
    {"Config", TABLA_T_CONFIG, 1},
    {"LEDFrame", TABLA_T_LED_FRAME, 1},
    {"LEDSet", TABLA_T_LED_SET, 1},
};
#define NTYPES (sizeof types / sizeof types[0])

static int type_index(const char *name)
{
    size_t i;
    for (i = 0; i < NTYPES; i++) {
        if (strcmp(types[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static int type_index_code(long code)
{
    size_t i;
    for (i = 0; i < NTYPES; i++) {
        if (types[i].code == code) {
            return (int)i;
        }
    }
    return -1;
}

static const char *field(const vector_t *v, const char *key)
{
    int i;
    for (i = 0; i < v->nfields; i++) {
        if (strcmp(v->key[i], key) == 0) {
            return v->value[i];
        }
    }
    return 0;
}

static int field_errors;

static unsigned long num(const vector_t *v, const char *key)
{
    const char *s = field(v, key);
    char *end;
    unsigned long n;
    if (!s) {
        printf("vector %s: no field %s\n", v->name, key);
        field_errors++;
        return 0;
    }
    n = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0') {
        printf("vector %s: field %s is not a number: %s\n", v->name, key, s);
        field_errors++;
    }
    return n;
}

static const char *str(const vector_t *v, const char *key)
{
    const char *s = field(v, key);
    if (!s) {
        printf("vector %s: no field %s\n", v->name, key);
        field_errors++;
        return "";
    }
    return s;
}

/* Parses "A<sep>B,A<sep>B,..." into pairs; returns the count. */
static int pairs(const char *s, char sep, unsigned long *a, unsigned long *b, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        a[n] = strtoul(s, &end, 10);
        if (*end != sep) {
            field_errors++;
            return n;
        }
        b[n] = strtoul(end + 1, &end, 10);
        n++;
        if (*end == ',') {
            end++;
        } else if (*end != '\0') {
            field_errors++;
            return n;
        }
        s = end;
    }
    return n;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = tolower(c);
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

static long rgb(const char *s)
{
    long v = 0;
    int i;
    for (i = 0; i < 6; i++) {
        int h = hexval((unsigned char)s[i]);
        if (h < 0) {
            field_errors++;
            return 0;
        }
        v = v * 16 + h;
    }
    if (s[6] != '\0' && s[6] != ',') {
        field_errors++;
    }
    return v;
}

/* Copies src into dst[cap], cutting it if needed. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    while (src[i] && i + 1 < cap) {
        dst[i] = src[i];
        i++;
    }
    dst[i] = '\0';
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) {
        s[--n] = '\0';
    }
}

static void check_vector(const vector_t *v);
static int vectors_checked;
static int have_type[NTYPES];

static void test_vectors_file(const char *path)
{
    static char line[16384];
    static vector_t v;
    FILE *f = fopen(path, "r");
    int in = 0, lineno = 0;
    current = "vectors file";
    if (!f) {
        fail(__FILE__, __LINE__, "cannot open %s", path);
        tests_failed++;
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *sp, *key = line, *val;
        lineno++;
        chomp(line);
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        sp = strchr(line, ' ');
        val = sp ? sp + 1 : line + strlen(line);
        if (sp) {
            *sp = '\0';
        }
        if (!in) {
            if (strcmp(key, "vector") != 0) {
                printf("%s:%d: want vector, got %s\n", path, lineno, key);
                tests_failed++;
                break;
            }
            memset(&v, 0, sizeof v);
            v.seq = v.errtype = v.errseq = -1;
            copy(v.name, sizeof v.name, val);
            in = 1;
        } else if (strcmp(key, "wire") == 0) {
            const char *p = val;
            while (*p) {
                int hi, lo;
                if (*p == ' ') {
                    p++;
                    continue;
                }
                hi = hexval((unsigned char)p[0]);
                lo = p[1] ? hexval((unsigned char)p[1]) : -1;
                if (hi < 0 || lo < 0 || v.wire_len >= sizeof v.wire) {
                    printf("%s:%d: bad hex\n", path, lineno);
                    field_errors++;
                    break;
                }
                v.wire[v.wire_len++] = (uint8_t)(hi * 16 + lo);
                p += 2;
            }
        } else if (strcmp(key, "type") == 0) {
            copy(v.type, sizeof v.type, val);
        } else if (strcmp(key, "seq") == 0) {
            v.seq = strtol(val, 0, 10);
        } else if (strcmp(key, "decode-only") == 0) {
            v.decode_only = 1;
        } else if (strcmp(key, "error") == 0) {
            copy(v.error, sizeof v.error, val);
        } else if (strcmp(key, "errtype") == 0) {
            v.errtype = strtol(val, 0, 10);
        } else if (strcmp(key, "errseq") == 0) {
            v.errseq = strtol(val, 0, 10);
        } else if (strcmp(key, "end") == 0) {
            check_vector(&v);
            in = 0;
        } else if (v.nfields < MAX_FIELDS) {
            copy(v.key[v.nfields], sizeof v.key[0], key);
            copy(v.value[v.nfields], MAX_VALUE, val);
            v.nfields++;
        }
    }
    fclose(f);
    if (in) {
        printf("%s: last vector not ended\n", path);
        tests_failed++;
    }
    current = "vector coverage";
    {
        int before = checks_failed;
        size_t i;
        CHECK(vectors_checked >= 20, "only %d vectors in %s", vectors_checked, path);
        for (i = 0; i < NTYPES; i++) {
            CHECK(have_type[i], "no vector for %s", types[i].name);
        }
        if (checks_failed == before) {
            tests_passed++;
            printf("ok   vector coverage (%d vectors)\n", vectors_checked);
        } else {
            tests_failed++;
        }
    }
}

/* Builds a board→host message body from a vector's fields. */
static uint16_t build_from_fields(const vector_t *v, uint8_t code, uint8_t *body, uint16_t cap)
{
    static unsigned long a[4096], b[4096];
    uint16_t seq = (uint16_t)v->seq;
    int n, i;
    switch (code) {
    case TABLA_T_HELLO: {
        tabla_hello_t h;
        h.major = (uint8_t)num(v, "major");
        h.minor = (uint8_t)num(v, "minor");
        h.abilities = (uint16_t)num(v, "abilities");
        h.buttons = (uint8_t)num(v, "buttons");
        h.cells = (uint16_t)num(v, "cells");
        h.leds = (uint16_t)num(v, "leds");
        h.maxrx = (uint16_t)num(v, "maxrx");
        h.vendor = str(v, "vendor");
        h.model = str(v, "model");
        h.serial = str(v, "serial");
        h.firmware = str(v, "firmware");
        return tabla_build_hello(body, cap, seq, &h);
    }
    case TABLA_T_SNAPSHOT: {
        static uint8_t cells[TABLA_PROTO_MAX_CELLS];
        unsigned long ncells = num(v, "cells");
        if (ncells > TABLA_PROTO_MAX_CELLS) {
            return 0;
        }
        memset(cells, 0, sizeof cells);
        n = pairs(str(v, "occupied"), ':', a, b, 4096);
        for (i = 0; i < n; i++) {
            if (a[i] < ncells) {
                cells[a[i]] = (uint8_t)b[i];
            }
        }
        return tabla_build_snapshot(body, cap, seq, (uint32_t)num(v, "time"),
                                    (uint8_t)num(v, "reason"), cells, (uint16_t)ncells);
    }
    case TABLA_T_CELL_CHANGE: {
        static tabla_change_t ch[255];
        n = pairs(str(v, "changes"), ':', a, b, 255);
        for (i = 0; i < n; i++) {
            ch[i].cell = (uint16_t)a[i];
            ch[i].code = (uint8_t)b[i];
        }
        return tabla_build_cell_change(body, cap, seq, (uint32_t)num(v, "time"), ch, (uint8_t)n);
    }
    case TABLA_T_ROLL:
        return tabla_build_roll(body, cap, seq, (uint32_t)num(v, "time"), (uint8_t)num(v, "die"),
                                (uint8_t)num(v, "value"));
    case TABLA_T_BUTTON:
        return tabla_build_button(body, cap, seq, (uint32_t)num(v, "time"),
                                  (uint8_t)num(v, "button"));
    case TABLA_T_HEARTBEAT:
        return tabla_build_heartbeat(body, cap, seq, (uint32_t)num(v, "time"),
                                     (uint16_t)num(v, "scanrate"), (uint16_t)num(v, "rxerrors"));
    case TABLA_T_ERROR:
        return tabla_build_error(body, cap, seq, (uint8_t)num(v, "code"),
                                 (uint16_t)num(v, "refseq"), (uint8_t)num(v, "reftype"),
                                 (uint16_t)num(v, "detail"), str(v, "text"));
    case TABLA_T_ACK:
        return tabla_build_ack(body, cap, seq, (uint16_t)num(v, "refseq"),
                               (uint8_t)num(v, "reftype"));
    }
    return 0;
}

/* Compares a parsed host message with a vector's fields. */
static void check_host_fields(const vector_t *v, const tabla_host_msg_t *m)
{
    static unsigned long a[256], b[256];
    int n, i;
    switch (m->type) {
    case TABLA_T_HELLO_REQUEST:
        CHECK(m->u.hello_request.major == num(v, "major") &&
                  m->u.hello_request.minor == num(v, "minor"),
              "HelloRequest fields");
        break;
    case TABLA_T_SNAPSHOT_REQUEST:
        break;
    case TABLA_T_ACK:
        CHECK(m->u.ack.refseq == num(v, "refseq") && m->u.ack.reftype == num(v, "reftype"),
              "Ack fields");
        break;
    case TABLA_T_CONFIG:
        CHECK(m->u.config.scan_hz == num(v, "scanhz") &&
                  m->u.config.debounce == num(v, "debounce") &&
                  m->u.config.heartbeat_ms == num(v, "heartbeatms") &&
                  m->u.config.snapshot_ms == num(v, "snapshotms") &&
                  m->u.config.brightness == num(v, "brightness"),
              "Config fields");
        break;
    case TABLA_T_LED_FRAME: {
        const char *c = str(v, "colors");
        CHECK(m->u.led_frame.start == num(v, "start"), "LEDFrame start %u",
              m->u.led_frame.start);
        for (i = 0; i < m->u.led_frame.count; i++) {
            const uint8_t *p = m->u.led_frame.rgb + 3 * i;
            long want = *c ? rgb(c) : -1;
            long got = ((long)p[0] << 16) | ((long)p[1] << 8) | p[2];
            CHECK(got == want, "LEDFrame colour %d: %06lx, want %06lx", i, got, want);
            c = strchr(c, ',');
            c = c ? c + 1 : "";
        }
        CHECK(*c == '\0', "LEDFrame has fewer colours than the vector");
        break;
    }
    case TABLA_T_LED_SET: {
        long want = rgb(str(v, "color"));
        long got = ((long)m->u.led_set.r << 16) | ((long)m->u.led_set.g << 8) | m->u.led_set.b;
        CHECK(got == want, "LEDSet colour %06lx, want %06lx", got, want);
        CHECK(m->u.led_set.blink == num(v, "blink"), "LEDSet blink");
        n = pairs(str(v, "ranges"), '+', a, b, 256);
        CHECK(n == m->u.led_set.count, "LEDSet %d ranges, want %d", m->u.led_set.count, n);
        for (i = 0; i < n && i < m->u.led_set.count; i++) {
            const uint8_t *r = m->u.led_set.ranges + 4 * i;
            CHECK(tabla_get_u16(r) == a[i] && tabla_get_u16(r + 2) == b[i], "LEDSet range %d",
                  i);
        }
        break;
    }
    }
}

static void check_vector(const vector_t *v)
{
    static uint8_t buf[TABLA_MAX_BODY], body[TABLA_MAX_BODY], frame[8200];
    static char name[96];
    tabla_rx_t rx;
    int results[8], k, before = checks_failed;
    size_t i;

    snprintf(name, sizeof name, "vector %s", v->name);
    current = name;
    field_errors = 0;
    vectors_checked++;
    CHECK(v->wire_len > 0 && v->wire[v->wire_len - 1] == 0, "wire bytes must end in 00");

    tabla_rx_init(&rx, buf, sizeof buf);
    k = feed(&rx, v->wire, v->wire_len, results, 8);
    CHECK(k == 1, "%d receiver results, want 1", k);
    for (i = 0; i + 1 < v->wire_len; i++) {
        CHECK(v->wire[i] != 0, "a 00 before the end");
    }

    if (v->error[0]) {
        int want = 0;
        if (strcmp(v->error, "ErrCOBS") == 0) {
            want = TABLA_RX_ERR_COBS;
        } else if (strcmp(v->error, "ErrCRC") == 0) {
            want = TABLA_RX_ERR_CRC;
        } else if (strcmp(v->error, "ErrTooShort") == 0) {
            want = TABLA_RX_ERR_TOO_SHORT;
        } else if (strcmp(v->error, "ErrTooLong") == 0) {
            want = TABLA_RX_ERR_TOO_LONG;
        }
        if (want) {
            CHECK(k == 1 && results[0] == want, "receiver says %d, want %d (%s)", results[0],
                  want, v->error);
        } else {
            /* A payload-level error: the frame itself is intact. */
            tabla_host_msg_t m;
            int ti = type_index_code(v->errtype), p;
            CHECK(k == 1 && results[0] == TABLA_RX_FRAME, "receiver says %d, want a frame",
                  results[0]);
            CHECK(rx.len >= TABLA_MIN_BODY && buf[0] == v->errtype &&
                      tabla_get_u16(buf + 1) == v->errseq,
                  "header type %u seq %u, want %ld %ld", buf[0], tabla_get_u16(buf + 1),
                  v->errtype, v->errseq);
            if (ti < 0 || types[ti].from_host) {
                /* The board parses these: it must reach the same verdict. */
                p = tabla_parse_host(buf, rx.len, &m);
                if (strcmp(v->error, "ErrUnknownType") == 0) {
                    CHECK(p == TABLA_PARSE_UNKNOWN, "parse %d, want unknown", p);
                } else if (strcmp(v->error, "ErrTruncated") == 0) {
                    CHECK(p == TABLA_PARSE_TRUNCATED, "parse %d, want truncated", p);
                } else if (strcmp(v->error, "ErrInvalid") == 0) {
                    CHECK(p == TABLA_PARSE_INVALID, "parse %d, want invalid", p);
                } else {
                    CHECK(0, "unknown error name %s", v->error);
                }
            }
            /* Board→host payload errors: the firmware never parses those;
             * the intact header is all it can check. */
        }
    } else {
        int ti = type_index(v->type);
        uint16_t n;
        CHECK(ti >= 0, "unknown type %s", v->type);
        if (ti < 0) {
            return;
        }
        have_type[ti] = 1;
        CHECK(k == 1 && results[0] == TABLA_RX_FRAME, "receiver says %d, want a frame",
              results[0]);
        CHECK(buf[0] == types[ti].code && tabla_get_u16(buf + 1) == v->seq,
              "header type %u seq %u, want %s %ld", buf[0], tabla_get_u16(buf + 1), v->type,
              v->seq);
        /* Re-encoding the received body gives the same wire bytes. */
        n = tabla_frame_encode(buf, rx.len, frame, sizeof frame);
        CHECK(n == v->wire_len && memcmp(frame, v->wire, n) == 0, "re-encoded frame differs");

        if (types[ti].from_host) {
            tabla_host_msg_t m;
            int p = tabla_parse_host(buf, rx.len, &m);
            CHECK(p == TABLA_PARSE_OK, "parse_host says %d", p);
            if (p == TABLA_PARSE_OK) {
                check_host_fields(v, &m);
            }
        }
        if ((!types[ti].from_host || types[ti].code == TABLA_T_ACK) && !v->decode_only) {
            /* The board encodes these: its bytes must be the vector's. */
            n = build_from_fields(v, types[ti].code, body, sizeof body);
            CHECK(n != 0, "builder failed");
            n = tabla_frame_encode(body, n, frame, sizeof frame);
            CHECK(n == v->wire_len && memcmp(frame, v->wire, n) == 0,
                  "encoded frame differs from the vector (%u bytes, want %u)", n,
                  (unsigned)v->wire_len);
        }
    }
    CHECK(field_errors == 0, "%d bad or missing fields", field_errors);
    if (checks_failed == before) {
        tests_passed++;
        printf("ok   %s\n", name);
    } else {
        tests_failed++;
    }
}

/* ---- Board logic over hal_host ---- */

static tabla_fw_t fw;

typedef struct {
    uint8_t body[TABLA_MAX_BODY];
    uint16_t len;
} out_frame_t;

static out_frame_t out[512];
static int nout;

/* Decodes what the board wrote since the last call into out[]. */
static void collect(void)
{
    static uint8_t buf[TABLA_MAX_BODY];
    tabla_rx_t rx;
    size_t i;
    tabla_rx_init(&rx, buf, sizeof buf);
    nout = 0;
    for (i = 0; i < hal_host_tx_len; i++) {
        int r = tabla_rx_feed(&rx, hal_host_tx[i]);
        if (r == TABLA_RX_FRAME && nout < 512) {
            memcpy(out[nout].body, buf, rx.len);
            out[nout].len = rx.len;
            nout++;
        }
        CHECK(r >= 0, "board sent a bad frame (%d)", r);
    }
    CHECK(rx.encoded == 0, "board output ends mid-frame");
    hal_host_tx_len = 0;
}

static uint8_t otype(int i)
{
    return out[i].body[0];
}

static uint16_t oseq(int i)
{
    return tabla_get_u16(out[i].body + 1);
}

static const uint8_t *opay(int i)
{
    return out[i].body + TABLA_HEADER_LEN;
}

static int count_type(uint8_t t)
{
    int i, n = 0;
    for (i = 0; i < nout; i++) {
        n += otype(i) == t;
    }
    return n;
}

static void host_send(uint8_t type, uint16_t seq, const uint8_t *payload, uint16_t n)
{
    static uint8_t body[TABLA_MAX_BODY + 8], frame[8300];
    tabla_writer_t w;
    uint16_t len;
    tabla_body_begin(&w, body, sizeof body, type, seq);
    tabla_put_bytes(&w, payload, n);
    len = tabla_body_end(&w);
    len = tabla_frame_encode(body, len, frame, sizeof frame);
    hal_host_receive(frame, len);
}

static void step(uint32_t ms)
{
    hal_host_now += ms;
    tabla_fw_poll(&fw);
}

/* Runs the board for ms milliseconds, polling every millisecond. */
static void run_for(uint32_t ms)
{
    while (ms--) {
        step(1);
    }
}

/* A board past the handshake, output collected. */
static void boot_running(void)
{
    static const uint8_t ack[] = {0, 0, TABLA_T_HELLO};
    hal_host_reset();
    tabla_fw_init(&fw);
    host_send(TABLA_T_ACK, 0, ack, 3);
    step(0);
    collect();
}

static void test_handshake(void)
{
    static const uint8_t ack[] = {0, 0, TABLA_T_HELLO};
    const uint8_t *p;
    hal_host_reset();
    hal_host_cells[3] = 17;
    tabla_fw_init(&fw);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_HELLO && oseq(0) == 0, "first frame: Hello seq 0");
    p = opay(0);
    CHECK(p[0] == 1 && p[1] == 0, "version %u.%u", p[0], p[1]);
    CHECK(tabla_get_u16(p + 2) == (TABLA_AB_IDENTIFY | TABLA_AB_D6 | TABLA_AB_BUTTONS),
          "abilities");
    CHECK(p[4] == 0x1F && tabla_get_u16(p + 5) == 64 && tabla_get_u16(p + 7) == 64, "counts");
    CHECK(tabla_get_u16(p + 9) == TABLA_RX_MAX, "maxrx %u", tabla_get_u16(p + 9));
    CHECK(p[11] == 5 && memcmp(p + 12, "tabla", 5) == 0, "vendor");

    /* Announcing: Hello every second, no events. */
    hal_host_cells[9] = 255;
    run_for(999);
    collect();
    CHECK(nout == 0, "%d frames before the second Hello", nout);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_HELLO && oseq(0) == 1, "second Hello, seq 1");
    run_for(500);
    collect();
    CHECK(nout == 0, "no events or heartbeats before the Ack");

    /* The Ack brings the Snapshot, with the piece placed meanwhile. */
    host_send(TABLA_T_ACK, 0, ack, 3);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_SNAPSHOT && oseq(0) == 2, "Snapshot after the Ack");
    p = opay(0);
    CHECK(p[4] == TABLA_REASON_CONNECT && p[5] == 1 && tabla_get_u16(p + 6) == 64,
          "connect snapshot header");
    CHECK(p[8] == 0x08 && p[9] == 0x02 && p[16] == 17 && p[17] == 255,
          "snapshot bitmap and codes");
    CHECK(out[0].len == TABLA_MIN_BODY + 8 + 8 + 2, "snapshot length %u", out[0].len);

    /* Then heartbeats every second. */
    run_for(999);
    collect();
    CHECK(nout == 0, "early heartbeat");
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_HEARTBEAT && oseq(0) == 3, "heartbeat seq 3");
    CHECK(nout == 1 && tabla_get_u16(opay(0) + 4) >= 90, "scan rate %u",
          tabla_get_u16(opay(0) + 4));

    /* A second Ack(Hello) changes nothing. */
    host_send(TABLA_T_ACK, 1, ack, 3);
    step(1);
    collect();
    CHECK(nout == 0, "a duplicate Ack was answered");
}

static void test_hello_request(void)
{
    static const uint8_t req[] = {1, 0}, ack[] = {3, 0, TABLA_T_HELLO};
    boot_running();
    host_send(TABLA_T_HELLO_REQUEST, 5, req, 2);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_HELLO, "HelloRequest answered with Hello");
    CHECK(!fw.running, "still running after HelloRequest");
    host_send(TABLA_T_ACK, 6, ack, 3);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_SNAPSHOT && opay(0)[4] == TABLA_REASON_CONNECT,
          "Snapshot after the second handshake");
}

static void test_debounce(void)
{
    static const uint8_t cfg1[] = {100, 0, 1, 0xE8, 3, 0, 0, 0, 0, 255};
    int i;
    boot_running();
    /* Default: 3 scans at 100 Hz. */
    hal_host_cells[5] = 255;
    step(10);
    step(10);
    collect();
    CHECK(nout == 0, "change reported after 2 scans");
    step(10);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_CELL_CHANGE, "change after 3 scans");
    CHECK(nout == 1 && tabla_get_u32(opay(0)) == hal_host_now, "change time");
    CHECK(nout == 1 && opay(0)[4] == 1 && tabla_get_u16(opay(0) + 5) == 5 && opay(0)[7] == 255,
          "change contents");

    /* A flicker restarts the count. */
    hal_host_cells[6] = 255;
    step(10);
    step(10);
    hal_host_cells[6] = 0;
    step(10);
    hal_host_cells[6] = 255;
    step(10);
    step(10);
    collect();
    CHECK(nout == 0, "flicker reported");
    step(10);
    collect();
    CHECK(nout == 1, "change after 3 steady scans");

    /* A reading that changes its mind (7, then 9) restarts too. */
    hal_host_cells[7] = 7;
    step(10);
    step(10);
    hal_host_cells[7] = 9;
    step(10);
    step(10);
    collect();
    CHECK(nout == 0, "mixed readings reported");
    step(10);
    collect();
    CHECK(nout == 1 && opay(0)[7] == 9, "code 9 after 3 scans");

    /* Several cells in one scan: one frame, cells in order. */
    hal_host_cells[40] = 3;
    hal_host_cells[2] = 255;
    hal_host_cells[5] = 0;
    for (i = 0; i < 3; i++) {
        step(10);
    }
    collect();
    CHECK(nout == 1 && opay(0)[4] == 3, "one frame of 3 changes");
    CHECK(nout == 1 && tabla_get_u16(opay(0) + 5) == 2 && tabla_get_u16(opay(0) + 8) == 5 &&
              opay(0)[10] == 0 && tabla_get_u16(opay(0) + 11) == 40,
          "changes in cell order");

    /* Debounce 1: the first scan reports. */
    host_send(TABLA_T_CONFIG, 9, cfg1, sizeof cfg1);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK, "config acked");
    hal_host_cells[20] = 255;
    step(10);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_CELL_CHANGE, "debounce 1 reports at once");

    /* No scan before the scan period. */
    {
        unsigned scans = hal_host_scans;
        step(5);
        CHECK(hal_host_scans == scans, "scanned early");
        step(5);
        CHECK(hal_host_scans == scans + 1, "no scan after the period");
    }
}

#ifdef TABLA_HAL_SCAN_SAME
/* A HAL that tells an unchanged scan (hal_scan_same): a quiet board's
 * cells are not read, a changed or still debouncing one's are. */
static void test_scan_same(void)
{
    unsigned reads;
    boot_running();
    step(10);
    collect();
    reads = hal_host_reads;
    step(10);
    step(10);
    CHECK(hal_host_reads == reads, "a quiet board read %u cells", hal_host_reads - reads);
    hal_host_cells[9] = 255;
    step(10);
    CHECK(hal_host_reads == reads + hal_host_board.cells, "a changed board read %u cells, want %u",
          hal_host_reads - reads, hal_host_board.cells);
    /* Unchanged from here, but the count runs for two more scans. */
    step(10);
    step(10);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_CELL_CHANGE && tabla_get_u16(opay(0) + 5) == 9,
          "the change debounced through unchanged scans");
    CHECK(hal_host_reads == reads + 3u * hal_host_board.cells, "%u cells read while debouncing",
          hal_host_reads - reads);
    step(10);
    CHECK(hal_host_reads == reads + 3u * hal_host_board.cells, "quiet again, %u cells read",
          hal_host_reads - reads);
    /* A flicker that returns to the reported value within one scan. */
    hal_host_cells[9] = 0;
    step(10);
    hal_host_cells[9] = 255;
    step(10);
    step(10);
    step(10);
    collect();
    CHECK(nout == 0, "a one-scan flicker reported");
}
#endif

static void test_many_changes(void)
{
    int i, total = 0;
    boot_running();
    hal_host_board.cells = TABLA_MAX_CELLS;
    for (i = 0; i < TABLA_MAX_CELLS; i++) {
        hal_host_cells[i] = 255;
    }
    for (i = 0; i < 3; i++) {
        step(10);
    }
    collect();
    for (i = 0; i < nout; i++) {
        CHECK(otype(i) == TABLA_T_CELL_CHANGE, "frame %d type %u", i, otype(i));
        CHECK(i == 0 || oseq(i) == (uint16_t)(oseq(i - 1) + 1), "seq gap at frame %d", i);
        total += opay(i)[4];
    }
    CHECK(total == TABLA_MAX_CELLS, "%d changes reported, want %u", total, TABLA_MAX_CELLS);
    CHECK(nout == (int)((TABLA_MAX_CELLS + TABLA_CHANGE_BATCH - 1) / TABLA_CHANGE_BATCH),
          "%d frames", nout);
}

/* Cell indexes past 8 bits: 255, 256 and 840 (RAY's last of 841) changed
 * in one scan are reported as themselves, in one CellChange, and each
 * reads its own sensor (a cell 256 that read cell 0's would report
 * nothing here, cell 0 being empty). */
static void test_cell_index(void)
{
    static const uint16_t cells[] = {255, 256, 840};
    int i, k;
    boot_running();
    hal_host_board.cells = 841;
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 3; i++) {
            hal_host_cells[cells[i]] = (uint8_t)(k == 0 ? 7 + i : 0);
        }
        step(10);
        step(10);
        step(10);
        collect();
        CHECK(nout == 1 && otype(0) == TABLA_T_CELL_CHANGE, "%d frames for cells 255, 256, 840", nout);
        if (nout != 1) {
            return;
        }
        CHECK(opay(0)[4] == 3, "%u changes, want 3", opay(0)[4]);
        for (i = 0; i < 3 && i < opay(0)[4]; i++) {
            uint16_t c = tabla_get_u16(opay(0) + 5 + 3 * i);
            uint8_t code = opay(0)[7 + 3 * i];
            CHECK(c == cells[i] && code == (uint8_t)(k == 0 ? 7 + i : 0),
                  "change %d: cell %u code %u, want cell %u code %u", i, c, code, cells[i],
                  k == 0 ? 7 + i : 0);
        }
    }
}

static void test_sequence_wrap(void)
{
    boot_running();
    fw.seq = 65534;
    step(1000);
    step(1000);
    step(1000);
    collect();
    CHECK(nout == 3, "%d heartbeats", nout);
    CHECK(nout == 3 && oseq(0) == 65534 && oseq(1) == 65535 && oseq(2) == 0,
          "sequence %u %u %u", oseq(0), oseq(1), oseq(2));
}

static void test_snapshots(void)
{
    /* snapshot every 2 s, heartbeat off */
    static const uint8_t cfg[] = {100, 0, 3, 0, 0, 0xD0, 0x07, 0, 0, 255};
    boot_running();
    hal_host_cells[63] = 200;
    run_for(30);
    collect();
    host_send(TABLA_T_SNAPSHOT_REQUEST, 2, 0, 0);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_SNAPSHOT, "requested snapshot");
    CHECK(nout == 1 && opay(0)[4] == TABLA_REASON_REQUEST && opay(0)[15] == 0x80 &&
              opay(0)[16] == 200,
          "requested snapshot contents");

    host_send(TABLA_T_CONFIG, 3, cfg, sizeof cfg);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK, "config acked");
    run_for(4000);
    collect();
    CHECK(nout == 2 && otype(0) == TABLA_T_SNAPSHOT && otype(1) == TABLA_T_SNAPSHOT,
          "%d frames in 4 s, want 2 periodic snapshots and no heartbeat", nout);
    CHECK(nout == 2 && opay(0)[4] == TABLA_REASON_PERIODIC, "periodic reason");

    /* Presence-only board: no codes. */
    boot_running();
    hal_host_board.abilities = 0;
    hal_host_cells[0] = 255;
    run_for(30);
    collect();
    host_send(TABLA_T_SNAPSHOT_REQUEST, 2, 0, 0);
    step(1);
    collect();
    CHECK(nout == 1 && opay(0)[5] == 0 && out[0].len == TABLA_MIN_BODY + 8 + 8,
          "presence-only snapshot");
}

static void test_leds(void)
{
    uint8_t p[4 + 3 * 64];
    int i;
    boot_running();
    /* Partial frame: LEDs 2..4. */
    p[0] = 2;
    p[1] = 0;
    p[2] = 3;
    p[3] = 0;
    for (i = 0; i < 9; i++) {
        p[4 + i] = (uint8_t)(10 + i);
    }
    host_send(TABLA_T_LED_FRAME, 11, p, 13);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK && tabla_get_u16(opay(0)) == 11 &&
              opay(0)[2] == TABLA_T_LED_FRAME,
          "LED frame acked");
    CHECK(hal_host_leds[2][0] == 10 && hal_host_leds[3][1] == 14 && hal_host_leds[4][2] == 18 &&
              hal_host_leds[1][0] == 0 && hal_host_leds[5][0] == 0,
          "partial frame applied");

    /* Whole frame. */
    p[0] = 0;
    p[2] = 64;
    for (i = 0; i < 3 * 64; i++) {
        p[4 + i] = (uint8_t)(i + 1);
    }
    host_send(TABLA_T_LED_FRAME, 12, p, sizeof p);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK, "whole frame acked");
    CHECK(hal_host_leds[63][2] == 192 && hal_host_leds[0][0] == 1, "whole frame applied");

    /* Beyond the board's 64 LEDs: error, nothing applied. */
    p[0] = 60;
    p[2] = 5;
    p[4] = 99;
    host_send(TABLA_T_LED_FRAME, 13, p, 4 + 15);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_OUT_OF_RANGE &&
              tabla_get_u16(opay(0) + 1) == 13 && opay(0)[3] == TABLA_T_LED_FRAME &&
              tabla_get_u16(opay(0) + 4) == 64,
          "out of range error");
    CHECK(hal_host_leds[60][0] != 99, "out-of-range frame applied");

    /* Truncated frame: bad payload. */
    p[0] = 0;
    p[2] = 10;
    host_send(TABLA_T_LED_FRAME, 14, p, 4 + 6);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_BAD_PAYLOAD,
          "truncated LED frame");
}

static void test_led_set_blink(void)
{
    /* orange, blink 25 (500 ms), cells 3 and 10..11 */
    static const uint8_t set[] = {255, 128, 0, 25, 2, 3, 0, 1, 0, 10, 0, 2, 0};
    static const uint8_t bad[] = {1, 1, 1, 0, 2, 0, 0, 1, 0, 63, 0, 2, 0};
    static const uint8_t clear[] = {0, 0, 0, 0, 1, 0, 0, 64, 0};
    unsigned shows;
    boot_running();
    hal_host_now = 1000000 - 1; /* then a multiple of 500: phase on */
    step(0);
    collect(); /* the heartbeat this jump made due */
    host_send(TABLA_T_LED_SET, 20, set, sizeof set);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK, "LEDSet acked");
    CHECK(tabla_fw_led(&fw, 10).blink == 25 && tabla_fw_led(&fw, 11).r == 255 &&
              tabla_fw_led(&fw, 12).r == 0,
          "LEDSet applied");
    CHECK(hal_host_leds[3][0] == 255 && hal_host_leds[3][1] == 128, "on in the first half");
    shows = hal_host_shows;
    run_for(249);
    CHECK(hal_host_shows == shows, "re-driven %u times without a change",
          hal_host_shows - shows);
    run_for(1);
    CHECK(hal_host_leds[3][0] == 0 && hal_host_leds[11][0] == 0, "off in the second half");
    CHECK(hal_host_shows == shows + 1, "one re-drive at the phase change");
    run_for(250);
    CHECK(hal_host_leds[10][0] == 255, "on again");
    collect();

    host_send(TABLA_T_LED_SET, 21, bad, sizeof bad);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_OUT_OF_RANGE,
          "LEDSet past the end refused");
    CHECK(tabla_fw_led(&fw, 0).r == 0, "refused LEDSet partly applied");

    host_send(TABLA_T_LED_SET, 22, clear, sizeof clear);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ACK && tabla_fw_led(&fw, 10).blink == 0 &&
              hal_host_leds[10][0] == 0,
          "clear all");
}

static void test_config(void)
{
    /* 5000 Hz, debounce 2, heartbeat 10 ms, snapshot 10 ms, brightness 127 */
    static const uint8_t cfg[] = {0x88, 0x13, 2, 10, 0, 10, 0, 0, 0, 127};
    static const uint8_t zero[] = {100, 0, 0, 0, 0, 0, 0, 0, 0, 255};
    static const uint8_t led[] = {0, 0, 1, 0, 200, 100, 2};
    boot_running();
    host_send(TABLA_T_LED_FRAME, 1, led, sizeof led);
    step(1);
    host_send(TABLA_T_CONFIG, 2, cfg, sizeof cfg);
    step(1);
    collect();
    CHECK(nout == 2 && otype(1) == TABLA_T_ACK && tabla_get_u16(opay(1)) == 2, "config acked");
    CHECK(fw.cfg.scan_hz == TABLA_MAX_SCAN_HZ && fw.cfg.debounce == 2 &&
              fw.cfg.heartbeat_ms == TABLA_MIN_HEARTBEAT_MS &&
              fw.cfg.snapshot_ms == TABLA_MIN_SNAPSHOT_MS && fw.cfg.brightness == 127,
          "clamped config");
    CHECK(hal_host_leds[0][0] == 100 && hal_host_leds[0][1] == 50 && hal_host_leds[0][2] == 1,
          "brightness scaling: %u %u %u", hal_host_leds[0][0], hal_host_leds[0][1],
          hal_host_leds[0][2]);
    run_for(1000);
    CHECK(fw.scan_rate >= 900, "scan rate %u at 1000 Hz", fw.scan_rate);

    host_send(TABLA_T_CONFIG, 3, zero, sizeof zero);
    step(1);
    collect();
    CHECK(nout >= 1 && otype(nout - 1) == TABLA_T_ERROR && opay(nout - 1)[0] == TABLA_E_BAD_PAYLOAD &&
              tabla_get_u16(opay(nout - 1) + 1) == 3 && opay(nout - 1)[3] == TABLA_T_CONFIG,
          "debounce 0 refused");
}

static void test_bad_host_frames(void)
{
    static const uint8_t garbage[] = {0x13, 0x37, 0x00};
    static const uint8_t payload[] = {1, 2, 3};
    uint8_t body[16], frame[32];
    uint16_t n;
    tabla_writer_t w;
    boot_running();

    host_send(0x7E, 40, payload, 3);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_UNKNOWN_TYPE &&
              tabla_get_u16(opay(0) + 1) == 40 && opay(0)[3] == 0x7E &&
              tabla_get_u16(opay(0) + 4) == 0x7E,
          "unknown type");

    host_send(TABLA_T_CELL_CHANGE, 41, payload, 3);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_UNKNOWN_TYPE,
          "board type from the host");

    hal_host_receive(garbage, sizeof garbage);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_BAD_FRAME &&
              tabla_get_u16(opay(0) + 4) == TABLA_BAD_COBS && opay(0)[3] == 0,
          "garbage: bad frame, COBS");

    tabla_body_begin(&w, body, sizeof body, TABLA_T_SNAPSHOT_REQUEST, 42);
    n = tabla_body_end(&w);
    body[1] ^= 1;
    n = tabla_frame_encode(body, n, frame, sizeof frame);
    hal_host_receive(frame, n);
    step(1);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ERROR && opay(0)[0] == TABLA_E_BAD_FRAME &&
              tabla_get_u16(opay(0) + 4) == TABLA_BAD_CRC,
          "bad CRC");

    /* Longer than maxrx. */
    {
        static uint8_t big[TABLA_RX_MAX + 16];
        memset(big, 7, sizeof big);
        host_send(TABLA_T_LED_FRAME, 43, big, (uint16_t)sizeof big);
        step(1);
        collect();
        CHECK(nout == 1 && otype(0) == TABLA_T_ERROR &&
                  tabla_get_u16(opay(0) + 4) == TABLA_BAD_TOO_LONG,
              "too long for maxrx");
    }

    /* Unknown trailing bytes are ignored (newer minor). */
    {
        static const uint8_t longer[] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0xAA, 0xBB};
        host_send(TABLA_T_LED_SET, 44, longer, sizeof longer);
        step(1);
        collect();
        CHECK(nout == 1 && otype(0) == TABLA_T_ACK, "trailing bytes refused");
    }

    /* The errors show in the heartbeat: garbage, CRC, too long. */
    run_for(1000);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_HEARTBEAT && tabla_get_u16(opay(0) + 6) == 3,
          "rx errors %u", nout ? tabla_get_u16(opay(0) + 6) : 0);
}

static void press_button(uint8_t bit)
{
    hal_host_buttons = bit;
    run_for(40);
    hal_host_buttons = 0;
    run_for(40);
}

static void test_buttons_and_die(void)
{
    int hist[7] = {0}, i, k, frames = 0;
    boot_running();
    hal_host_seed(12345);
    press_button(1u << (TABLA_BTN_HINT - 1));
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_BUTTON && opay(0)[4] == TABLA_BTN_HINT,
          "hint button");

    /* Held buttons repeat nothing; a bounce shorter than the debounce is ignored. */
    hal_host_buttons = 1u << (TABLA_BTN_CONFIRM - 1);
    run_for(500);
    hal_host_buttons = 0;
    step(10);
    hal_host_buttons = 1u << (TABLA_BTN_CONFIRM - 1);
    run_for(100);
    hal_host_buttons = 0;
    run_for(100);
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_BUTTON && opay(0)[4] == TABLA_BTN_CONFIRM,
          "%d events for one held, bouncing press", nout);

    /* Roll: a d6, fair. */
    for (k = 0; k < 600; k++) {
        press_button(1u << (TABLA_BTN_ROLL - 1));
        collect();
        for (i = 0; i < nout; i++) {
            if (otype(i) == TABLA_T_ROLL) {
                CHECK(opay(i)[4] == TABLA_DIE_D6 && opay(i)[5] >= 1 && opay(i)[5] <= 6,
                      "d6 value %u", opay(i)[5]);
                if (opay(i)[5] >= 1 && opay(i)[5] <= 6) {
                    hist[opay(i)[5]]++;
                }
                frames++;
            } else {
                CHECK(otype(i) == TABLA_T_HEARTBEAT, "unexpected frame type %u", otype(i));
            }
        }
    }
    CHECK(frames == 600, "%d rolls for 600 presses", frames);
    for (i = 1; i <= 6; i++) {
        CHECK(hist[i] > 60 && hist[i] < 140, "face %d came %d times in 600", i, hist[i]);
    }

    /* NSEW die. */
    hal_host_board.abilities = TABLA_AB_NSEW | TABLA_AB_BUTTONS;
    press_button(1u << (TABLA_BTN_ROLL - 1));
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_ROLL && opay(0)[4] == TABLA_DIE_NSEW &&
              opay(0)[5] >= 1 && opay(0)[5] <= 4,
          "nsew roll");

    /* No die: the roll button is a button. */
    hal_host_board.abilities = TABLA_AB_BUTTONS;
    press_button(1u << (TABLA_BTN_ROLL - 1));
    collect();
    CHECK(nout == 1 && otype(0) == TABLA_T_BUTTON && opay(0)[4] == TABLA_BTN_ROLL,
          "roll without a die");

    /* A button the board does not have is ignored. */
    hal_host_board.buttons = 0x01;
    press_button(1u << (TABLA_BTN_NEW - 1));
    collect();
    CHECK(count_type(TABLA_T_BUTTON) == 0, "absent button reported");
}

static void test_random_below(void)
{
    int hist[3] = {0}, i;
    hal_host_seed(99);
    for (i = 0; i < 3000; i++) {
        uint32_t r = tabla_random_below(3);
        CHECK(r < 3, "out of range %lu", (unsigned long)r);
        if (r < 3) {
            hist[r]++;
        }
    }
    for (i = 0; i < 3; i++) {
        CHECK(hist[i] > 850 && hist[i] < 1150, "value %d: %d of 3000", i, hist[i]);
    }
    CHECK(tabla_random_below(1) == 0, "n = 1");
}

int main(int argc, char **argv)
{
    const char *vectors = argc > 1 ? argv[1] : "../testdata/vectors.txt";
    run("crc", test_crc);
    run("cobs", test_cobs);
    run("rx resync", test_rx_resync);
    test_vectors_file(vectors);
    run("handshake", test_handshake);
    run("hello request", test_hello_request);
    run("debounce", test_debounce);
#ifdef TABLA_HAL_SCAN_SAME
    run("scan same", test_scan_same);
#endif
    run("many changes", test_many_changes);
    run("cell index", test_cell_index);
    run("sequence wrap", test_sequence_wrap);
    run("snapshots", test_snapshots);
    run("led frames", test_leds);
    run("led set and blink", test_led_set_blink);
    run("config", test_config);
    run("bad host frames", test_bad_host_frames);
    run("buttons and die", test_buttons_and_die);
    run("random below", test_random_below);
    printf("%d passed, %d failed\n", tests_passed, tests_failed);
    return tests_failed ? 1 : 0;
}
