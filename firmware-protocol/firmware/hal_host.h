/*
 * Test double for hal.h: the hardware is plain variables that tests set
 * and inspect. Not thread-safe; one board per process.
 */
#ifndef TABLA_HAL_HOST_H
#define TABLA_HAL_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "hal.h"
#include "tabla_fw.h"

extern hal_board_t hal_host_board;                /* what hal_board() returns */
extern uint8_t hal_host_cells[TABLA_MAX_CELLS];   /* raw sensor readings */
extern uint8_t hal_host_buttons;                  /* raw button bits */
extern uint32_t hal_host_now;                     /* hal_millis() */
extern uint8_t hal_host_leds[TABLA_MAX_LEDS][3];  /* last colours shown */
extern unsigned hal_host_shows;                   /* hal_led_show() calls */
extern unsigned hal_host_scans;                   /* hal_scan_begin() calls */
extern unsigned hal_host_reads;                   /* hal_read_cell() calls */

#define HAL_HOST_TX_CAP 65536u
extern uint8_t hal_host_tx[HAL_HOST_TX_CAP]; /* bytes the board wrote */
extern size_t hal_host_tx_len;

/* Resets every variable above to a default 8x8 board with all abilities. */
void hal_host_reset(void);
/* Queues bytes for hal_uart_read. */
void hal_host_receive(const uint8_t *p, size_t n);
/* Seeds hal_random (xorshift32; 0 is replaced by 1). */
void hal_host_seed(uint32_t seed);

#endif /* TABLA_HAL_HOST_H */
