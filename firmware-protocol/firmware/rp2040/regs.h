/*
 * RP2040 registers the tabla firmware uses (RP2040 datasheet, chapter 2 and
 * 3), written out here instead of the Pico SDK's headers: base addresses,
 * register offsets and the bits the HAL sets.
 */
#ifndef TABLA_RP2040_REGS_H
#define TABLA_RP2040_REGS_H

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
/* Atomic aliases of an APB/AHB register (datasheet 2.1.2). */
#define REG_XOR(addr) REG((uintptr_t)(addr) + 0x1000u)
#define REG_SET(addr) REG((uintptr_t)(addr) + 0x2000u)
#define REG_CLR(addr) REG((uintptr_t)(addr) + 0x3000u)

/* Resets (2.14) */
#define RESETS_BASE 0x4000c000u
#define RESETS_RESET (RESETS_BASE + 0x0u)
#define RESETS_RESET_DONE (RESETS_BASE + 0x8u)
#define RESET_ADC (1u << 0)
#define RESET_IO_BANK0 (1u << 5)
#define RESET_PADS_BANK0 (1u << 8)
#define RESET_PIO0 (1u << 10)
#define RESET_PLL_SYS (1u << 12)
#define RESET_PLL_USB (1u << 13)
#define RESET_TIMER (1u << 21)
#define RESET_UART0 (1u << 22)

/* Crystal oscillator (2.16) */
#define XOSC_BASE 0x40024000u
#define XOSC_CTRL (XOSC_BASE + 0x00u)
#define XOSC_STATUS (XOSC_BASE + 0x04u)
#define XOSC_STARTUP (XOSC_BASE + 0x0cu)
#define XOSC_CTRL_1_15MHZ 0xaa0u
#define XOSC_CTRL_ENABLE (0xfabu << 12)
#define XOSC_STATUS_STABLE (1u << 31)

/* PLLs (2.18) */
#define PLL_SYS_BASE 0x40028000u
#define PLL_USB_BASE 0x4002c000u
#define PLL_CS 0x0u
#define PLL_PWR 0x4u
#define PLL_FBDIV_INT 0x8u
#define PLL_PRIM 0xcu
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD (1u << 0)
#define PLL_PWR_POSTDIVPD (1u << 3)
#define PLL_PWR_VCOPD (1u << 5)

/* Clocks (2.15) */
#define CLOCKS_BASE 0x40008000u
#define CLK_REF_CTRL (CLOCKS_BASE + 0x30u)
#define CLK_REF_DIV (CLOCKS_BASE + 0x34u)
#define CLK_REF_SELECTED (CLOCKS_BASE + 0x38u)
#define CLK_SYS_CTRL (CLOCKS_BASE + 0x3cu)
#define CLK_SYS_DIV (CLOCKS_BASE + 0x40u)
#define CLK_SYS_SELECTED (CLOCKS_BASE + 0x44u)
#define CLK_PERI_CTRL (CLOCKS_BASE + 0x48u)
#define CLK_ADC_CTRL (CLOCKS_BASE + 0x60u)
#define CLK_ADC_DIV (CLOCKS_BASE + 0x64u)
#define CLK_SYS_RESUS_CTRL (CLOCKS_BASE + 0x78u)
#define CLK_CTRL_ENABLE (1u << 11)
#define CLK_REF_SRC_XOSC 2u
#define CLK_SYS_SRC_AUX 1u /* AUXSRC 0: pll_sys */
#define CLK_PERI_AUX_CLK_SYS (0u << 5)
#define CLK_ADC_AUX_PLL_USB (0u << 5)

/* Watchdog (4.7): its tick drives the timer's microseconds */
#define WATCHDOG_BASE 0x40058000u
#define WATCHDOG_CTRL (WATCHDOG_BASE + 0x00u)
#define WATCHDOG_LOAD (WATCHDOG_BASE + 0x04u)
#define WATCHDOG_TICK (WATCHDOG_BASE + 0x2cu)
#define WATCHDOG_CTRL_ENABLE (1u << 30)
#define WATCHDOG_CTRL_PAUSE_DBG (3u << 25) /* pause while a debugger halts a core */
#define WATCHDOG_TICK_ENABLE (1u << 9)

/* Power-on state machine (2.13): what a watchdog reset resets */
#define PSM_BASE 0x40010000u
#define PSM_WDSEL (PSM_BASE + 0x8u)

/* Timer (4.6), 1 MHz */
#define TIMER_BASE 0x40054000u
#define TIMER_ALARM0 (TIMER_BASE + 0x10u)
#define TIMER_TIMERAWH (TIMER_BASE + 0x24u)
#define TIMER_TIMERAWL (TIMER_BASE + 0x28u)
#define TIMER_INTR (TIMER_BASE + 0x34u)
#define TIMER_INTE (TIMER_BASE + 0x38u)

