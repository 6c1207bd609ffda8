//go:build linux

package runcmd

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine"
)

// TestCardFullPausesTheGame: `tabla run --board sim` journals on a 64 KB
// tmpfs, which fills up under the game. The game pauses: the status API
// and the live page (a phone, in Chromium) say in words that the card is
// full and what to do, the log says it once; moves made meanwhile are
// followed and kept. Space is freed: the daemon writes them by itself
// (its retry timer), the page goes back to the game, and the journal
// holds every move played. Today's daemon logs "no space left" and goes
// on: the moves made on the full card are lost.
func TestCardFullPausesTheGame(t *testing.T) {
	t.Parallel()
	journal := testfs.Tmpfs(t, "64k")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type started struct {
		sess *companion.Session
		addr string
	}
	ready := make(chan started, 1)
	var log lockedBuffer
	o := &Options{IO: &cmdutil.IO{Out: &log, Err: &log}, Game: "star", First: "red", Board: "sim", Journal: journal,
		SpareJournal: filepath.Join(t.TempDir(), "spare"), Listen: "127.0.0.1:0", Seed: 1, Ready: func(s *companion.Session, addr string) { ready <- started{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var sess *companion.Session
	var addr string
	select {
	case r := <-ready:
		sess, addr = r.sess, r.addr
	case err := <-done:
		t.Fatalf("tabla run: %v\n%s", err, log.String())
	}
	vb := companion.Sim(sess.HW())
	changes := sess.Subscribe(ctx)
	until := func(what string, cond func(companion.Status) bool) companion.Status {
		t.Helper()
		guard := time.After(60 * time.Second) // against hanging only
		for {
			st := sess.StatusJSON()
			if cond(st) {
				return st
			}
			select {
			case <-changes:
			case <-guard:
				t.Fatalf("%s: never; status %+v\nlog:\n%s", what, st, log.String())
			}
		}
	}
	g, err := engine.New("star", engine.Config{First: "red", Board: boards.Default("star")})
	if err != nil {
		t.Fatal(err)
	}
	var played []string
	play := func() {
		t.Helper()
		m := g.Moves(nil)[0]
		text := string(g.AppendMove(nil, m))
		before := g.Position().Pieces
		g.Play(m)
		carry(t, vb, before, g.Position().Pieces)
		played = append(played, text)
		until("the move "+text, func(companion.Status) bool { return slices.Equal(sess.State().Moves, played) })
	}
	play()
	play()
	path := sess.JournalPath()

	filler := filepath.Join(journal, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 512)); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	for n := 0; sess.JournalProblem() == nil; n++ {
		if n == 100 {
			t.Fatalf("100 moves on a full card, and the game is not paused\n%s", log.String())
		}
		play()
	}
	for range 5 {
		play()
	}
	st := until("the pause said", func(st companion.Status) bool { return st.JournalProblem != "" && st.Unrecorded >= 5 })
	for _, want := range []string{"Game paused: the table's memory card is full", "Free some space on the card", "goes on by itself", "kept in the table's memory"} {
		if !strings.Contains(st.JournalProblem, want) {
			t.Errorf("the page's words %q do not say %q", st.JournalProblem, want)
		}
	}
	if n := strings.Count(log.String(), "journal cannot be written"); n != 1 || !strings.Contains(log.String(), "free space on the filesystem of "+journal) {
		t.Errorf("the log says the pause %d times (want once, with what to do):\n%s", n, log.String())
	}
	resp, err := http.Get("http://" + addr + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if doc["journal_problem"] == nil || doc["unrecorded"] == nil {
		t.Errorf("GET /api/state: journal_problem %v, unrecorded %v", doc["journal_problem"], doc["unrecorded"])
	}
	page := browsertest.Start(t)
	browsertest.Phone(t, page)
	if err := chromedp.Do(page, chromedp.Navigate("http://"+addr+"/")); err != nil {
		t.Fatal(err)
	}
	const shown = `document.getElementById("conn").textContent + " / " + document.getElementById("sync").textContent + " / " + document.getElementById("message").textContent`
	browsertest.WaitJS(t, page, "the page's words for a full card",
		`document.getElementById("conn").textContent === "game paused" && document.getElementById("sync").textContent === "paused: moves not recorded" && `+
			`document.getElementById("message").textContent.startsWith("Game paused: the table's memory card is full")`, shown)
	browsertest.Screenshot(t, page, "table-card-full")
	// the spare folder offered, to a paired phone only (this one is not)
	browsertest.WaitJS(t, page, "the spare folder's button",
		`!document.getElementById("spare").hidden && document.getElementById("spare").disabled`, `document.getElementById("spare").outerHTML`)
	if doc["spare_journal"] != true {
		t.Errorf("GET /api/state: spare_journal %v, want true", doc["spare_journal"])
	}

	// space is back: the daemon writes what it kept by itself
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	until("the journal written again", func(st companion.Status) bool { return st.JournalProblem == "" })
	browsertest.WaitJS(t, page, "the page back to the game",
		`document.getElementById("conn").textContent === "board connected" && !document.getElementById("message").textContent.includes("paused")`, shown)
	play()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "journal written again") {
		t.Errorf("the log does not say the journal was written again:\n%s", log.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(data), "\n") {
		var ev struct{ Move string }
		if strings.HasPrefix(l, `{"move":`) && json.Unmarshal([]byte(l), &ev) == nil {
			got = append(got, ev.Move)
		}
	}
	if !slices.Equal(got, played) {
		t.Errorf("the journal holds %d moves, %d were played: %d lost\njournal %v\nplayed  %v", len(got), len(played), len(played)-len(got), got, played)
	}
	res, err := companion.ReplayFile(path)
	if err != nil || !res.Match() {
		t.Errorf("replay: %v %v", err, res.Diff())
	}
	t.Logf("%d moves played, %d of them while the card was full, 0 lost", len(played), st.Unrecorded)
}
