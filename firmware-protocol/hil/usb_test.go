package hil_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/hardware/serial"
)

// usbID is the USB id the RP2040 build enumerates with (firmware/Makefile's
// USB_VID and USB_PID): the harness's USB host checks it in the device
// descriptor, and serial:auto must know it (hardware/serial.KnownUSB).
var usbID = serial.USBID{VID: "1209", PID: "0001"}

// isRP2040 tells the builds that run in rp2040js: rp2040,
// the default build on the chip's USB port, and rp2040-uart, on UART0.
func isRP2040(mcu string) bool { return strings.HasPrefix(mcu, "rp2040") }

// TestUSBID: the ids the Makefile builds with are the ones the harness
// checks and the daemon's serial:auto looks for.
func TestUSBID(t *testing.T) {
	mk, err := os.ReadFile("../firmware/Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"USB_VID": usbID.VID, "USB_PID": usbID.PID} {
		m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*0x([0-9A-Fa-f]{4})\s*$`).FindSubmatch(mk)
		if m == nil {
			t.Errorf("firmware/Makefile: no %s ?= 0xNNNN", name)
		} else if !strings.EqualFold(string(m[1]), want) {
			t.Errorf("firmware/Makefile: %s 0x%s, the test expects %s", name, m[1], want)
		}
	}
	found := false
	for _, id := range serial.KnownUSB {
		found = found || (strings.EqualFold(id.VID, usbID.VID) && strings.EqualFold(id.PID, usbID.PID))
	}
	if !found {
		t.Errorf("serial.KnownUSB lacks %s:%s: serial:auto would not find the RP2040 board on USB", usbID.VID, usbID.PID)
	}
}

// checkUSB: a USB build (mcu rp2040) enumerated, every time with the
// board's product string; the harness checked the ids and the rest.
func (h *harness) checkUSB(mcu, board string) {
	h.t.Helper()
	if mcu != "rp2040" {
		return
	}
	h.mu.Lock()
	seen := append([]string(nil), h.usb...)
	h.mu.Unlock()
	if len(seen) == 0 {
		h.t.Error("the USB device never enumerated")
		return
	}
	want := fmt.Sprintf("%s:%s tabla|tabla %s board|", strings.ToLower(usbID.VID), strings.ToLower(usbID.PID), board)
	for _, s := range seen {
		if !strings.HasPrefix(s, want) {
			h.t.Errorf("USB enumeration %q, want %q...", s, want)
		}
	}
	h.t.Logf("USB: enumerated %d times as %q", len(seen), seen[0])
}
