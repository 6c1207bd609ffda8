/*
 * Start-up of the RP2040 build: the vector table (at 0x10000100, where
 * boot2 enters) and the reset handler, which copies .data from the flash,
 * zeroes .bss and calls main. Interrupt handlers the HAL defines replace
 * the weak default, which stops in a loop (the watchdog then resets).
 */
#include <stdint.h>

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;
int main(void);
void reset_handler(void);

static void default_handler(void)
{
    for (;;) {
    }
}

void isr_nmi(void) __attribute__((weak, alias("default_handler")));
void isr_hardfault(void) __attribute__((weak, alias("default_handler")));
void isr_svcall(void) __attribute__((weak, alias("default_handler")));
void isr_pendsv(void) __attribute__((weak, alias("default_handler")));
void isr_systick(void) __attribute__((weak, alias("default_handler")));
void isr_timer0(void) __attribute__((weak, alias("default_handler")));
void isr_pio0_0(void) __attribute__((weak, alias("default_handler")));
void isr_uart0(void) __attribute__((weak, alias("default_handler")));
void isr_usbctrl(void) __attribute__((weak, alias("default_handler")));

typedef void (*vector_t)(void);

/* 16 system exceptions, then the RP2040's 26 interrupts (datasheet 2.3.2). */
__attribute__((section(".vectors"), used)) static const vector_t vectors[16 + 26] = {
    (vector_t)(uintptr_t)&__stack_top,
    reset_handler,
    isr_nmi,
    isr_hardfault,
    [11] = isr_svcall,
    [14] = isr_pendsv,
    [15] = isr_systick,
    [16 + 0] = isr_timer0,
    [16 + 1] = default_handler,
    [16 + 2] = default_handler,
    [16 + 3] = default_handler,
    [16 + 4] = default_handler,
    [16 + 5] = isr_usbctrl,
    [16 + 6] = default_handler,
    [16 + 7] = isr_pio0_0,
    [16 + 8] = default_handler,
    [16 + 9] = default_handler,
    [16 + 10] = default_handler,
    [16 + 11] = default_handler,
    [16 + 12] = default_handler,
    [16 + 13] = default_handler,
    [16 + 14] = default_handler,
    [16 + 15] = default_handler,
    [16 + 16] = default_handler,
    [16 + 17] = default_handler,
    [16 + 18] = default_handler,
    [16 + 19] = default_handler,
    [16 + 20] = isr_uart0,
    [16 + 21] = default_handler,
    [16 + 22] = default_handler,
    [16 + 23] = default_handler,
    [16 + 24] = default_handler,
    [16 + 25] = default_handler,
};

void reset_handler(void)
{
    uint32_t *s = &__data_load, *d = &__data_start;
    while (d < &__data_end) {
        *d++ = *s++;
    }
    for (d = &__bss_start; d < &__bss_end; d++) {
        *d = 0;
    }
    main();
    for (;;) {
    }
}
