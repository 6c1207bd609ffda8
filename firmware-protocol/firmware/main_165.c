/* Entry point of a board built from a board file (see hal_165.c for pins). */
#include <avr/io.h>
#include <avr/wdt.h>

#include "hal.h"
#include "tabla_fw.h"

static tabla_fw_t fw;

int main(void)
{
    MCUSR = 0; /* after a watchdog reset it would stay enabled */
    wdt_disable();
    hal_init();
    tabla_fw_init(&fw);
    /* A hung board resets and says Hello again; the host re-handshakes. */
    wdt_enable(WDTO_500MS);
    for (;;) {
        wdt_reset();
        tabla_fw_poll(&fw);
        hal_idle(); /* sleep until the next tick or received byte */
    }
}
