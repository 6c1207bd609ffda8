/*
 * hal.h for a board built from a board file on an RP2040 (Raspberry Pi
 * Pico): the same board as hal_165.c (a chain of 74HC165 shift registers
 * for the sensors, a WS2812B strip, five buttons, the die), with the
 * chain and the strip driven by the RP2040's PIO and no SDK: clocks,
 * resets, pads, UART, timer and PIO are programmed here from the datasheet
 * (rp2040/regs.h). Built with -DTABLA_LINK_USB (make RP2040_LINK=usb, the
 * default) the line to the host is the chip's USB port instead of UART0
 * (usb_cdc.c: a CDC-ACM serial device). The board's size, sensor bits and die come from
 * tabla_board.h (gen/), as for the AVR builds.
 *
 * Pins (GP numbers; WIRING.md has the whole table and the Pico's pin numbers)
 *   the host                the USB port (RP2040_LINK=usb), or UART0: GP0 TX,
 *                           GP1 RX (115200 8N1, a USB-serial adapter at 3.3 V)
 *   165 SH/LD (every chip)  GP2
 *   165 CLK (every chip)    GP3
 *   165 QH of chip 0        GP4 (the chain powered at 3.3 V: GPIOs are not
 *                           5 V tolerant)
 *   WS2812B data in         GP5 (through a 3.3 V to 5 V buffer, 74AHCT125)
 *   buttons roll, takeback, hint, confirm, new
 *                           GP10..GP14, to GND, internal pull-ups
 *   die noise               ADC0 (GP26), left unconnected
 *
 * The chain is wired and read as in hal_165.c (chain bit j is chip j / 8,
 * input H - j % 8; cell i owns TABLA_SENSOR_BITS bits from bit i *
 * TABLA_SENSOR_BITS on, most significant first). A scan reads the whole
 * chain at once into chain_words (PIO state machine 1), so cells can be
 * read in any order, and tells whether any word changed since the last
 * scan (hal_scan_same), so that tabla_fw skips a quiet board's cells.
 *
 * PIO programs (hand-assembled; the encodings are in the tables below):
 *
 *   state machine 0, WS2812B (side-set 1 = the data pin, 8 MHz: 10 cycles
 *   a bit, 1.25 us; a 0 bit is high 2 cycles = 250 ns, a 1 bit 7 = 875 ns):
 *     0 bitloop: out x, 1        side 0 [2]   0x6221
 *     1          jmp !x, 3       side 1 [1]   0x1123
 *     2          jmp 0           side 1 [4]   0x1400  a 1: stay high
 *     3          nop             side 0 [4]   0xa442  a 0: go low
 *   autopull 24 bits, shifting left: the CPU writes G R B << 8 per LED.
 *
 *   state machine 1, 74HC165 chain (set 1 = SH/LD, side-set 1 = CLK,
 *   in = QH; 12.5 MHz: 4 cycles a bit, a 3.1 MHz shift clock):
 *     4          pull block      side 0       0x80a0  the bit count - 1
 *     5          mov x, osr      side 0       0xa027
 *     6          set pins, 0     side 0 [1]   0xe100  SH/LD low: latch
 *     7          set pins, 1     side 0 [1]   0xe101
 *     8 bitloop: in pins, 1      side 0 [1]   0x4101  QH
 *     9          jmp x--, 8      side 1 [1]   0x1148  rising CLK: next bit
 *   autopush 32 bits, shifting left: the first bit read is bit 31 of the
 *   first word. The CPU asks for a whole number of words; the bits past
 *   the chain's end read 0 (the last chip's DS is tied to GND).
 *   (Instruction fields: opcode in bits 15..13, side-set then delay in
 *   12..8, operands in 7..0; jmp targets are absolute, so the chain
 *   program, loaded at 4, jumps to 8.)
 *
 * The CPU waits for the state machines' FIFOs asleep (WFI on the PIO's
 * interrupt, masked so it only wakes the core), with interrupts on: the
 * UART's receive interrupt fills a 4 KiB ring while the strip is driven,
 * so unlike the AVR builds nothing is lost and the clock keeps time (the
 * RP2040's timer counts microseconds in hardware).
 *
 * Time is the 1 MHz timer; hal_idle sleeps until the next millisecond
 * (timer alarm 0) or a received byte. The die's randomness is the low bit
 * of 32 ADC readings of the floating ADC0 pin, stirred into a state kept
 * across resets in uninitialised RAM, as on the AVR builds.
 */
