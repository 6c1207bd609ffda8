/* hal.h for unit tests on the build machine. See hal_host.h. */
#include "hal_host.h"

#include <string.h>

hal_board_t hal_host_board;
uint8_t hal_host_cells[TABLA_MAX_CELLS];
uint8_t hal_host_buttons;
uint32_t hal_host_now;
uint8_t hal_host_leds[TABLA_MAX_LEDS][3];
unsigned hal_host_shows;
unsigned hal_host_scans;
unsigned hal_host_reads;
uint8_t hal_host_tx[HAL_HOST_TX_CAP];
size_t hal_host_tx_len;

static uint8_t rx_queue[65536];
static size_t rx_head, rx_tail;
static uint32_t rng = 1;
#ifdef TABLA_HAL_SCAN_SAME
static uint8_t last_cells[TABLA_MAX_CELLS], have_last, same;
#endif

void hal_host_reset(void)
{
    hal_host_board.cells = 64;
    hal_host_board.leds = 64;
    hal_host_board.abilities = TABLA_AB_IDENTIFY | TABLA_AB_D6 | TABLA_AB_BUTTONS;
    hal_host_board.buttons = 0x1F;
    hal_host_board.vendor = "tabla";
    hal_host_board.model = "host test";
    hal_host_board.serial = "T-1";
    hal_host_board.firmware = "1.0.0";
    memset(hal_host_cells, 0, sizeof hal_host_cells);
    hal_host_buttons = 0;
    hal_host_now = 0;
    memset(hal_host_leds, 0, sizeof hal_host_leds);
    hal_host_shows = 0;
    hal_host_scans = 0;
    hal_host_reads = 0;
#ifdef TABLA_HAL_SCAN_SAME
    have_last = same = 0;
#endif
    hal_host_tx_len = 0;
    rx_head = rx_tail = 0;
    rng = 1;
}

void hal_host_receive(const uint8_t *p, size_t n)
{
    while (n-- && rx_tail < sizeof rx_queue) {
        rx_queue[rx_tail++] = *p++;
    }
}

void hal_host_seed(uint32_t seed)
{
    rng = seed ? seed : 1;
}

void hal_init(void)
{
}

const hal_board_t *hal_board(void)
{
    return &hal_host_board;
}

void hal_scan_begin(void)
{
    hal_host_scans++;
#ifdef TABLA_HAL_SCAN_SAME
    same = have_last && memcmp(last_cells, hal_host_cells, sizeof last_cells) == 0;
    memcpy(last_cells, hal_host_cells, sizeof last_cells);
    have_last = 1;
#endif
}

#ifdef TABLA_HAL_SCAN_SAME
uint8_t hal_scan_same(void)
{
    return same;
}
#endif

uint8_t hal_read_cell(uint16_t cell)
{
    hal_host_reads++;
    return cell < TABLA_MAX_CELLS ? hal_host_cells[cell] : 0;
}

uint8_t hal_read_buttons(void)
{
    return hal_host_buttons;
}

void hal_led_show(const uint8_t *idx, uint8_t bits, uint16_t n, const uint8_t *palette)
{
    uint16_t i;
    memset(hal_host_leds, 0, sizeof hal_host_leds);
    for (i = 0; i < n && i < TABLA_MAX_LEDS; i++) {
        uint8_t k = bits == 8 ? idx[i] : (uint8_t)((idx[i / 2u] >> (4u * (i & 1u))) & 0x0Fu);
        memcpy(hal_host_leds[i], palette + 3u * k, 3);
    }
    hal_host_shows++;
}

uint32_t hal_millis(void)
{
    return hal_host_now;
}

void hal_uart_write(uint8_t byte)
{
    if (hal_host_tx_len < HAL_HOST_TX_CAP) {
        hal_host_tx[hal_host_tx_len++] = byte;
    }
}

int hal_uart_read(void)
{
    if (rx_head == rx_tail) {
        return -1;
    }
    return rx_queue[rx_head++];
}

void hal_idle(void)
{
}

uint32_t hal_random(void)
{
    /* xorshift32 (Marsaglia 2003). */
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
