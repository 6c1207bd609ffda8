package runcmd

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// from is an HTTP client whose connections come from a loopback address
// (127.0.0.N), with its own cookies: another phone on the LAN.
func from(t *testing.T, ip string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: d.DialContext}}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	browsertest.Wait(t, what, cond, func() string { return "not yet" })
}

func postPair(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPairSpam: phones on the LAN spamming POST /api/pair while a piece is
// lifted: the lifted piece's destinations stay lit on the board, one cell
// alone shows the request, the first asker gets the request, the others
// are told the board is busy; a move on the board cancels the request;
// the first cannot ask again at once, a second phone at its address can.
func TestPairSpam(t *testing.T) {
	tb, _, _ := runDaemon(t, t.TempDir(), "127.0.0.1:0")
	if err := tb.vb.Lift("b1"); err != nil {
		t.Fatal(err)
	}
	var dests []string
	waitFor(t, "b1's destinations", func() bool {
		dests = dests[:0]
		for c, l := range tb.sess.State().LEDs {
			if l.Role == "dest" {
				dests = append(dests, c)
			}
		}
		return len(dests) > 0
	})
	def := tb.sess.Board()
	ledOf := map[string]int{}
	for i, c := range def.Cells {
		ledOf[c.Name] = def.LEDs[i]
	}
	before := tb.vb.LEDs()

	codes := map[int]int{}
	clients := make([]*http.Client, 5)
	for i := range clients {
		clients[i] = from(t, fmt.Sprintf("127.0.0.%d", i+1))
	}
	for range 10 {
		for _, c := range clients {
			code, body := postPair(t, c, tb.url+"api/pair")
			codes[code]++
			if code >= 400 && !strings.Contains(body, `"reason":"pair_`) {
				t.Errorf("%d without a pairing reason: %s", code, body)
			}
		}
	}
	// the first client asked (asking again while its request stands
	// answers its status, 202 pending); the others are told the board is
	// busy
	if want := map[int]int{http.StatusAccepted: 10, http.StatusConflict: 40}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("answers %v, want %v", codes, want)
	}
	if pending, _ := tb.sess.Pairing(); !pending {
		t.Fatal("no request stands")
	}
	after := tb.vb.LEDs()
	pulsing := 0
	for i := range after {
		if after[i] == companion.PairingLight {
			pulsing++
		} else if after[i] != before[i] {
			t.Errorf("LED %d changed from %v to %v", i, before[i], after[i])
		}
	}
	if pulsing != 1 {
		t.Errorf("%d LEDs pulse, want 1", pulsing)
	}
	for _, c := range dests {
		if l := after[ledOf[c]]; l != before[ledOf[c]] || l == companion.PairingLight || (l.R == 0 && l.G == 0 && l.B == 0) {
			t.Errorf("destination %s is %v while phones spam, was %v", c, l, before[ledOf[c]])
		}
	}

	// a move cancels the request; the first client must wait its minute
	if err := tb.vb.Place("f3", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the request cancelled by the move", func() bool { p, _ := tb.sess.Pairing(); return !p })
	if code, body := postPair(t, clients[0], tb.url+"api/pair"); code != http.StatusTooManyRequests || !strings.Contains(body, `"reason":"pair_cooldown"`) {
		t.Errorf("the first client again at once: %d %s", code, body)
	}
	for _, l := range tb.vb.LEDs() {
		if l == companion.PairingLight {
			t.Fatal("the corner still pulses after the move")
		}
	}
	// a second phone behind the first one's address (a household's NAT)
	// may ask: the cooldown is the first browser's, not the address's
	if code, body := postPair(t, from(t, "127.0.0.1"), tb.url+"api/pair"); code != http.StatusAccepted || !strings.Contains(body, `"pending":true`) {
		t.Errorf("a second phone at the first client's address: %d %s", code, body)
	}
}