#include "hal.h"

#include "rp2040/regs.h"
#include "tabla_fw.h"
#include "tabla_proto.h"
#ifdef TABLA_LINK_USB
#include "usb_cdc.h"
#endif

#ifndef TABLA_BOARD_CELLS
#error "build with -include tabla_board.h (make BOARD=file.board)"
#endif

#define PIN_TX 0u
#define PIN_RX 1u
#define PIN_SHLD 2u
#define PIN_CLK 3u
#define PIN_QH 4u
#define PIN_LED 5u
#define PIN_BUTTON0 10u /* roll; takeback, hint, confirm, new follow */
#define PIN_NOISE 26u   /* ADC0 */

#define SM_LED 0u
#define SM_CHAIN 1u
#define CHAIN_PROG 4u /* where the chain program starts in instruction memory */

#define RX_RING 4096u

#ifndef TABLA_SERIAL
#define TABLA_SERIAL "RP2040-0001"
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

static inline void irq_off(void)
{
    __asm__ __volatile__("cpsid i" ::: "memory");
}

static inline void irq_on(void)
{
    __asm__ __volatile__("cpsie i" ::: "memory");
}

static inline void wfi(void)
{
    __asm__ __volatile__("wfi" ::: "memory");
}

/* ---- Time ---- */

/* Milliseconds counted from the timer's low word: the main loop asks at
 * least every millisecond, so the catching-up loop is short (and no 64-bit
 * division, a slow library call on the Cortex-M0+, runs every pass). */
static uint32_t ms_count, ms_mark;

uint32_t hal_millis(void)
{
    uint32_t now = REG(TIMER_TIMERAWL);
    while ((uint32_t)(now - ms_mark) >= 1000u) {
        ms_mark += 1000u;
        ms_count++;
    }
    return ms_count;
}

/* Alarm 0 only wakes the core from hal_idle. */
void isr_timer0(void)
{
    REG(TIMER_INTR) = 1u;
}

/* ---- The line to the host: UART0, or USB CDC (usb_cdc.c) ---- */

#ifdef TABLA_LINK_USB

int hal_uart_read(void)
{
    return usb_cdc_read();
}

void hal_uart_write(uint8_t byte)
{
    usb_cdc_write(byte);
}

#define LINK_RX_EMPTY() (!usb_cdc_rx_pending())

#else /* UART0 */

static volatile uint8_t rx_ring[RX_RING];
static volatile uint32_t rx_head, rx_tail;

void isr_uart0(void)
{
    while (!(REG(UART_FR) & UART_FR_RXFE)) {
        uint8_t b = (uint8_t)REG(UART_DR);
        uint32_t next = (rx_head + 1u) & (RX_RING - 1u);
        if (next != rx_tail) { /* else drop: the frame fails its CRC */
            rx_ring[rx_head] = b;
            rx_head = next;
        }
    }
}

int hal_uart_read(void)
{
    uint8_t b;
    if (rx_tail == rx_head) {
        return -1;
    }
    b = rx_ring[rx_tail];
    rx_tail = (rx_tail + 1u) & (RX_RING - 1u);
    return b;
}

void hal_uart_write(uint8_t byte)
{
    while (REG(UART_FR) & UART_FR_TXFF) {
    }
    REG(UART_DR) = byte;
}

#define LINK_RX_EMPTY() (rx_head == rx_tail)

#endif

