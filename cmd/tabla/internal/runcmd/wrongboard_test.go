//go:build unix

package runcmd

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/record/recordtest"
	"github.com/tabla-board/tabla/sim"
)

// carry makes a position's change on a virtual board: the cells that lose
// their piece are lifted, then the others filled.
func carry(t *testing.T, vb *sim.Board, before, after map[string]string) {
	t.Helper()
	var lifts, places []string
	for c, p := range before {
		if after[c] != p {
			lifts = append(lifts, c)
		}
	}
	for c, p := range after {
		if before[c] != p {
			places = append(places, c)
		}
	}
	slices.Sort(lifts)
	slices.Sort(places)
	for _, c := range lifts {
		if err := vb.Lift(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range places {
		if err := vb.Place(c, after[c]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWrongBoardWaitsForTheRightOne: `tabla run --board serial:…` for STAR
// finds a GYGES board on the line at start. It does not exit: it resumes
// its unfinished game, serves its page and status, which say in words
// that the board is not the one it is set up for and what to do, logs the
// board file, what the board announced and what to do, and plays nothing.
// When the STAR board is plugged in instead (the device now leads to it)
// the game goes on where it stopped, without a restart.
func TestWrongBoardWaitsForTheRightOne(t *testing.T) {
	t.Parallel()
	star, gyges := boards.Default("star"), boards.Default("gyges")
	wrongBoard, rightBoard := newPTYBoardOf(t, "gyges", gyges), newPTYBoardOf(t, "star", star)
	wrongPath, rightPath, right := wrongBoard.path, rightBoard.path, rightBoard.vb
	dev := filepath.Join(t.TempDir(), "ttyTabla")
	if err := os.Symlink(wrongPath, dev); err != nil {
		t.Fatal(err)
	}

	// an unfinished game: red's b1-f3 and white's d13-h11
	journal := t.TempDir()
	path := filepath.Join(journal, companion.JournalName("star", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := recordtest.Chatter(f, 0, recordtest.Ticks); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(f, path)
	f.Close()
	if err != nil || g.State.Plies() != 2 {
		t.Fatalf("the journal: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type started struct {
		sess *companion.Session
		addr string
	}
	ready := make(chan started, 1)
	var log lockedBuffer
	o := &Options{IO: &cmdutil.IO{Out: &log, Err: &log}, Game: "star", Board: "serial:" + dev, Journal: journal,
		Listen: "127.0.0.1:0", Ready: func(s *companion.Session, addr string) { ready <- started{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var sess *companion.Session
	var addr string
	select {
	case r := <-ready:
		sess, addr = r.sess, r.addr
	case err := <-done:
		t.Fatalf("tabla run on the wrong board exited: %v\n%s", err, log.String())
	}
	if sess.Resumed() != path {
		t.Fatalf("resumed %q, want %s", sess.Resumed(), path)
	}

	// until says when cond holds of the status, woken by the session's
	// changes (a generous guard against hanging, no timing assertion)
	changes := sess.Subscribe(ctx)
	until := func(what string, cond func(companion.Status) bool) companion.Status {
		t.Helper()
		guard := time.After(60 * time.Second)
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
	st := until("the refusal shown", func(st companion.Status) bool { return st.BoardProblem != "" })
	for _, want := range []string{"not the star board", "38 cells", "169 cells", "plug in the star board", "Nothing is played"} {
		if !strings.Contains(st.BoardProblem, want) {
			t.Errorf("the page's words %q do not say %q", st.BoardProblem, want)
		}
	}
	for _, want := range []string{"wrong board", "board_file=builtin:star", "38 sensors", "want=\"169 sensors, 169 LEDs\"", "plug in the star board", "--board-file"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
	// the page and the status API are served, and say it
	resp, err := http.Get("http://" + addr + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if resp.StatusCode != 200 || doc["board_problem"] != st.BoardProblem {
		t.Errorf("GET /api/state: %s, board_problem %v", resp.Status, doc["board_problem"])
	}
	if resp, err := http.Get("http://" + addr + "/"); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// the live page says it in words (a phone, in Chromium)
	page := browsertest.Start(t)
	browsertest.Phone(t, page)
	if err := chromedp.Do(page, chromedp.Navigate("http://"+addr+"/")); err != nil {
		t.Fatal(err)
	}
	const shown = `document.getElementById("conn").textContent + " / " + document.getElementById("sync").textContent + " / " + document.getElementById("message").textContent`
	browsertest.WaitJS(t, page, "the page's words for the wrong board",
		`document.getElementById("conn").textContent === "wrong board" && document.getElementById("sync").textContent === "wrong board plugged in" && `+
			`document.getElementById("message").textContent.includes("is not the star board this table is set up for")`, shown)
	browsertest.Screenshot(t, page, "table-wrong-board")
	// nothing is played on it
	if rs := sess.State(); rs.Conn == "connected" || rs.InSync || len(rs.Moves) != 2 {
		t.Errorf("on the wrong board: conn %s, in sync %v, moves %v", rs.Conn, rs.InSync, rs.Moves)
	}

	// The STAR board, set up as the game stands, is plugged in instead.
	start, err := engine.New("star", engine.Config{First: "red", Board: star})
	if err != nil {
		t.Fatal(err)
	}
	carry(t, right, start.Position().Pieces, g.State.Position().Pieces)
	swap := dev + ".new"
	if err := os.Symlink(rightPath, swap); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(swap, dev); err != nil {
		t.Fatal(err)
	}
	until("the game goes on on the right board", func(st companion.Status) bool {
		rs := sess.State()
		return st.BoardProblem == "" && rs.Conn == "connected" && rs.InSync && rs.Mode == "play"
	})
	browsertest.WaitJS(t, page, "the page on the right board",
		`document.getElementById("conn").textContent === "board connected" && !document.getElementById("message").textContent.includes("not the star board")`, shown)
	if !strings.Contains(log.String(), "the right board is plugged in") {
		t.Errorf("the log does not say the right board came:\n%s", log.String())
	}

	// and a move on it is recorded
	next := g.State.Clone()
	m := next.Moves(nil)[0]
	text := string(next.AppendMove(nil, m))
	before := next.Position().Pieces
	next.Play(m)
	carry(t, right, before, next.Position().Pieces)
	until("the move "+text+" recorded", func(companion.Status) bool {
		return slices.Equal(sess.State().Moves, []string{"b1-f3", "d13-h11", text})
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
