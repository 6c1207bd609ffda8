/*
 * Second-stage boot loader for the RP2040's external flash (the first 256
 * bytes of the image). The boot ROM copies these 252 bytes (checked by the
 * CRC32 the Makefile appends) to SRAM at 0x20041f00 and runs them; they
 * set the flash interface (SSI) up for execute-in-place with the plain
 * serial read command 03h, which every SPI NOR flash understands (slower
 * than the Pico SDK's quad-SPI loaders, plenty for this firmware: the hot
 * loops are short and stay in the XIP cache), then enter the image at its
 * vector table, 0x10000100.
 *
 * Registers: SSI (datasheet 4.10.13) at 0x18000000.
 */
    .syntax unified
    .cpu cortex-m0plus
    .thumb

    .equ SSI_BASE,      0x18000000
    .equ SSI_CTRLR0,    0x00
    .equ SSI_CTRLR1,    0x04
    .equ SSI_SSIENR,    0x08
    .equ SSI_BAUDR,     0x14
    .equ SSI_SPI_CTRLR0, 0xf4
    /* CTRLR0: 32-bit frames (DFS_32 = 31 at bit 16), TMOD EEPROM read (3 at bit 8), standard SPI */
    .equ CTRLR0_XIP,    (31 << 16) | (3 << 8)
    /* SPI_CTRLR0: command 03h (bit 24), 24-bit address (ADDR_L 6 nibbles at bit 2),
       8-bit instruction (INST_L 2 at bit 8), instruction and address on one line */
    .equ SPI_CTRLR0_XIP, (0x03 << 24) | (6 << 2) | (2 << 8)
    .equ CLKDIV,        4          /* flash clock = clk_sys / 4 */
    .equ VTOR,          0xe000ed08
    .equ IMAGE,         0x10000100

    .section .text
    .global _stage2_boot
    .type _stage2_boot, %function
    .thumb_func
_stage2_boot:
    push {lr}
    ldr r3, =SSI_BASE
    movs r1, #0
    str r1, [r3, #SSI_SSIENR]      /* disable the SSI to configure it */
    movs r1, #CLKDIV
    str r1, [r3, #SSI_BAUDR]
    ldr r1, =CTRLR0_XIP
    str r1, [r3, #SSI_CTRLR0]
    ldr r1, =SPI_CTRLR0_XIP
    ldr r0, =(SSI_BASE + SSI_SPI_CTRLR0)
    str r1, [r0]
    movs r1, #0
    str r1, [r3, #SSI_CTRLR1]      /* NDF 0: one 32-bit read per access */
    movs r1, #1
    str r1, [r3, #SSI_SSIENR]      /* enable: the XIP window now reads the flash */
    /* Called by the boot ROM with lr 0: enter the image (a non-zero lr is a
       caller that wants control back). */
    pop {r0}
    cmp r0, #0
    beq 1f
    bx r0
1:  ldr r0, =IMAGE
    ldr r1, =VTOR
    str r0, [r1]
    ldmia r0, {r0, r1}
    msr msp, r0
    bx r1
    .ltorg
