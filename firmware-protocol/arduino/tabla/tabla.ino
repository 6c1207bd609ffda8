/*
 * tabla sensor-board firmware for the Arduino IDE: an Arduino Mega 2560 or
 * Uno reading its cells through a chain of 74HC165s, driving a WS2812B
 * strip, five buttons and (DAHA, RAY) an electronic die. It is the
 * reference firmware of firmware-protocol/firmware itself, not a port: the
 * .c and .h files beside this sketch are links to those sources, which the
 * Makefile builds too.
 *
 * Which game board it is for is said by tabla_board.h, generated from the
 * board file (this folder holds DAHA's). For another board, from the top
 * of the tabla tree:
 *
 *   go run ./firmware-protocol/firmware/gen -arduino \
 *       -o firmware-protocol/arduino/tabla/tabla_board.h star
 *
 * (daha, gyges, star, six, ray, or a path to a .board file of your own;
 * RAY needs the Mega). Then choose Tools > Board > Arduino Mega or Uno, and
 * Upload. Pins: the top of hal_165.c and hardware/WIRING.md.
 *
 * The firmware has its own main() (main_165.c), its own millisecond timer
 * and UART interrupt: it does not use the Arduino core (no setup() or
 * loop() here, no Serial), so nothing of the core is linked but what the
 * build needs to start.
 */
