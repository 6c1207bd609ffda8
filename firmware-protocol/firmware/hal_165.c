/*
 * hal.h for a board built from a board file: an ATmega2560 (Arduino Mega
 * 2560) or an ATmega328P (Arduino Uno / Nano) at 16 MHz that reads its
 * sensors through a chain of 74HC165 shift registers, drives a WS2812B
 * strip, five buttons and, for DAHA and RAY, an electronic die. The size,
 * the sensor bits per cell, the piece codes and the die come from
 * tabla_board.h, generated from the board file by gen/ and included
 * before every source file (-include).
 *
 * Pins                    ATmega2560 [Mega]      ATmega328P [Uno]
 *   UART to the host      PE0, PE1 [D0, D1]      PD0, PD1 [D0, D1]
 *   165 SH/LD (every chip) PB0 [D53]             PB1 [D9]
 *   165 CLK (every chip)  PB1 [D52]              PB5 [D13]
 *   165 QH of chip 0      PB3 [D50]              PB4 [D12]
 *   WS2812B data in       PB4 [D10]              PB2 [D10]
 *   buttons roll, takeback, hint, confirm, new (to GND, internal pull-ups)
 *                         PA0..PA4 [D22..D26]    PD2..PD6 [D2..D6]
 *   die noise             ADC0 [A0], left unconnected
 *
 * The chain: chip 0's QH goes to the MCU, chip k's serial input DS to chip
 * k+1's QH, the last chip's DS to GND, CLK INH of every chip to GND. A low
 * pulse on SH/LD latches every input; then each rising CLK edge brings the
 * next bit to QH. The first bit read is chip 0's input H, then G ... A,
 * then chip 1's H: chain bit j is chip j / 8, input H - j % 8. Sensor
 * (cell) i owns the TABLA_SENSOR_BITS bits from chain bit i *
 * TABLA_SENSOR_BITS on, most significant first: a presence sensor is one
 * bit (1 = piece), an identifying one a binary value (0 empty, 1.. the
 * board's piece codes in code order; see tabla_board.h for the table and
 * the chip and input of every cell). LED i of the strip is LED index i of
 * the board file.
 *
 * Timer0 gives the 1 kHz millisecond tick; Timer1 runs free at clk/64 and
 * measures how long the LED strip kept interrupts off, so that the clock
 * does not lose those milliseconds. The die's randomness is the low bit of
 * 32 ADC readings of the floating A0 pin, stirred into a state kept across
 * resets in uninitialised RAM.
 */
#include "hal.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#define BAUD_TOL 3 /* 115200 from 16 MHz is 2.1 % off; UARTs tolerate it */
#include <util/setbaud.h>

#include "tabla_fw.h"
#include "tabla_proto.h"

#ifndef TABLA_BOARD_CELLS
#error "build with -include tabla_board.h (make BOARD=file.board)"
#endif

#if defined(__AVR_ATmega2560__)
#define CHAIN_PORT PORTB
#define CHAIN_DDR DDRB
#define CHAIN_PIN PINB
#define PL_BIT PB0
#define CLK_BIT PB1
#define QH_BIT PB3
#define LED_BIT PB4
#define BUTTON_PORT PORTA
#define BUTTON_DDR DDRA
#define BUTTONS() ((uint8_t)(~PINA & 0x1Fu))
#define UART_RX_VECT USART0_RX_vect
#define RX_RING 256u
#define MCU_NAME "2560"
#elif defined(__AVR_ATmega328P__)
#define CHAIN_PORT PORTB
#define CHAIN_DDR DDRB
#define CHAIN_PIN PINB
#define PL_BIT PB1
#define CLK_BIT PB5
#define QH_BIT PB4
#define LED_BIT PB2
#define BUTTON_PORT PORTD
#define BUTTON_DDR DDRD
#define BUTTONS() ((uint8_t)((~PIND >> 2) & 0x1Fu))
#define UART_RX_VECT USART_RX_vect
#define RX_RING 64u
#define MCU_NAME "328P"
#else
#error "hal_165.c supports the ATmega2560 and the ATmega328P"
#endif

#ifndef TABLA_SERIAL
#define TABLA_SERIAL MCU_NAME "-0001"
#endif
#ifndef TABLA_FIRMWARE_VERSION
#define TABLA_FIRMWARE_VERSION "1.1.0"
#endif

