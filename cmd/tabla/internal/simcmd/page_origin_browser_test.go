package simcmd

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestPageCrossSiteBrowser: a page from another site open in the same
// browser cannot act on the simulator: neither a "simple" no-cors POST
// (text/plain, which needs no preflight) nor a JSON POST (its preflight
// is not granted). The real Chromium sends the headers the guard reads.
func TestPageCrossSiteBrowser(t *testing.T) {
	t.Parallel()
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
	var got []string
	browsertest.WaitPage(t, "the evil page's requests to finish", func(l *browsertest.Look) bool {
		got = browsertest.Read[[]string](l, ctx, `[window.simple, window.json]`)
		return len(got) == 2 && got[0] != "pending" && got[1] != "pending"
	}, func(*browsertest.Look) string { return fmt.Sprintf("%q", got) })
	simple, json := got[0], got[1]
	if json != "blocked" {
		t.Errorf("the cross-site JSON POST got through to a response: %s", json)
	}
	time.Sleep(200 * time.Millisecond)
	if pieces := ps.State().(PageState).Pieces; len(pieces) != 0 {
		t.Fatalf("a cross-site page acted on the board: %v (simple POST: %s, JSON POST: %s)", pieces, simple, json)
	}
	t.Logf("simple POST: %s (opaque), JSON POST: %s; the board is untouched", simple, json)
}
