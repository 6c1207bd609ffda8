package webui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	_ "github.com/tabla-board/tabla/engine/games"
)

func get(t *testing.T, u string) (int, string, http.Header) {
	t.Helper()
	r, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b), r.Header
}

// TestLibraryRoutes: the library's API lists the good games and the bad
// files with where they go wrong, steps a game, analyses it in the
// background and serves the downloads.
func TestLibraryRoutes(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 12); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	srv := httptest.NewServer(Library(lib, LibraryOptions{Live: "../"}))
	defer srv.Close()

	code, body, h := get(t, srv.URL+"/")
	if code != 200 || !strings.Contains(body, "library.js") || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("library page: %d %s", code, body[:min(len(body), 100)])
	}
	code, body, _ = get(t, srv.URL+"/api/games")
	var games []library.Entry
	if err := json.Unmarshal([]byte(body), &games); err != nil || code != 200 {
		t.Fatalf("games: %d %v", code, err)
	}
	bad := 0
	for _, e := range games {
		if e.Error != nil {
			bad++
			if e.Error.File != e.ID || e.Error.Line == 0 {
				t.Errorf("%s: %+v", e.ID, e.Error)
			}
		}
	}
	if len(games) != len(librarytest.Good)+len(librarytest.Bad) || bad != len(librarytest.Bad) {
		t.Errorf("%d listed, %d bad", len(games), bad)
	}
	for _, key := range []string{`"id"`, `"game"`, `"variant"`, `"players"`, `"date"`, `"plies"`, `"result"`, `"line"`, `"byte"`} {
		if !strings.Contains(body, key) {
			t.Errorf("the listing has no %s", key)
		}
	}
	q := "?id=" + url.QueryEscape("star.jsonl")
	code, body, _ = get(t, srv.URL+"/api/game"+q)
	var gv struct {
		Board BoardView      `json:"board"`
		Steps []library.Step `json:"steps"`
		Entry library.Entry  `json:"entry"`
	}
	if json.Unmarshal([]byte(body), &gv); code != 200 || gv.Board.Game != "star" || len(gv.Steps) != gv.Entry.Plies+1 {
		t.Errorf("game: %d %+v", code, gv.Entry)
	}
	for path, want := range map[string]int{"/api/game?id=torn.jsonl": 422, "/api/game?id=nope.jsonl": 404, "/api/game?id=..%2Fetc.jsonl": 404,
		"/download/curve.svg" + q: 409} {
		if code, body, _ := get(t, srv.URL+path); code != want {
			t.Errorf("%s: %d, want %d: %s", path, code, want, body)
		}
	}
	// nothing to stop yet; an unknown game is not found
	for u, want := range map[string]string{q: `"state":"none"`, "?id=nope.jsonl": "no such game"} {
		req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/api/analysis"+u, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if !strings.Contains(string(b), want) || (want == "no such game") != (r.StatusCode == http.StatusNotFound) {
			t.Errorf("DELETE /api/analysis%s: %d %s", u, r.StatusCode, b)
		}
	}
	// the analysis runs in the background
	r, err := http.Post(srv.URL+"/api/analysis"+q, "application/json", strings.NewReader("{}"))
	if err != nil || r.StatusCode != http.StatusAccepted {
		t.Fatalf("start analysis: %v %v", err, r.Status)
	}
	r.Body.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		_, body, _ = get(t, srv.URL+"/api/analysis"+q)
		var av struct {
			Progress library.Progress       `json:"progress"`
			Report   *struct{ Moves []any } `json:"report"`
		}
		json.Unmarshal([]byte(body), &av)
		if av.Progress.State == "done" && av.Report != nil {
			break
		}
		if av.Progress.State == "failed" || time.Now().After(deadline) {
			t.Fatalf("analysis: %s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, body, h = get(t, srv.URL+"/download/curve.svg"+q)
	// named as the PNG is: star.svg, not star.jsonl.svg
	if code != 200 || !strings.HasPrefix(body, "<svg") || h.Get("Content-Type") != "image/svg+xml" || h.Get("Content-Disposition") != `attachment; filename="star.svg"` {
		t.Errorf("curve: %d %s", code, h)
	}
	code, body, h = get(t, srv.URL+"/download/record"+q)
	if code != 200 || !strings.HasPrefix(body, `{"tabla":1,"game":"star"`) || !strings.Contains(h.Get("Content-Disposition"), `filename="star.jsonl"`) {
		t.Errorf("record: %d %s", code, h)
	}
	code, body, _ = get(t, srv.URL+"/api/stats")
	if code != 200 || !strings.Contains(body, `"by_game"`) || !strings.Contains(body, `"first_moves"`) {
		t.Errorf("stats: %d %s", code, body)
	}
	code, body, _ = get(t, srv.URL+"/api/info")
	if code != 200 || !strings.Contains(body, `"live":"../"`) {
		t.Errorf("info: %s", body)
	}
}

// An id given straight to the API never leads out of the library's folder:
// a symbolic link (to a file or a folder, out of DIR or inside it) is no
// game, the error shows nothing of the file it points to, and no analysis
// is written outside DIR.
func TestLibraryRefusesSymlinks(t *testing.T) {
	top := t.TempDir()
	dir, out := filepath.Join(top, "lib"), filepath.Join(top, "out")
	for _, d := range []string{dir, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := librarytest.WriteLibrary(dir, 6); err != nil {
		t.Fatal(err)
	}
	star, err := os.ReadFile(filepath.Join(dir, "star.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "secret.jsonl"), []byte("SECRET first line\n"), 0o644)
	os.WriteFile(filepath.Join(out, "game.jsonl"), star, 0o644)
	for link, to := range map[string]string{
		"secret.jsonl":  "../out/secret.jsonl",            // a file outside
		"outside.jsonl": filepath.Join(out, "game.jsonl"), // absolute
		"inner.jsonl":   "star.jsonl",                     // a link inside DIR
		"sub":           "../out",                         // a folder outside
	} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	srv := httptest.NewServer(Library(lib, LibraryOptions{}))
	defer srv.Close()
	for _, id := range []string{"secret.jsonl", "outside.jsonl", "inner.jsonl", "sub/game.jsonl", "sub/secret.jsonl"} {
		q := "?id=" + url.QueryEscape(id)
		for _, u := range []string{"/api/game" + q, "/download/record" + q, "/api/analysis" + q} {
			code, body, _ := get(t, srv.URL+u)
			if code != http.StatusNotFound || strings.Contains(body, "SECRET") {
				t.Errorf("GET %s: %d %q, want 404 showing nothing of the file", u, code, body[:min(len(body), 200)])
			}
		}
		r, err := http.Post(srv.URL+"/api/analysis"+q, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound || strings.Contains(string(b), "SECRET") {
			t.Errorf("POST /api/analysis%s: %d %q, want 404", q, r.StatusCode, b)
		}
	}
	// analyses run one at a time in order: once star.jsonl's is done, any
	// queued before it is too
	if _, err := lib.Analyze("star.jsonl"); err != nil {
		t.Fatal(err)
	}
	waitAnalysed(t, lib, "star.jsonl")
	if names, _ := filepath.Glob(filepath.Join(out, "*"+library.AnalysisSuffix)); len(names) != 0 {
		t.Errorf("analyses written outside the library: %v", names)
	}
	// the real file is served as before
	if code, _, _ := get(t, srv.URL+"/api/game?id=star.jsonl"); code != 200 {
		t.Errorf("star.jsonl: %d", code)
	}
}

// waitAnalysed waits until the library holds id's analysis, woken by each
// analysis that ends.
func waitAnalysed(t *testing.T, lib *library.Library, id string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := lib.WatchAnalyses(ctx)
	deadline := time.After(time.Minute)
	for {
		a, p, err := lib.Analysis(id)
		if err != nil || p.State == "failed" {
			t.Fatalf("%s's analysis: %v %+v", id, err, p)
		}
		if a != nil {
			return
		}
		select {
		case <-ended:
		case <-deadline:
			t.Fatalf("%s's analysis still %+v", id, p)
		}
	}
}