static const hal_board_t board = {
    TABLA_BOARD_CELLS,
    TABLA_BOARD_LEDS,
    TABLA_BOARD_ABILITIES,
    TABLA_BOARD_BUTTONS,
    "tabla",
    TABLA_BOARD_MODEL,
    TABLA_SERIAL,
    TABLA_FIRMWARE_VERSION,
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

static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head, rx_tail; /* RX_RING is 256 or a smaller power of two */

ISR(UART_RX_VECT)
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

void hal_idle(void)
{
    cli();
    if (rx_head == rx_tail) {
        set_sleep_mode(SLEEP_MODE_IDLE);
        sleep_enable();
        sei(); /* the instruction after sei runs first: no wake-up is lost */
        sleep_cpu();
        sleep_disable();
    }
    sei();
}

/* ---- The 74HC165 chain ---- */

static uint16_t chain_next; /* the cell whose bits QH shows next */

void hal_scan_begin(void)
{
    CHAIN_PORT &= (uint8_t)~_BV(PL_BIT); /* latch every input */
    __asm__ __volatile__("nop\n\tnop\n\t");
    CHAIN_PORT |= _BV(PL_BIT);
    chain_next = 0;
}

/* The bit at QH, then a clock edge to bring the next one. Forced inline:
 * the scan reads every bit of the chain 100 times a second. */
static inline __attribute__((always_inline)) uint8_t chain_bit(void)
{
    uint8_t b = (uint8_t)((CHAIN_PIN >> QH_BIT) & 1u);
    CHAIN_PORT |= _BV(CLK_BIT);
    CHAIN_PORT &= (uint8_t)~_BV(CLK_BIT);
    return b;
}

/* One cell's TABLA_SENSOR_BITS bits, most significant first (unrolled: the
 * count is a constant). */
static inline __attribute__((always_inline)) uint8_t chain_cell(void)
{
    uint8_t v = chain_bit(), k;
    for (k = 1; k < TABLA_SENSOR_BITS; k++) {
        v = (uint8_t)((v << 1) | chain_bit());
    }
    return v;
}

uint8_t hal_read_cell(uint16_t cell)
{
    if (cell == chain_next && cell < TABLA_BOARD_CELLS) { /* the scan's order */
        chain_next++;
        return chain_cell();
    }
    if (cell >= TABLA_BOARD_CELLS) {
        return 0;
    }
    if (cell < chain_next) {
        hal_scan_begin(); /* out of order: latch again */
    }
    while (chain_next < cell) {
        chain_cell();
        chain_next++;
    }
    chain_next++;
    return chain_cell();
}

uint8_t hal_read_buttons(void)
{
    return BUTTONS(); /* bit b: button b + 1, roll first */
}

/* ---- WS2812B LEDs ---- */

/*
 * Bit-banged WS2812B at 16 MHz: each bit is 20 cycles (1.25 us); a 0 bit is
 * high for 6 cycles (375 ns), a 1 bit for 12 (750 ns).
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
        : [port] "I"(_SFR_IO_ADDR(CHAIN_PORT)), [hi] "r"(hi), [lo] "r"(lo));
}

static uint16_t led_carry_us; /* part of a millisecond the strip took, not yet counted */

/*
 * Interrupts are off for the whole strip (30 us per LED: 25 ms for RAY's
 * 841). Each LED's colour is looked up in the palette between LEDs, a few
 * cycles of low line. Timer0 ticks missed meanwhile are added from Timer1.
 */
void hal_led_show(const uint8_t *idx, uint8_t bits, uint16_t n, const uint8_t *palette)
{
    uint8_t sreg = SREG, hi, lo;
    uint16_t i, t0;
    uint32_t us;
    if (n > TABLA_BOARD_LEDS) {
        n = TABLA_BOARD_LEDS;
    }
    cli();
    t0 = TCNT1;
    hi = (uint8_t)(CHAIN_PORT | _BV(LED_BIT));
    lo = (uint8_t)(CHAIN_PORT & (uint8_t)~_BV(LED_BIT));
    for (i = 0; i < n; i++) {
        uint8_t k = bits == 8 ? idx[i] : (uint8_t)((idx[i >> 1] >> ((i & 1u) << 2)) & 0x0Fu);
        const uint8_t *p = palette + 3u * k;
        ws2812_byte(p[1], hi, lo); /* G, R, B */
        ws2812_byte(p[0], hi, lo);
        ws2812_byte(p[2], hi, lo);
    }
    /* Timer1 counts 4 us; the strip takes far less than its 262 ms wrap. */
    us = (uint32_t)(uint16_t)(TCNT1 - t0) * 4u + led_carry_us;
    ticks += us / 1000u;
    led_carry_us = (uint16_t)(us % 1000u);
    TIFR0 = _BV(OCF0A); /* a tick pending now is among those counted */
    SREG = sreg;
}

/* ---- Randomness ---- */

static uint32_t rng_state __attribute__((section(".noinit")));

/* The low bits of 32 readings of the floating A0 pin, first reading in the
 * top bit. */
static uint32_t noise32(void)
{
    uint32_t w = 0;
    uint8_t i;
    ADMUX = _BV(REFS0); /* AVcc reference, ADC0 */
#if defined(ADCSRB)
    ADCSRB = 0;
#endif
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* clk/128 */
    for (i = 0; i < 32; i++) {
        ADCSRA |= _BV(ADSC);
        while (ADCSRA & _BV(ADSC)) {
        }
        w = (w << 1) | (ADC & 1u);
    }
    ADCSRA = 0;
    return w;
}

uint32_t hal_random(void)
{
    uint32_t x = rng_state ^ noise32();
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

    /* Chain: SH/LD high, CLK low, QH input; LED data out, low. */
    CHAIN_PORT = (uint8_t)((CHAIN_PORT | _BV(PL_BIT)) & (uint8_t)~(_BV(CLK_BIT) | _BV(LED_BIT)));
    CHAIN_DDR = (uint8_t)((CHAIN_DDR | _BV(PL_BIT) | _BV(CLK_BIT) | _BV(LED_BIT)) &
                          (uint8_t)~_BV(QH_BIT));
    /* Buttons: inputs with pull-ups. */
#if defined(__AVR_ATmega2560__)
    BUTTON_DDR &= (uint8_t)~0x1Fu;
    BUTTON_PORT |= 0x1Fu;
#else
    BUTTON_DDR &= (uint8_t)~0x7Cu;
    BUTTON_PORT |= 0x7Cu;
#endif

    /* Timer0: CTC, clk/64, 250 counts = 1 kHz. */
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);

    /* Timer1: free-running at clk/64 (4 us), to time the LED strip. */
    TCCR1A = 0;
    TCCR1B = _BV(CS11) | _BV(CS10);

    sei();
}
