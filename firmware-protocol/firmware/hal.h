/*
 * Hardware abstraction for the tabla reference firmware. Everything the
 * board logic (tabla_fw.c) needs from the hardware is here; hal_host.c
 * implements it for unit tests, hal_avr.c for the 8x8 ATmega328P board,
 * hal_165.c for boards built from a board file (74HC165 sensor chain).
 */
#ifndef TABLA_HAL_H
#define TABLA_HAL_H

/* The Arduino IDE has no -include: the sketch's generated tabla_board.h
 * (../arduino/tabla) comes in here, before anything uses it. */
#if defined(ARDUINO) && !defined(TABLA_BOARD_H)
#include "tabla_board.h"
#endif

#include <stdint.h>

/* What the board is: fixed at build time on real hardware. */
typedef struct {
    uint16_t cells;     /* sensor cells, at most TABLA_MAX_CELLS */
    uint16_t leds;      /* RGB LEDs, at most TABLA_MAX_LEDS */
    uint16_t abilities; /* TABLA_AB_* */
    uint8_t buttons;    /* bit (id - 1) per TABLA_BTN_* present */
    const char *vendor, *model, *serial, *firmware;
} hal_board_t;

void hal_init(void);
const hal_board_t *hal_board(void);

/* Called before each sensor scan (lets a matrix driver cache a row, a
 * shift-register chain latch its inputs). tabla_fw then reads cells 0, 1,
 * ... in order. */
void hal_scan_begin(void);
#ifdef TABLA_HAL_SCAN_SAME
/* Optional, for a HAL that reads the whole sensor chain in hal_scan_begin
 * and so can tell cheaply (built with -DTABLA_HAL_SCAN_SAME: hal_rp2040.c,
 * hal_host.c): nonzero when every cell of the scan just begun reads as it
 * did in the previous one, 0 when any may differ. tabla_fw then skips the
 * cells of a quiet board (no debounce running) whose readings did not
 * change, instead of comparing each with its reported value. */
uint8_t hal_scan_same(void);
#endif
/* Raw reading of one cell. With TABLA_CODE_BITS 8 the wire code: 0 empty,
 * 1..254 piece code, 255 occupied; with fewer bits a sensor value below
 * 2^TABLA_CODE_BITS that tabla_code_of turns into the wire code. */
uint8_t hal_read_cell(uint16_t cell);
/* Raw button state: bit (id - 1) set while button id is held. */
uint8_t hal_read_buttons(void);

/* Drives the LED strip: LED i (0 <= i < n) shows palette entry k, where k
 * is field i of idx, `bits` (4 or 8) wide, fields packed from the low bits
 * of each byte up; palette holds 3 bytes (r, g, b) per entry. */
void hal_led_show(const uint8_t *idx, uint8_t bits, uint16_t n, const uint8_t *palette);

/* Milliseconds since start, wrapping at 2^32. */
uint32_t hal_millis(void);

/* Blocking write of one byte to the host. */
void hal_uart_write(uint8_t byte);
/* Next received byte, or -1 if none is waiting. */
int hal_uart_read(void);

/* 32 random bits (need not be cryptographic, must not repeat per boot). */
uint32_t hal_random(void);

/* Waits for the next interrupt when nothing is pending (a low-power idle
 * between main-loop passes); may return at once. Optional: only the mains
 * that call it need it. */
void hal_idle(void);

#endif /* TABLA_HAL_H */