void hal_idle(void)
{
#ifdef TABLA_LINK_USB
    usb_cdc_flush(); /* what this pass wrote leaves in one packet */
#endif
    irq_off();
    if (LINK_RX_EMPTY()) {
        /* Wake at the next millisecond (or a received byte). The alarm
         * fires when the timer's low word equals its target: one that
         * passed while it was set would wait 71 minutes, so check. */
        uint32_t target;
        (void)hal_millis();
        target = ms_mark + 1000u;
        REG(TIMER_ALARM0) = target;
        if ((int32_t)(REG(TIMER_TIMERAWL) - target) < 0) {
            wfi(); /* a pending interrupt ends it even while masked */
        }
    }
    irq_on();
}

/* ---- PIO ---- */

/* PIO0's IRQ 0 only wakes the core from pio_wait's WFI, with interrupts
 * masked, and is switched off before they are unmasked, so this handler
 * does not run on the chip. rp2040js (the HIL test's emulator) takes the
 * interrupt at the wake-up despite the mask; this handler then switches
 * it off, and pio_wait goes on as on the chip. */
void isr_pio0_0(void)
{
    REG(PIO_IRQ0_INTE) = 0;
}

/* Sleeps until the PIO's raw interrupt bit `bit` is set (a FIFO level). */
static void pio_wait(uint32_t bit)
{
    while (!(REG(PIO_INTR) & bit)) {
        irq_off();
        REG(PIO_IRQ0_INTE) = bit;
        if (!(REG(PIO_INTR) & bit)) {
            wfi();
        }
        REG(PIO_IRQ0_INTE) = 0;
        REG(NVIC_ICPR) = 1u << IRQ_PIO0_0;
        irq_on(); /* the UART's interrupt, if it woke us, runs here */
    }
}

static const uint16_t ws2812_prog[] = {0x6221, 0x1123, 0x1400, 0xa442};
static const uint16_t chain_prog[] = {0x80a0, 0xa027, 0xe100, 0xe101, 0x4101, 0x1148};

