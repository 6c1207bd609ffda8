/* Entry point of a board built from a board file on an RP2040 (see
 * hal_rp2040.c for the pins; rp2040/crt0.c calls this after start-up). */
#include "hal.h"
#include "rp2040/regs.h"
#include "tabla_fw.h"

static tabla_fw_t fw;

/* The watchdog counts down twice per microsecond tick (erratum RP2040-E1). */
#define WATCHDOG_MS 500u

int main(void)
{
    hal_init();
    tabla_fw_init(&fw);
    /* A hung board resets and says Hello again; the host re-handshakes. */
    REG(WATCHDOG_LOAD) = 2000u * WATCHDOG_MS;
    REG(PSM_WDSEL) = 0x1fffcu; /* the watchdog resets everything but the oscillators */
    REG_SET(WATCHDOG_CTRL) = WATCHDOG_CTRL_ENABLE;
    for (;;) {
        REG(WATCHDOG_LOAD) = 2000u * WATCHDOG_MS;
        tabla_fw_poll(&fw);
        hal_idle(); /* sleep until the next millisecond or received byte */
    }
}
