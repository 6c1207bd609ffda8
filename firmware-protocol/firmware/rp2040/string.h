/*
 * The part of <string.h> the firmware uses, for the RP2040 build, which
 * links no C library (rp2040/libc.c implements these). Only the RP2040
 * build puts this directory on its include path.
 */
#ifndef TABLA_RP2040_STRING_H
#define TABLA_RP2040_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

#endif