static void pio_init(void)
{
    uint32_t i;
    for (i = 0; i < sizeof ws2812_prog / sizeof ws2812_prog[0]; i++) {
        REG(PIO_INSTR_MEM(i)) = ws2812_prog[i];
    }
    for (i = 0; i < sizeof chain_prog / sizeof chain_prog[0]; i++) {
        REG(PIO_INSTR_MEM(CHAIN_PROG + i)) = chain_prog[i];
    }

    /* WS2812B: 125 MHz / 15.625 = 8 MHz. */
    REG(PIO_SM_CLKDIV(SM_LED)) = (15u << 16) | (160u << 8);
    REG(PIO_SM_EXECCTRL(SM_LED)) = (3u << 12) | (0u << 7); /* wrap 3 -> 0 */
    REG(PIO_SM_SHIFTCTRL(SM_LED)) = (1u << 30)             /* join the FIFOs: 8 for TX */
                                    | (24u << 25)          /* pull threshold */
                                    | (1u << 17);          /* autopull, shift left */
    REG(PIO_SM_PINCTRL(SM_LED)) = (1u << 29) | (PIN_LED << 10) /* side-set: 1 pin */
                                  | (1u << 26) | (PIN_LED << 5); /* set: 1 pin */
    REG(PIO_SM_INSTR(SM_LED)) = 0xe000; /* set pins, 0 */
    REG(PIO_SM_INSTR(SM_LED)) = 0xe081; /* set pindirs, 1 */
    REG(PIO_SM_INSTR(SM_LED)) = 0x0000; /* jmp 0 */

    /* 74HC165 chain: 125 MHz / 10 = 12.5 MHz. */
    REG(PIO_SM_CLKDIV(SM_CHAIN)) = 10u << 16;
    REG(PIO_SM_EXECCTRL(SM_CHAIN)) = ((CHAIN_PROG + 5u) << 12) | (CHAIN_PROG << 7);
    /* Not joined: the count comes through the TX FIFO; the 4-deep RX FIFO
     * stalls the machine (autopush) until the core takes a word. */
    REG(PIO_SM_SHIFTCTRL(SM_CHAIN)) = 1u << 16; /* autopush 32, shift left */
    REG(PIO_SM_PINCTRL(SM_CHAIN)) = (1u << 29) | (PIN_CLK << 10) /* side-set: CLK */
                                    | (1u << 26) | (PIN_SHLD << 5) /* set: SH/LD */
                                    | (PIN_QH << 15);              /* in: QH */
    REG(PIO_SM_INSTR(SM_CHAIN)) = 0xe001; /* set pins, 1: SH/LD idles high */
    REG(PIO_SM_INSTR(SM_CHAIN)) = 0xe081; /* set pindirs, 1 */
    REG(PIO_SM_PINCTRL(SM_CHAIN)) = (1u << 29) | (PIN_CLK << 10) | (1u << 26) | (PIN_CLK << 5) |
                                    (PIN_QH << 15);
    REG(PIO_SM_INSTR(SM_CHAIN)) = 0xe000; /* CLK low */
    REG(PIO_SM_INSTR(SM_CHAIN)) = 0xe081; /* CLK an output */
    REG(PIO_SM_PINCTRL(SM_CHAIN)) = (1u << 29) | (PIN_CLK << 10) | (1u << 26) | (PIN_SHLD << 5) |
                                    (PIN_QH << 15);
    REG(PIO_SM_INSTR(SM_CHAIN)) = CHAIN_PROG; /* jmp CHAIN_PROG */

    REG(GPIO_CTRL(PIN_LED)) = GPIO_FUNC_PIO0;
    REG(GPIO_CTRL(PIN_SHLD)) = GPIO_FUNC_PIO0;
    REG(GPIO_CTRL(PIN_CLK)) = GPIO_FUNC_PIO0;
    REG(GPIO_CTRL(PIN_QH)) = GPIO_FUNC_PIO0;
    /* Restart both (empty shift registers: the strip's machine would
     * otherwise shift out a stale OSR) and enable them. */
    REG(PIO_CTRL) = (((1u << SM_LED) | (1u << SM_CHAIN)) << 4) | (1u << SM_LED) | (1u << SM_CHAIN);
    /* PIO0's IRQ 0 only wakes the core (pio_wait). */
    REG(NVIC_ISER) = 1u << IRQ_PIO0_0;
}

/* ---- The 74HC165 chain ---- */

#define CHAIN_BITS ((uint32_t)TABLA_BOARD_CELLS * TABLA_SENSOR_BITS)
#define CHAIN_WORDS ((CHAIN_BITS + 31u) / 32u)

static uint32_t chain_words[CHAIN_WORDS];
static uint8_t chain_same; /* the last scan read the chain as the one before */

/* Reads the chain into chain_words, comparing each word with the last
 * scan's as it comes (hal_scan_same): a quiet board costs the core a
 * compare per 32 bits, not a decode per cell. */
void hal_scan_begin(void)
{
    uint32_t i, w, diff = 0;
    REG(PIO_TXF(SM_CHAIN)) = CHAIN_WORDS * 32u - 1u;
    for (i = 0; i < CHAIN_WORDS; i++) {
        pio_wait(PIO_INTR_RXNEMPTY(SM_CHAIN));
        w = REG(PIO_RXF(SM_CHAIN));
        diff |= w ^ chain_words[i];
        chain_words[i] = w;
    }
    chain_same = diff == 0;
}

uint8_t hal_scan_same(void)
{
    return chain_same;
}

/* A cell's bits, most significant first, from one word or across two. */
uint8_t hal_read_cell(uint16_t cell)
{
    uint32_t j = (uint32_t)cell * TABLA_SENSOR_BITS, w, s;
    if (cell >= TABLA_BOARD_CELLS) {
        return 0;
    }
    w = j >> 5;
    s = j & 31u;
    if (s + TABLA_SENSOR_BITS <= 32u) {
        return (uint8_t)((chain_words[w] << s) >> (32u - TABLA_SENSOR_BITS));
    }
    return (uint8_t)(((chain_words[w] << s) >> (32u - TABLA_SENSOR_BITS)) |
                     (chain_words[w + 1u] >> (64u - TABLA_SENSOR_BITS - s)));
}

