package hub

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A game's download goes through the club library, which serves only
// regular files inside its folder: a link in the folder pointing out of it
// is no game (issue 25: the hub served it with http.ServeFile).
func TestDownloadRefusesLinksOut(t *testing.T) {
	th := startHub(t)
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(outside, []byte(`{"tabla":1,"game":"star","first":"red"}`+"\nSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(th.dir, "library", "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + th.httpAddr + "/api/games/link.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "SECRET") {
		t.Fatalf("a link out of the library: %d %q, want 404 without its content", resp.StatusCode, body)
	}
}
