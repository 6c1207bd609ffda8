package simcmd

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPageCrossSiteBrowser: a page from another site open in the same
// browser cannot act on the simulator: neither a "simple" no-cors POST
// (text/plain, which needs no preflight) nor a JSON POST (its preflight
// is not granted). The real Chromium sends the headers the guard reads.
func TestPageCrossSiteBrowser(t *testing.T) {
	ctx := browser(t)
	addr, ps := servePage(t, PageOptions{Game: "gyges", Sensors: "identifying", Seed: 1})
	target := "http://" + addr + "/api/action"
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>evil</title><script>
window.simple = "pending"; window.json = "pending";
fetch(%q, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"place":"c1","piece":"3"}'})
  .then(() => window.simple = "sent", e => window.simple = "error " + e);
fetch(%q, {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"place":"d6","piece":"2"}'})
  .then(r => window.json = "status " + r.status, e => window.json = "blocked");
</script>`, target, target)
	}))
	defer evil.Close()
	// localhost and 127.0.0.1 are different sites to the browser
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	if err := chromedp.Do(ctx, chromedp.Navigate(evilURL)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var simple, json string
	for {
		var err error
		if simple, err = chromedp.Run(ctx, chromedp.Evaluate[string](`window.simple`)); err != nil {
			t.Fatal(err)
		}
		if json, err = chromedp.Run(ctx, chromedp.Evaluate[string](`window.json`)); err != nil {
			t.Fatal(err)
		}
		if simple != "pending" && json != "pending" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the evil page's requests never finished: %q %q", simple, json)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if json != "blocked" {
		t.Errorf("the cross-site JSON POST got through to a response: %s", json)
	}
	time.Sleep(200 * time.Millisecond)
	if pieces := ps.State().(PageState).Pieces; len(pieces) != 0 {
		t.Fatalf("a cross-site page acted on the board: %v (simple POST: %s, JSON POST: %s)", pieces, simple, json)
	}
	t.Logf("simple POST: %s (opaque), JSON POST: %s; the board is untouched", simple, json)
}