uint8_t hal_read_buttons(void)
{
    return (uint8_t)((~REG(SIO_GPIO_IN) >> PIN_BUTTON0) & 0x1Fu); /* bit b: button b + 1 */
}

/* ---- WS2812B LEDs ---- */

/* The strip latches after 280 us of low line (WS2812B-V5; older parts 50). */
#define LED_LATCH_US 300u
static uint32_t led_free_at; /* when the strip takes the next frame (timer low word) */

void hal_led_show(const uint8_t *idx, uint8_t bits, uint16_t n, const uint8_t *palette)
{
    uint16_t i;
    if (n > TABLA_BOARD_LEDS) {
        n = TABLA_BOARD_LEDS;
    }
    while ((int32_t)(REG(TIMER_TIMERAWL) - led_free_at) < 0) {
    }
    for (i = 0; i < n; i++) {
        uint8_t k = bits == 8 ? idx[i] : (uint8_t)((idx[i >> 1] >> ((i & 1u) << 2)) & 0x0Fu);
        const uint8_t *p = palette + 3u * k;
        if (REG(PIO_FSTAT) & PIO_FSTAT_TXFULL(SM_LED)) {
            pio_wait(PIO_INTR_TXNFULL(SM_LED));
        }
        REG(PIO_TXF(SM_LED)) = ((uint32_t)p[1] << 24) | ((uint32_t)p[0] << 16) | ((uint32_t)p[2] << 8);
    }
    /* The state machine shifts out the last 8 words by itself; the next
     * frame waits for them (30 us each) and the latch. */
    led_free_at = REG(TIMER_TIMERAWL) + 8u * 30u + 30u + LED_LATCH_US;
}

/* ---- Randomness ---- */

static uint32_t rng_state __attribute__((section(".noinit")));

/* The low bits of 32 readings of the floating ADC0 pin, first reading in
 * the top bit. */
static uint32_t noise32(void)
{
    uint32_t w = 0;
    uint8_t i;
    REG(ADC_CS) = ADC_CS_EN; /* AINSEL 0 */
    for (i = 0; i < 32; i++) {
        while (!(REG(ADC_CS) & ADC_CS_READY)) {
        }
        REG(ADC_CS) = ADC_CS_EN | ADC_CS_START_ONE;
        while (!(REG(ADC_CS) & ADC_CS_READY)) {
        }
        w = (w << 1) | (REG(ADC_RESULT) & 1u);
    }
    REG(ADC_CS) = 0;
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

static void unreset(uint32_t mask)
{
    REG_CLR(RESETS_RESET) = mask;
    while ((REG(RESETS_RESET_DONE) & mask) != mask) {
    }
}

/* 12 MHz crystal; pll_sys 12 * 125 / (6 * 2) = 125 MHz, pll_usb 12 * 120 /
 * (6 * 5) = 48 MHz for the ADC. */
static void pll_init(uint32_t base, uint32_t fbdiv, uint32_t post1, uint32_t post2)
{
    REG(base + PLL_CS) = 1u; /* refdiv 1 */
    REG(base + PLL_FBDIV_INT) = fbdiv;
    REG_CLR(base + PLL_PWR) = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(REG(base + PLL_CS) & PLL_CS_LOCK)) {
    }
    REG(base + PLL_PRIM) = (post1 << 16) | (post2 << 12);
    REG_CLR(base + PLL_PWR) = PLL_PWR_POSTDIVPD;
}

