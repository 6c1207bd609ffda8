/* Entry point of the ATmega328P reference board (see hal_avr.c for pins). */
#include <avr/wdt.h>

#include "hal.h"
#include "tabla_fw.h"

static tabla_fw_t fw;

int main(void)
{
    hal_init();
    tabla_fw_init(&fw);
    /* A hung board resets and says Hello again; the host re-handshakes. */
    wdt_enable(WDTO_500MS);
    for (;;) {
        wdt_reset();
        tabla_fw_poll(&fw);
    }
}
