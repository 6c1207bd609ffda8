/* Generated from builtin:daha.board by firmware-protocol/firmware/gen: do not edit. */
#ifndef TABLA_BOARD_H
#define TABLA_BOARD_H

/* daha (daha): 25 cells, 25 LEDs. */
#define TABLA_BOARD_NAME "daha"
#define TABLA_BOARD_MODEL "daha"
#define TABLA_BOARD_CELLS 25u
#define TABLA_BOARD_LEDS 25u
#define TABLA_BOARD_ABILITIES (TABLA_AB_IDENTIFY | TABLA_AB_D6 | TABLA_AB_BUTTONS)
#define TABLA_BOARD_BUTTONS 0x1Fu

/* The sensor chain: 3 bits per cell, 75 bits in 10 74HC165s. */
#define TABLA_SENSOR_BITS 3u
#define TABLA_CHAIN_BITS 75u
#define TABLA_CODE_BITS 4u
#define TABLA_CODE_COUNT 4u
/* Sensor value: 0 empty, 1 red, 2 yellow, 3 blue, 4 black; others unidentified (255). */
#define TABLA_CODE_TABLE {1u, 2u, 3u, 4u}

#define TABLA_MAX_CELLS TABLA_BOARD_CELLS
#define TABLA_MAX_LEDS 25u

/*
 * sensor  chip  inputs  cell
 *      0     0  HGF     O
 *      1     0  EDC     A0
 *      2   0-1  BAH     A1
 *      3     1  GFE     A2
 *      4     1  DCB     A3
 *      5   1-2  AHG     A4
 *      6     2  FED     A5
 *      7     2  CBA     A6
 *      8     3  HGF     A7
 *      9     3  EDC     B0
 *     10   3-4  BAH     B1
 *     11     4  GFE     B2
 *     12     4  DCB     B3
 *     13   4-5  AHG     B4
 *     14     5  FED     B5
 *     15     5  CBA     B6
 *     16     6  HGF     B7
 *     17     6  EDC     C0
 *     18   6-7  BAH     C1
 *     19     7  GFE     C2
 *     20     7  DCB     C3
 *     21   7-8  AHG     C4
 *     22     8  FED     C5
 *     23     8  CBA     C6
 *     24     9  HGF     C7
 *
 * LED  cell
 *    0  O
 *    1  A0
 *    2  A1
 *    3  A2
 *    4  A3
 *    5  A4
 *    6  A5
 *    7  A6
 *    8  A7
 *    9  B0
 *   10  B1
 *   11  B2
 *   12  B3
 *   13  B4
 *   14  B5
 *   15  B6
 *   16  B7
 *   17  C0
 *   18  C1
 *   19  C2
 *   20  C3
 *   21  C4
 *   22  C5
 *   23  C6
 *   24  C7
 */

/*
 * Build settings of the Arduino sketch (firmware-protocol/arduino/tabla),
 * the same as the Makefile's command line: 115200 baud, LEDs as 4-bit
 * palette indices, the strip driven once the line has been quiet 2 ms, and
 * the receive buffer the MCU chosen in Tools > Board can afford.
 */
#ifndef BAUD
#define BAUD 115200UL
#endif
#define TABLA_LED_BITS 4
#define TABLA_LED_DEFER_MS 2
#if defined(__AVR_ATmega2560__)
#define TABLA_RX_CAP 512
#elif defined(__AVR_ATmega328P__)
#define TABLA_RX_CAP 256
#else
#error "tabla builds for the Arduino Mega 2560 (ATmega2560) or the Uno (ATmega328P): choose one in Tools > Board"
#endif

#endif /* TABLA_BOARD_H */