static void clocks_init(void)
{
    REG(CLK_SYS_RESUS_CTRL) = 0;
    REG(XOSC_CTRL) = XOSC_CTRL_1_15MHZ;
    REG(XOSC_STARTUP) = 47u; /* ~1 ms: (12 MHz / 1000 + 128) / 256 */
    REG_SET(XOSC_CTRL) = XOSC_CTRL_ENABLE;
    while (!(REG(XOSC_STATUS) & XOSC_STATUS_STABLE)) {
    }
    /* Off the PLLs (a watchdog reset may leave them in use), then reset them. */
    REG_CLR(CLK_SYS_CTRL) = 1u; /* clk_sys from clk_ref */
    while (REG(CLK_SYS_SELECTED) != 1u) {
    }
    REG_CLR(CLK_REF_CTRL) = 3u; /* clk_ref from the ring oscillator */
    while (REG(CLK_REF_SELECTED) != 1u) {
    }
    REG_SET(RESETS_RESET) = RESET_PLL_SYS | RESET_PLL_USB;
    unreset(RESET_PLL_SYS | RESET_PLL_USB);
    pll_init(PLL_SYS_BASE, 125u, 6u, 2u);
    pll_init(PLL_USB_BASE, 120u, 6u, 5u);

    REG(CLK_REF_DIV) = 1u << 8;
    REG(CLK_REF_CTRL) = CLK_REF_SRC_XOSC;
    while (REG(CLK_REF_SELECTED) != (1u << CLK_REF_SRC_XOSC)) {
    }
    REG(CLK_SYS_DIV) = 1u << 8;
    REG(CLK_SYS_CTRL) = CLK_SYS_SRC_AUX; /* AUXSRC pll_sys */
    while (REG(CLK_SYS_SELECTED) != 2u) {
    }
    REG(CLK_PERI_CTRL) = CLK_CTRL_ENABLE | CLK_PERI_AUX_CLK_SYS;
    REG(CLK_ADC_DIV) = 1u << 8;
    REG(CLK_ADC_CTRL) = CLK_CTRL_ENABLE | CLK_ADC_AUX_PLL_USB;
    /* The timer's microsecond tick: clk_ref (12 MHz) / 12. */
    REG(WATCHDOG_TICK) = WATCHDOG_TICK_ENABLE | 12u;
}

void hal_init(void)
{
    uint32_t b;
    REG_SET(RESETS_RESET) = RESET_ADC | RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_PIO0 |
                            RESET_TIMER | RESET_UART0;
    clocks_init();
    unreset(RESET_ADC | RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_PIO0 | RESET_TIMER |
            RESET_UART0);

#ifndef TABLA_LINK_USB
    /* UART0, 115200 8N1: 125 MHz / (16 * 115200) = 67 + 52/64. */
    REG(UART_IBRD) = 67u;
    REG(UART_FBRD) = 52u;
    REG(UART_LCR_H) = UART_LCR_H_8N1_FIFO;
    REG(UART_CR) = UART_CR_ENABLE;
    REG(UART_IMSC) = UART_IMSC_RX;
    REG(GPIO_CTRL(PIN_TX)) = GPIO_FUNC_UART;
    REG(GPIO_CTRL(PIN_RX)) = GPIO_FUNC_UART;
#endif

    /* Buttons: inputs with pull-ups, read through SIO. */
    for (b = 0; b < 5u; b++) {
        REG(PADS_GPIO(PIN_BUTTON0 + b)) = PAD_IE | PAD_PUE | PAD_SCHMITT | PAD_DRIVE_4MA;
        REG(GPIO_CTRL(PIN_BUTTON0 + b)) = GPIO_FUNC_SIO;
    }
    /* QH: an input without pulls. The ADC pin: digital input off, no pulls. */
    REG(PADS_GPIO(PIN_QH)) = PAD_IE | PAD_SCHMITT | PAD_DRIVE_4MA;
    REG(PADS_GPIO(PIN_NOISE)) = PAD_OD;
    REG(GPIO_CTRL(PIN_NOISE)) = GPIO_FUNC_NULL;

    pio_init();

    REG(TIMER_INTE) = 1u; /* alarm 0 */
#ifdef TABLA_LINK_USB
    REG(NVIC_ISER) = 1u << IRQ_TIMER0;
    usb_cdc_init();
#else
    REG(NVIC_ISER) = (1u << IRQ_TIMER0) | (1u << IRQ_UART0);
#endif
    irq_on();
}