/* GPIO functions and pads (2.19) */
#define IO_BANK0_BASE 0x40014000u
#define GPIO_CTRL(n) (IO_BANK0_BASE + 0x04u + 8u * (n))
#define GPIO_FUNC_UART 2u
#define GPIO_FUNC_SIO 5u
#define GPIO_FUNC_PIO0 6u
#define GPIO_FUNC_NULL 31u
#define PADS_BANK0_BASE 0x4001c000u
#define PADS_GPIO(n) (PADS_BANK0_BASE + 0x04u + 4u * (n))
#define PAD_OD (1u << 7)
#define PAD_IE (1u << 6)
#define PAD_DRIVE_4MA (1u << 4)
#define PAD_PUE (1u << 3)
#define PAD_PDE (1u << 2)
#define PAD_SCHMITT (1u << 1)

/* Single-cycle IO (2.3.1) */
#define SIO_BASE 0xd0000000u
#define SIO_GPIO_IN (SIO_BASE + 0x04u)

/* UART (4.2), an ARM PL011 */
#define UART0_BASE 0x40034000u
#define UART_DR (UART0_BASE + 0x00u)
#define UART_FR (UART0_BASE + 0x18u)
#define UART_IBRD (UART0_BASE + 0x24u)
#define UART_FBRD (UART0_BASE + 0x28u)
#define UART_LCR_H (UART0_BASE + 0x2cu)
#define UART_CR (UART0_BASE + 0x30u)
#define UART_IFLS (UART0_BASE + 0x34u)
#define UART_IMSC (UART0_BASE + 0x38u)
#define UART_ICR (UART0_BASE + 0x44u)
#define UART_FR_TXFF (1u << 5)
#define UART_FR_RXFE (1u << 4)
#define UART_LCR_H_8N1_FIFO ((3u << 5) | (1u << 4))
#define UART_CR_ENABLE ((1u << 9) | (1u << 8) | (1u << 0)) /* RXE, TXE, UARTEN */
#define UART_IMSC_RX ((1u << 4) | (1u << 6))              /* RXIM, RTIM */

/* PIO (3.7) */
#define PIO0_BASE 0x50200000u
#define PIO_CTRL (PIO0_BASE + 0x000u)
#define PIO_FSTAT (PIO0_BASE + 0x004u)
#define PIO_FDEBUG (PIO0_BASE + 0x008u)
#define PIO_TXF(sm) (PIO0_BASE + 0x010u + 4u * (sm))
#define PIO_RXF(sm) (PIO0_BASE + 0x020u + 4u * (sm))
#define PIO_INSTR_MEM(i) (PIO0_BASE + 0x048u + 4u * (i))
#define PIO_SM_CLKDIV(sm) (PIO0_BASE + 0x0c8u + 0x18u * (sm))
#define PIO_SM_EXECCTRL(sm) (PIO0_BASE + 0x0ccu + 0x18u * (sm))
#define PIO_SM_SHIFTCTRL(sm) (PIO0_BASE + 0x0d0u + 0x18u * (sm))
#define PIO_SM_INSTR(sm) (PIO0_BASE + 0x0d8u + 0x18u * (sm))
#define PIO_SM_PINCTRL(sm) (PIO0_BASE + 0x0dcu + 0x18u * (sm))
#define PIO_INTR (PIO0_BASE + 0x128u)
#define PIO_IRQ0_INTE (PIO0_BASE + 0x12cu)
#define PIO_FSTAT_RXEMPTY(sm) (1u << (8 + (sm)))
#define PIO_FSTAT_TXFULL(sm) (1u << (16 + (sm)))
#define PIO_FDEBUG_TXSTALL(sm) (1u << (24 + (sm)))
#define PIO_INTR_RXNEMPTY(sm) (1u << (sm))
#define PIO_INTR_TXNFULL(sm) (1u << (4 + (sm)))

/* ADC (4.9) */
#define ADC_BASE 0x4004c000u
#define ADC_CS (ADC_BASE + 0x00u)
#define ADC_RESULT (ADC_BASE + 0x04u)
#define ADC_CS_EN (1u << 0)
#define ADC_CS_START_ONE (1u << 2)
#define ADC_CS_READY (1u << 8)

/* Cortex-M0+ private peripherals */
#define NVIC_ISER 0xe000e100u
#define NVIC_ICER 0xe000e180u
#define NVIC_ICPR 0xe000e280u
#define SCB_VTOR 0xe000ed08u
#define SCB_AIRCR 0xe000ed0cu

/* Interrupt numbers (2.3.2) */
#define IRQ_TIMER0 0u
#define IRQ_PIO0_0 7u
#define IRQ_UART0 20u

#endif
