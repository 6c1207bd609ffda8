/*
 * The RP2040 build's serial line on the chip's own USB port: a USB CDC-ACM
 * device (a "virtual COM port", /dev/ttyACM0 on Linux) written from the
 * RP2040 datasheet (4.1, the USB controller) and the USB 2.0 and CDC 1.2
 * (PSTN 1.2) specifications, without the Pico SDK or TinyUSB. usb_cdc.c has
 * the descriptors, the control requests it answers and the buffer scheme.
 *
 * hal_rp2040.c calls these instead of its UART0 functions when built with
 * -DTABLA_LINK_USB (make RP2040_LINK=usb, the default).
 */
#ifndef TABLA_USB_CDC_H
#define TABLA_USB_CDC_H

#include <stdint.h>

/* Takes the USB controller out of reset, starts its 48 MHz clock (pll_usb
 * must run) and connects to the bus (the D+ pull-up). */
void usb_cdc_init(void);

/* Next byte the host sent, or -1 if none is waiting. */
int usb_cdc_read(void);
/* Nonzero while received bytes wait to be read. */
uint8_t usb_cdc_rx_pending(void);

/* Queues a byte for the host. Bytes are dropped while no host has the port
 * open (not configured, or DTR low), and while a host that holds the port
 * open takes nothing for TABLA_USB_STALL_MS (until it takes half the queue
 * again), so that the firmware never blocks on a host that does not read. */
void usb_cdc_write(uint8_t byte);
/* Starts sending what is queued (the main loop calls it before it sleeps,
 * so that a frame written byte by byte leaves in one packet). */
void usb_cdc_flush(void);

/* The controller's interrupt (vector 16 + 5, rp2040/crt0.c). */
void isr_usbctrl(void);

#endif /* TABLA_USB_CDC_H */
