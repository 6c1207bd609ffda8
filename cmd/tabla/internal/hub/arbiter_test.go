package hub

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/engine/record"
)

// arbiterDo sends an arbiter's action as the page and the commands do.
func arbiterDo(t testing.TB, th *testHub, id string, a ArbiterAction) []string {
	t.Helper()
	if a.By == "" {
		a.By = "Zeynep"
	}
	w, err := PostArbiter(context.Background(), "http://"+th.httpAddr, "secret", id, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Do, err)
	}
	return w
}

// TestArbiterEvening (issue 37): a GYGES Swiss run by the arbiter's
// tools over the hub's pages, on three simulated tables with clocks:
// players registered with the ratings they come with; the round's clocks
// started by the arbiter (each table's first mover's clock runs before
// any move); a late entry after round 1, a withdrawal and a requested
// half-point bye for round 2; a forfeit in round 2 (no one came: the
// table's unplayed game is replaced by the next pairing); round 3 paired
// by hand with a rematch (warned); three players paused so that round 4
// cannot be paired (the page says so); the arbiter allows the rematch;
// then ends the event. Every change is logged with who and why. The
// exports are checked: the crosstable (CSV and HTML) cell by cell, the
// round's printable page, the TRF report read back and paired again,
// and the records' zip against the hub's records.
func TestArbiterEvening(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	tables := map[string]*vtable{}
	urls := th.tableURLs("g1", "g2", "g3")
	for i, name := range []string{"g1", "g2", "g3"} {
		tables[name] = openVTable(t, urls[name], name, t.TempDir(), record.Header{Game: "gyges"}, "", uint64(500+i))
	}
	e, err := NewEvent(EventSpec{ID: "tools", Name: "Tools evening", Site: "Moda", Date: "2026-11-28", Sections: []SectionSpec{
		{Game: "gyges", System: club.Swiss, Rounds: 5, Clock: "10m+5s", Tables: []string{"g1", "g2", "g3"}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the event", 10*time.Second, func() bool { return th.hub.Event("tools") != nil })
	if _, err := PostArbiter(context.Background(), "http://"+th.httpAddr, "wrong", "tools", ArbiterAction{Do: ActEnter, Name: "Mallory"}); err == nil {
		t.Fatal("an entry with a wrong token")
	}
	for i, n := range []string{"Ayşe", "Bora", "Cem", "Deniz", "Elif"} {
		arbiterDo(t, th, "tools", ArbiterAction{Do: ActEnter, Name: n, Rating: float64(1900 - 100*i), RD: float64(60 + 20*i)})
	}
	if r := th.hub.Event("tools").Sections[0].Players[1].Rating; r.R != 1800 || r.RD != 80 {
		t.Fatalf("Bora came rated %v", r)
	}
	if code, body := clubPost(t, th, "/api/club/tools/start", "secret", struct{}{}); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	r1 := waitRound(t, th, "tools", 1, tables)
	// the round's clocks: started by the arbiter, before any move
	for _, p := range r1 {
		if st := tables[p.Table].sess.Clock(); st == nil || st.Running != "" {
			t.Fatalf("%s before the arbiter starts the clocks: %+v", p.Table, st)
		}
	}
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActClocks})
	for _, p := range r1 {
		v := tables[p.Table]
		waitFor(t, p.Table+"'s first mover's clock", 20*time.Second, func() bool { st := v.sess.Clock(); return st != nil && st.Running == "south" })
	}
	// between the rounds: a late entry, a withdrawal, a half-point bye
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActEnter, Name: "Fatma", Rating: 1750, RD: 120, Why: "came at nine"})
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActWithdraw, Name: "Elif", Why: "felt ill"})
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActBye, Name: "Ayşe", Round: 2, Why: "asked before the evening"})
	var play []*vtable
	for _, p := range r1 {
		play = append(play, tables[p.Table])
	}
	playClub(t, 20000, play...)

	// round 2: Bora, Cem, Deniz, Fatma on two boards; board 2 forfeited
	waitRound(t, th, "tools", 2, tables)
	s := th.hub.Event("tools").Sections[0]
	round2 := s.Played[1]
	if len(round2.Pairings) != 2 || !slices.Equal(round2.Half, []string{"Ayşe"}) || !slices.Equal(round2.Absent, []string{"Elif"}) || len(round2.Byes) != 0 {
		t.Fatalf("round 2: %+v", round2)
	}
	b2 := round2.Pairings[1]
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActForfeit, Round: 2, Board: 2, Absent: []string{b2.Players[1]}, Why: "did not come by 19:30"})
	playClub(t, 20000, tables[round2.Pairings[0].Table])

	// round 3, paired by the system, replaced by hand before a move: the
	// first board a rematch of round 1's first board
	waitRound(t, th, "tools", 3, tables)
	s = th.hub.Event("tools").Sections[0]
	first := s.Played[0].Pairings[0].Players
	var rest []string
	for _, p := range s.Players {
		if p.Out == "" && !slices.Contains(first, p.Name) {
			rest = append(rest, p.Name)
		}
	}
	if len(rest) != 3 {
		t.Fatalf("round 3's players besides %v: %v", first, rest)
	}
	met := map[[2]string]bool{}
	for _, r := range s.Played[:2] {
		for _, p := range r.Pairings {
			if !p.Result.Forfeit {
				met[[2]string{p.Players[0], p.Players[1]}], met[[2]string{p.Players[1], p.Players[0]}] = true, true
			}
		}
	}
	// board 2: two of the rest who have not met, the third the bye
	for met[[2]string{rest[0], rest[1]}] {
		rest = append(rest[1:], rest[0])
	}
	warn := arbiterDo(t, th, "tools", ArbiterAction{Do: ActPair, Games: [][]string{{first[1], first[0]}, {rest[0], rest[1]}}, Byes: []string{rest[2]}, Why: "the players asked to meet again"})
	if len(warn) != 1 || !strings.Contains(warn[0], "a rematch: "+first[1]+" and "+first[0]+" have met once") {
		t.Fatalf("warnings %q", warn)
	}
	r3 := waitRound(t, th, "tools", 3, tables)
	if p := r3["g1"]; !slices.Equal(p.Players, []string{first[1], first[0]}) {
		t.Fatalf("round 3 board 1 at g1: %v", p.Players)
	}
	// three players paused before round 3 ends: only the two of board 1
	// are left, who have met: round 4 cannot be paired
	for _, n := range append([]string{rest[0], rest[1]}, rest[2]) {
		arbiterDo(t, th, "tools", ArbiterAction{Do: ActWithdraw, Name: n, Pause: true, Why: "went home early"})
	}
	playClub(t, 20000, tables["g1"], tables["g2"])
	var v *EventView
	waitFor(t, "round 4 stuck, the page saying so", 20*time.Second, func() bool {
		v = eventView(t, th, "tools")
		sv := v.Sections[0]
		return len(sv.Played) == 3 && sv.Played[2].Complete && strings.Contains(sv.Stuck, "no pairing without a rematch")
	})
	if !slices.ContainsFunc(v.Log, func(l EventLogEntry) bool {
		return l.Refused && strings.Contains(l.What, "round 4 cannot be paired") && strings.Contains(l.What, "pair it by hand, allow a rematch or end")
	}) {
		t.Fatalf("no log line for the stuck round: %v", v.Log)
	}
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActRematch, Why: "two players left; they agree to play again"})
	r4 := waitRound(t, th, "tools", 4, tables)
	if len(r4) != 1 || r4["g1"] == nil {
		t.Fatalf("round 4: %v", r4)
	}
	playClub(t, 20000, tables["g1"])
	waitFor(t, "round 4's result", 20*time.Second, func() bool { return th.hub.Event("tools").Sections[0].Played[3].Complete() })
	if _, err := PostArbiter(context.Background(), "http://"+th.httpAddr, "secret", "tools", ArbiterAction{Do: ActEnd, By: "Zeynep"}); err == nil || !strings.Contains(err.Error(), "say why") {
		t.Fatalf("an end without a reason: %v", err)
	}
	arbiterDo(t, th, "tools", ArbiterAction{Do: ActEnd, Why: "the hall closes at 23:00"})

	e = th.hub.Event("tools")
	s = e.Sections[0]
	v = eventView(t, th, "tools")
	if !s.Finished() || !s.Ended || !v.Sections[0].Finished || !v.Sections[0].Ended {
		t.Fatalf("after the end: finished %v ended %v", s.Finished(), s.Ended)
	}
	// the log: who and why of every change
	wantLog := []string{
		"Bora registered for gyges, rated 1800 ± 80",
		"gyges round 1's clocks started",
		"Fatma entered gyges from round 2 (no points for the rounds before), rated 1750 ± 120: came at nine",
		"Elif withdrew from gyges after round 1: felt ill",
		"Ayşe has a half-point bye in gyges round 2: asked before the evening",
		fmt.Sprintf("gyges round 2 board 2 (%s) forfeited: %s +, %s −: did not come by 19:30", strings.Join(b2.Players, " – "), b2.Players[0], b2.Players[1]),
		"gyges round 3 paired by hand: board 1 at g1: " + first[1] + " – " + first[0],
		"gyges round 4 paired allowing rematches of rounds 1–",
		"gyges ended after 4 rounds; final standings: 1. ",
	}
	for _, w := range wantLog {
		if !slices.ContainsFunc(e.Log, func(l EventLogEntry) bool { return strings.Contains(l.What, w) && l.Who == "Zeynep" }) {
			t.Errorf("no log line by Zeynep with %q", w)
		}
	}
	// the points: the forfeit scored, the half bye, nothing for Fatma's
	// missed round, Elif nothing after round 1
	pts := map[string]float64{}
	for _, r := range s.Played {
		for _, b := range r.Byes {
			pts[b]++
		}
		for _, b := range r.Half {
			pts[b] += 0.5
		}
		for _, p := range r.Pairings {
			for i, n := range p.Players {
				pts[n] += p.Result.Points[i]
			}
		}
	}
	for _, st := range v.Sections[0].Standings {
		if st.Points != pts[st.Name] {
			t.Errorf("%s: %v points, the rounds give %v", st.Name, st.Points, pts[st.Name])
		}
	}

	// the crosstable as CSV: one line per player, a cell per round
	code, data := clubGet(t, th, "/api/club/tools/gyges/crosstable.csv")
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if code != 200 || err != nil || len(rows) != 7 {
		t.Fatalf("crosstable.csv: %d %v %d rows\n%s", code, err, len(rows), data)
	}
	if got := strings.Join(rows[0], ","); got != "no,rank,name,rating,rd,out,R1,R2,R3,R4,points,Buchholz,Sonneborn-Berger" {
		t.Fatalf("CSV header %s", got)
	}
	line := map[string][]string{}
	no := map[string]string{}
	for _, r := range rows[1:] {
		line[r[2]], no[r[2]] = r, r[0]
	}
	cell := func(name string, round int) string { return line[name][5+round] }
	if cell("Fatma", 1) != "−" || cell("Ayşe", 2) != "½ bye" || cell("Elif", 2) != "−" || line["Elif"][5] != "withdrawn" || line["Fatma"][3] != "1750" || line["Fatma"][4] != "120" {
		t.Errorf("Fatma R1 %q, Ayşe R2 %q, Elif R2 %q out %q, Fatma %s ± %s", cell("Fatma", 1), cell("Ayşe", 2), cell("Elif", 2), line["Elif"][5], line["Fatma"][3], line["Fatma"][4])
	}
	if c, w := cell(b2.Players[0], 2), no[b2.Players[1]]+"w+"; c != w {
		t.Errorf("the forfeit's winner: %q, want %q", c, w)
	}
	if c, w := cell(b2.Players[1], 2), no[b2.Players[0]]+"b−"; c != w {
		t.Errorf("the forfeit's loser: %q, want %q", c, w)
	}
	if c := cell(rest[2], 3); c != "bye 1" {
		t.Errorf("round 3's bye: %q", c)
	}
	code, data = clubGet(t, th, "/api/club/tools/gyges/crosstable.html")
	if code != 200 || !bytes.Contains(data, []byte("1750 ± 120")) || !bytes.Contains(data, []byte("@media print")) || !bytes.Contains(data, []byte("½ bye")) {
		t.Errorf("crosstable.html: %d\n%s", code, data)
	}
	// the printable round: its pairings and a slip per board
	code, data = clubGet(t, th, "/api/club/tools/gyges/round/3/print.html")
	if code != 200 || bytes.Count(data, []byte(`class="slip"`)) != 2 || !bytes.Contains(data, []byte("1–0")) || !bytes.Contains(data, []byte("size: A4")) {
		t.Errorf("round 3's print page: %d\n%s", code, data)
	}
	// the TRF report: read back, its points the standings', and paired
	// (as `tabla club pair` does) into a round 5 without a second bye
	code, data = clubGet(t, th, "/api/club/tools/gyges/report.trf")
	tr, err := trf.Read(bytes.NewReader(data))
	if code != 200 || err != nil {
		t.Fatalf("report.trf: %d %v\n%s", code, err, data)
	}
	if len(tr.Players) != 6 || tr.Rounds != 5 || len(tr.Players[0].Cells) != 4 {
		t.Fatalf("report.trf: %d players, %d rounds planned, %d played\n%s", len(tr.Players), tr.Rounds, len(tr.Players[0].Cells), data)
	}
	for _, p := range tr.Players {
		if p.Points != pts[p.Name] {
			t.Errorf("TRF %s: %v points, want %v", p.Name, p.Points, pts[p.Name])
		}
	}
	next, err := club.PairTRF(tr, club.SystemDutch)
	if err != nil || len(next.Boards) != 3 {
		t.Fatalf("the TRF paired: %v %v", next, err)
	}
	// every scored game's record in one zip, with the crosstable and TRF
	code, data = clubGet(t, th, "/api/club/tools/records.zip")
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if code != 200 || err != nil {
		t.Fatalf("records.zip: %d %v", code, err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	games := 0
	for _, r := range s.Played {
		for _, p := range r.Pairings {
			if p.Result.Game == "" {
				continue // the forfeit: no record
			}
			games++
			table, gid, _ := strings.Cut(p.Result.Game, "/")
			f := files[fmt.Sprintf("gyges/r%02d-b%02d-%s-%s.jsonl", r.N, p.Board, table, gid)]
			if f == nil {
				t.Errorf("no record of round %d board %d in the zip: %v", r.N, p.Board, zr.File)
				continue
			}
			rc, _ := f.Open()
			var b bytes.Buffer
			b.ReadFrom(rc)
			rc.Close()
			if !bytes.Equal(b.Bytes(), must(th.hub.gameRecord(p.Result.Game))) {
				t.Errorf("round %d board %d: the zip's record differs from the hub's", r.N, p.Board)
			}
		}
	}
	if games != 6 || len(zr.File) != games+2 || files["gyges/crosstable.csv"] == nil || files["gyges/report.trf"] == nil {
		t.Errorf("the zip has %d files for %d records", len(zr.File), games)
	}
	if code, _ := clubPost(t, th, "/api/club/tools/arbiter", "", ArbiterAction{Do: ActEnd, Why: "x"}); code != http.StatusUnauthorized {
		t.Errorf("an arbiter's action without the token: %d", code)
	}
}
