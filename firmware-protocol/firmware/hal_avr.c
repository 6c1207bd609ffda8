/*
 * hal.h for an ATmega328P at 16 MHz (Arduino Uno / Nano class): a reference
 * 8x8 board with reed-switch sensors, 64 WS2812 LEDs, a d6 and five buttons.
 *
 * Pin use (Arduino names in brackets):
 *
 *   PD0, PD1  [D0, D1]   UART RXD/TXD to the host, 8N1 at BAUD (115200).
 *   PC0..PC2  [A0..A2]   row address A/B/C of a 74HC138 3-to-8 decoder
 *                        (G1 high, G2A/G2B low). Its active-low output Yr
 *                        drives sensor row r.
 *   PD2..PD7  [D2..D7]   sensor columns 0..5, inputs with pull-ups.
 *   PB0, PB1  [D8, D9]   sensor columns 6, 7, inputs with pull-ups.
 *                        Cell i = row (i / 8), column (i % 8). Each cell is
 *                        a reed switch in series with a diode (anode on the
 *                        column, cathode on the row line) so that several
 *                        pieces cannot ghost: a piece on the selected row
 *                        pulls its column low. Presence only: 255 or 0.
 *   PB2       [D10]      WS2812B data in (through ~330 ohm); LED i beside
 *                        cell i, chained in cell order.
 *   PB3       [D11]      roll button      \
 *   PB4       [D12]      takeback button   |  to GND, internal pull-ups
 *   PC3       [A3]       hint button       |  (PB3/PB4 are also ISP
 *   PC4       [A4]       confirm button    |  MOSI/MISO: do not hold them
 *   PC5       [A5]       new-game button  /   while programming)
 *   PB5       [D13]      unused (the Arduino's own LED)
 *
 * Timer0 gives the 1 kHz millisecond tick. Timer1 runs free at the CPU
 * clock; its count at the moment a player presses roll seeds the die, with
 * the power-up contents of an uninitialised RAM word.
 *
 * Driving the LEDs disables interrupts for 30 us per LED (1.9 ms for 64):
 * a host byte arriving then can be lost, and the host resends the frame
 * after the board's bad-frame Error. The firmware avoids re-driving the
 * strip while a frame is arriving.
 */
#include "hal.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#define BAUD_TOL 3 /* 115200 from 16 MHz is 2.1 % off; UARTs tolerate it */
#include <util/delay.h>
#include <util/setbaud.h>

#include "tabla_fw.h"
#include "tabla_proto.h"

#ifndef TABLA_SERIAL
#define TABLA_SERIAL "328P-0001"
#endif

#define BOARD_CELLS 64u
#define BOARD_LEDS 64u

#if TABLA_MAX_CELLS < BOARD_CELLS || TABLA_MAX_LEDS < BOARD_LEDS
#error "build the AVR board with TABLA_MAX_CELLS=64 and TABLA_MAX_LEDS=64"
#endif

static const hal_board_t board = {
    BOARD_CELLS,
    BOARD_LEDS,
    TABLA_AB_D6 | TABLA_AB_BUTTONS,
    0x1F, /* all five buttons */
    "tabla",
    "ref-328p 8x8",
    TABLA_SERIAL,
    "1.0.0",
};

/* ---- Time ---- */

static volatile uint32_t ticks;

ISR(TIMER0_COMPA_vect)
{
    ticks++;
}

uint32_t hal_millis(void)
{
    uint32_t t;
    uint8_t s = SREG;
    cli();
    t = ticks;
    SREG = s;
    return t;
}

/* ---- UART ---- */

#define RX_RING 64u /* a power of two */
static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head, rx_tail;

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_RING - 1u));
    if (next != rx_tail) { /* else drop: the frame fails its CRC */
        rx_ring[rx_head] = b;
        rx_head = next;
    }
}

int hal_uart_read(void)
{
    uint8_t b;
    if (rx_tail == rx_head) {
        return -1;
    }
    b = rx_ring[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1u) & (RX_RING - 1u));
    return b;
}

void hal_uart_write(uint8_t byte)
{
    while (!(UCSR0A & _BV(UDRE0))) {
    }
    UDR0 = byte;
}

/* ---- Sensors and buttons ---- */

static int8_t cached_row = -1;
static uint8_t cached_cols; /* bit c set: column c reads a piece */

void hal_scan_begin(void)
{
    cached_row = -1;
}

uint8_t hal_read_cell(uint16_t cell)
{
    int8_t row = (int8_t)(cell >> 3);
    if (cell >= BOARD_CELLS) {
        return 0;
    }
    if (row != cached_row) {
        PORTC = (uint8_t)((PORTC & ~0x07u) | (uint8_t)row);
        _delay_us(5); /* decoder and pull-up settling */
        cached_cols = (uint8_t)~(((PIND >> 2) & 0x3Fu) | ((PINB & 0x03u) << 6));
        cached_row = row;
    }
    return (cached_cols & (1u << (cell & 7u))) ? 255u : 0u;
}

