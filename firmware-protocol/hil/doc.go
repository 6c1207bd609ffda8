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
// {"fault":"reset"} (for this test only) the MCU's reset line. Each expect
// line is awaited in the daemon's status API (/api/state), and after every
// recognised move the colours decoded from the LED pin must equal the
// referee's LED frame. It needs gcc-avr, avr-libc, binutils-avr,
// libsimavr-dev, make and cc; without them it skips, unless CI is set.
package hil
