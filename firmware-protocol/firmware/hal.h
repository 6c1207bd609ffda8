/*
 * Hardware abstraction for the tabla reference firmware. Everything the
 * board logic (tabla_fw.c) needs from the hardware is here; hal_host.c
 * implements it for unit tests, hal_avr.c for an ATmega328P.
 */
#ifndef TABLA_HAL_H
#define TABLA_HAL_H

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

/* Called before each sensor scan (lets a matrix driver cache a row). */
void hal_scan_begin(void);
/* Raw reading of one cell: 0 empty, 1..254 piece code, 255 occupied. */
uint8_t hal_read_cell(uint16_t cell);
/* Raw button state: bit (id - 1) set while button id is held. */
uint8_t hal_read_buttons(void);

/* Stage one LED's colour; hal_led_show sends all staged colours out. */
void hal_led_set(uint16_t led, uint8_t r, uint8_t g, uint8_t b);
void hal_led_show(void);

/* Milliseconds since start, wrapping at 2^32. */
uint32_t hal_millis(void);

/* Blocking write of one byte to the host. */
void hal_uart_write(uint8_t byte);
/* Next received byte, or -1 if none is waiting. */
int hal_uart_read(void);

/* 32 random bits (need not be cryptographic, must not repeat per boot). */
uint32_t hal_random(void);

#endif /* TABLA_HAL_H */