uint8_t hal_read_buttons(void)
{
    uint8_t b = 0;
    if (!(PINB & _BV(PB3))) {
        b |= 1u << (TABLA_BTN_ROLL - 1);
    }
    if (!(PINB & _BV(PB4))) {
        b |= 1u << (TABLA_BTN_TAKEBACK - 1);
    }
    if (!(PINC & _BV(PC3))) {
        b |= 1u << (TABLA_BTN_HINT - 1);
    }
    if (!(PINC & _BV(PC4))) {
        b |= 1u << (TABLA_BTN_CONFIRM - 1);
    }
    if (!(PINC & _BV(PC5))) {
        b |= 1u << (TABLA_BTN_NEW - 1);
    }
    return b;
}

/* ---- WS2812B LEDs ---- */

/*
 * Bit-banged WS2812B at 16 MHz: each bit is 20 cycles (1.25 us); a 0 bit is
 * high for 6 cycles (375 ns), a 1 bit for 12 (750 ns). The cycle counts are
 * in the comments; interrupts are off for the whole strip.
 */
static inline void ws2812_byte(uint8_t byte, uint8_t hi, uint8_t lo)
{
    uint8_t bits;
    __asm__ __volatile__(
        "ldi  %[bits], 8\n\t"
        "1:\n\t"
        "out  %[port], %[hi]\n\t" /* 1  rising edge */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "sbrs %[byte], 7\n\t"     /* 1, or 2 when it skips (a 1 bit) */
        "out  %[port], %[lo]\n\t" /* 1  a 0 bit falls: 6 cycles high */
        "lsl  %[byte]\n\t"        /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "out  %[port], %[lo]\n\t" /* 1  a 1 bit falls: 12 cycles high */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "nop\n\t"                 /* 1 */
        "dec  %[bits]\n\t"        /* 1 */
        "brne 1b\n\t"             /* 2  20 cycles per bit */
        : [bits] "=&d"(bits), [byte] "+r"(byte)
        : [port] "I"(_SFR_IO_ADDR(PORTB)), [hi] "r"(hi), [lo] "r"(lo));
}

/* Each LED's colour is looked up in the palette between LEDs (a few cycles
 * of low line, far below the latch time). The line then stays low: the
 * strip latches after 280 us, long before the next show. */
void hal_led_show(const uint8_t *idx, uint8_t bits, uint16_t n, const uint8_t *palette)
{
    uint8_t hi = (uint8_t)(PORTB | _BV(PB2));
    uint8_t lo = (uint8_t)(PORTB & (uint8_t)~_BV(PB2));
    uint8_t sreg = SREG;
    uint16_t i;
    if (n > BOARD_LEDS) {
        n = BOARD_LEDS;
    }
    cli();
    for (i = 0; i < n; i++) {
        uint8_t k = bits == 8 ? idx[i] : (uint8_t)((idx[i >> 1] >> ((i & 1u) << 2)) & 0x0Fu);
        const uint8_t *p = palette + 3u * k;
        ws2812_byte(p[1], hi, lo); /* G, R, B */
        ws2812_byte(p[0], hi, lo);
        ws2812_byte(p[2], hi, lo);
    }
    SREG = sreg;
}

/* ---- Randomness ---- */

static uint32_t rng_state __attribute__((section(".noinit")));

uint32_t hal_random(void)
{
    uint32_t x = rng_state ^ ((uint32_t)TCNT1 << 16) ^ TCNT0 ^ hal_millis();
    if (x == 0) {
        x = 0x9E3779B9u;
    }
    /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return x;
}

/* ---- Setup ---- */

const hal_board_t *hal_board(void)
{
    return &board;
}

void hal_init(void)
{
    MCUSR = 0;
    wdt_disable();

    /* UART */
    UBRR0H = UBRRH_VALUE;
    UBRR0L = UBRRL_VALUE;
#if USE_2X
    UCSR0A |= _BV(U2X0);
#else
    UCSR0A &= (uint8_t)~_BV(U2X0);
#endif
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);

    /* Rows: PC0..PC2 outputs. Buttons PC3..PC5: inputs with pull-ups. */
    DDRC = 0x07;
    PORTC = 0x38;
    /* Columns PD2..PD7: inputs with pull-ups (PD0/PD1 belong to the UART). */
    DDRD &= 0x03;
    PORTD |= 0xFC;
    /* PB0, PB1 columns and PB3, PB4 buttons: pull-ups; PB2 LED data out. */
    DDRB = _BV(PB2);
    PORTB = _BV(PB0) | _BV(PB1) | _BV(PB3) | _BV(PB4);

    /* Timer0: CTC, clk/64, 250 counts = 1 kHz. */
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);

    /* Timer1: free-running at clk/1, an entropy source for the die. */
    TCCR1A = 0;
    TCCR1B = _BV(CS10);

    sei();
}
