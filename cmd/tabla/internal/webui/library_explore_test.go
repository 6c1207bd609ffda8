package webui

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
)

// TestLibraryExploreRoutes: the analysis board's variation, evaluation,
// search, progress and annotated-record routes answer as the library does,
// and refuse what cannot be played.
func TestLibraryExploreRoutes(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 12); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	srv := httptest.NewServer(Library(lib, LibraryOptions{}))
	defer srv.Close()

	code, body, _ := get(t, srv.URL+"/api/games")
	if code != 200 {
		t.Fatalf("games: %d", code)
	}
	var p library.IndexProgress
	if code, body, _ = get(t, srv.URL+"/api/progress"); code != 200 || json.Unmarshal([]byte(body), &p) != nil || p.Indexing || p.Read != p.Total || p.Total == 0 {
		t.Errorf("progress: %d %s", code, body)
	}
	var ids []string
	if code, body, _ = get(t, srv.URL+"/api/search?q=white"); code != 200 || json.Unmarshal([]byte(body), &ids) != nil || len(ids) != 2 {
		t.Errorf("search: %d %s", code, body)
	}
	var x library.Explored
	code, body, _ = get(t, srv.URL+"/api/explore?id=star.jsonl&ply=2")
	if code != 200 || json.Unmarshal([]byte(body), &x) != nil || len(x.Legal) == 0 {
		t.Fatalf("explore: %d %s", code, body)
	}
	mv := x.Legal[0].Move
	code, body, _ = get(t, srv.URL+"/api/explore?id=star.jsonl&ply=2&m="+url.QueryEscape(mv))
	if code != 200 || json.Unmarshal([]byte(body), &x) != nil || x.Step.Move != mv || len(x.Line) != 1 {
		t.Errorf("explore %s: %d %s", mv, code, body)
	}
	if code, body, _ = get(t, srv.URL+"/api/explore?id=star.jsonl&ply=2&m=a1-a9"); code != 422 {
		t.Errorf("an illegal move: %d %s", code, body)
	}
	if code, _, _ = get(t, srv.URL+"/api/explore?id=star.jsonl&ply=x"); code != 400 {
		t.Errorf("ply x: %d", code)
	}
	if code, _, _ = get(t, srv.URL+"/api/explore?id=nope.jsonl&ply=0"); code != 404 {
		t.Errorf("no such game: %d", code)
	}
	var ev library.Evaluation
	code, body, _ = get(t, srv.URL+"/api/evaluate?id=star.jsonl&ply=2&lines=3")
	if code != 200 || json.Unmarshal([]byte(body), &ev) != nil || len(ev.Lines) != 3 {
		t.Errorf("evaluate: %d %s", code, body)
	}
	if code, _, _ = get(t, srv.URL+"/download/annotated?id=star-missed-win.jsonl"); code != 409 {
		t.Errorf("annotated before the analysis: %d", code)
	}
	lib.Analyze("star-missed-win.jsonl")
	waitAnalysed(t, lib, "star-missed-win.jsonl")
	code, body, h := get(t, srv.URL+"/download/annotated?id=star-missed-win.jsonl")
	if code != 200 || !strings.Contains(body, `{"comment":`) || !strings.Contains(h.Get("Content-Disposition"), "star-missed-win.annotated.jsonl") {
		t.Errorf("annotated: %d %q %s", code, h.Get("Content-Disposition"), body)
	}
}
