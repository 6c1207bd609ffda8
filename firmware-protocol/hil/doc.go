// Package hil is the hardware-in-the-loop test of the reference firmware:
// the real AVR build of every builtin board runs in simavr, wired to a
// simulated board, and the real daemon (`tabla run --board serial:PATH`)
// follows a game on it.
//
// The harness (firmware-protocol/firmware/hil_sim.c, linked with libsimavr)
// runs the ATmega2560 firmware in step with the wall clock, puts its UART
// on a pseudo-terminal behind a symbolic link (the "USB cable", which it
// can pull and plug back), emulates the 74HC165 sensor chain on the MCU's
// pins from the sensor values the test sets, decodes the WS2812 data pin's
// pulses back into colours, presses the buttons and feeds the die's noise
// pin so that it rolls the face a script asks for.
//
// The test plays a physical-action script (SCRIPTS.md) per board from
// testdata: lift and place become sensor values in the chain, roll a die
// roll, press a button, {"fault":"unplug"}/{"fault":"replug"} the cable and
// {"fault":"reset"} (for this test only) the MCU's reset line. The scripts
// play on the Mega, on the Uno (the four boards it holds) and on the
// RP2040. Each expect
// line is awaited in the daemon's status API (/api/state), and after every
// recognised move the colours decoded from the LED pin must equal the
// referee's LED frame, and every command the MCU received must have been
// answered by one Ack or Error (the harness reports every frame on the
// line). DAHA's game on the Mega ends with the heartbeats stopped: a quiet
// line first (the heartbeats must keep the daemon connected), then the
// MCU-to-host wire cut (hil_sim's "mute"), after which the daemon must
// call the board silent (its heartbeat watchdog) and show it disconnected.
//
// TestHILDriver runs each board's firmware, on the Mega and (where it
// fits) on the Uno, under the serial driver (hardware/serial) itself:
// every command acknowledged, Config brightness and blinking LEDs on the
// pin, heartbeats through 3 s of quiet line, and cell changes with their
// full index on RAY's cells 256 and above; on the AVR builds a change
// reported after exactly `debounce` scans that read it (hil_sim's "scans
// on" reports the chain's latches); and frames from the host damaged on
// the line (a payload bit under the CRC, a cut frame, garbage before a
// frame), each answered by Error bad-frame, applied in no part, and sent
// again by the driver. It also runs the Arduino sketch (../arduino/tabla)
// as arduino-builder builds it for the Mega and the Uno. mutate.sh builds
// firmware mutants and shows that the tests CI runs catch each
// (firmware/README.md).
//
// The RP2040 builds (firmware/hal_rp2040.c) run in the rp2040js emulator
// (npm, pinned by rp2040/package-lock.json) under rp2040/hil_rp2040.mjs, a
// harness with the same commands and output lines as hil_sim, its serial
// line on a pty kept by firmware/hil_cable: the default build on the chip's
// USB port (firmware/usb_cdc.c, mcu "rp2040"), for which the harness is the
// USB host (rp2040/usb_host.mjs: it enumerates the device as Linux does and
// checks its descriptors, ids and data toggles), and the UART0 build
// ("rp2040-uart"). TestHIL plays every script on both, TestHILDriver runs
// DAHA's and RAY's USB builds and RAY's UART0 build, and TestUSBID checks
// that the ids the firmware is built with are the ones serial:auto knows. The
// runner steps the PIO state machines with the CPU at their clock
// dividers, so the WS2812 pulses are decoded by their length as on the
// AVR, and the sensor chain is shifted bit by bit at its clock.
//
// The tests need gcc-avr, avr-libc, binutils-avr, libsimavr-dev,
// gcc-arm-none-eabi, arduino-builder, arduino-core-avr, make, cc, node and
// the npm package (npm ci --prefix
// firmware-protocol/hil/rp2040); without them they skip, unless CI is set,
// when they fail.
package hil
