/*
 * Host tool of the RP2040 build.
 *
 *   tool boot2 IN.bin OUT.bin   pads the second-stage boot loader to 252
 *                               bytes and appends the CRC32 the boot ROM
 *                               checks (polynomial 0x04c11db7, initial
 *                               0xffffffff, no reflection, no final xor),
 *                               little-endian: 256 bytes
 *   tool uf2 IN.bin OUT.uf2     the flash image (from 0x10000000) as UF2,
 *                               the file the Pico's BOOTSEL drive takes
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t buf[4u << 20];

static size_t load(const char *path)
{
    size_t n;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    n = fread(buf, 1, sizeof buf, f);
    if (!feof(f)) {
        fprintf(stderr, "%s: larger than %zu bytes\n", path, sizeof buf);
        exit(1);
    }
    fclose(f);
    return n;
}

static void save(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static uint32_t crc32_boot2(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        crc ^= (uint32_t)p[i] << 24;
        for (k = 0; k < 8; k++) {
            crc = crc & 0x80000000u ? (crc << 1) ^ 0x04c11db7u : crc << 1;
        }
    }
    return crc;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

int main(int argc, char **argv)
{
    size_t n;
    if (argc == 4 && strcmp(argv[1], "boot2") == 0) {
        n = load(argv[2]);
        if (n > 252) {
            fprintf(stderr, "%s: %zu bytes, the boot loader must fit 252\n", argv[2], n);
            return 1;
        }
        memset(buf + n, 0, 252 - n);
        put32(buf + 252, crc32_boot2(buf, 252));
        save(argv[3], buf, 256);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "uf2") == 0) {
        size_t blocks, b;
        uint8_t *out;
        n = load(argv[2]);
        blocks = (n + 255) / 256;
        out = calloc(blocks, 512);
        if (out == NULL) {
            return 1;
        }
        for (b = 0; b < blocks; b++) {
            uint8_t *blk = out + 512 * b;
            size_t len = n - 256 * b < 256 ? n - 256 * b : 256;
            put32(blk + 0, 0x0a324655u);               /* magic 0 */
            put32(blk + 4, 0x9e5d5157u);               /* magic 1 */
            put32(blk + 8, 0x00002000u);               /* family ID present */
            put32(blk + 12, 0x10000000u + 256u * (uint32_t)b);
            put32(blk + 16, 256);                      /* payload bytes */
            put32(blk + 20, (uint32_t)b);
            put32(blk + 24, (uint32_t)blocks);
            put32(blk + 28, 0xe48bff56u);              /* RP2040 family */
            memcpy(blk + 32, buf + 256 * b, len);
            put32(blk + 508, 0x0ab16f30u);             /* final magic */
        }
        save(argv[3], out, 512 * blocks);
        free(out);
        return 0;
    }
    fprintf(stderr, "usage: tool boot2 IN.bin OUT.bin | tool uf2 IN.bin OUT.uf2\n");
    return 2;
}
