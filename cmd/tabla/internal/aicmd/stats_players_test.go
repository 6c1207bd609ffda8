package aicmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/aicmd"
)

// TestStatsPlayers: tabla stats counts each named player's games, wins,
// losses and unfinished games across records and games; records without
// names count for no one, and old records read as before.
func TestStatsPlayers(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// red reaches o15: Ayşe (red) wins, Can (blue) loses
		"a.jsonl": `{"tabla":1,"game":"ray","names":{"red":"Ayşe","blue":"Can"},"start":{"to_move":"red","pieces":{"o14":"red","b2":"blue"}}}` + "\n" +
			`{"roll":"N"}` + "\n" + `{"move":"o15"}` + "\n",
		// unfinished STAR: Ayşe (white), Bora (red)
		"b.jsonl": `{"tabla":1,"game":"star","first":"red","names":{"red":"Bora","white":"Ayşe"},"event":"club","round":"1"}` + "\n",
		// red's flag fell: Ayşe (red) loses on time, Bora (white) wins
		"d.jsonl": `{"tabla":1,"game":"star","first":"red","names":{"red":"Ayşe","white":"Bora"},"clock":"1m"}` + "\n" +
			`{"move":"b1-d9","ms":30000}` + "\n" + `{"move":"b12-d6","ms":1000}` + "\n" + `{"end":"time","flag":"red","at":95000}` + "\n",
		// no names: counts for no one
		"c.jsonl": `{"tabla":1,"game":"ray","start":{"to_move":"red","pieces":{"o14":"red","b2":"blue"}}}` + "\n" + `{"roll":"N"}` + "\n" + `{"move":"o15"}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := aicmd.Collect(dir, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]aicmd.PlayerStats{}
	for _, p := range st.Players {
		got[p.Name] = *p
	}
	for name, want := range map[string]struct{ games, won, lost, onTime, unfinished int }{
		"Ayşe": {3, 1, 1, 1, 1}, "Bora": {2, 1, 0, 0, 1}, "Can": {1, 0, 1, 0, 0},
	} {
		p := got[name]
		if p.Games != want.games || p.Won != want.won || p.Lost != want.lost || p.LostOnTime != want.onTime || p.Unfinished != want.unfinished {
			t.Errorf("%s: %+v, want %+v", name, p, want)
		}
	}
	if len(got) != 3 || got["Ayşe"].ByGame["ray"] != 1 || got["Ayşe"].ByGame["star"] != 2 {
		t.Errorf("players %+v", got)
	}
	out := run(t, "", "stats", dir)
	if !strings.Contains(out, "players: 3 named") || !strings.Contains(out, "Ayşe") || !strings.Contains(out, "ray 1, star 2") || !strings.Contains(out, "time ran out") {
		t.Errorf("stats text:\n%s", out)
	}
	js := run(t, "", "stats", "--json", dir)
	var doc struct {
		Players []aicmd.PlayerStats `json:"by_player"`
	}
	js = strings.TrimSuffix(js[strings.IndexByte(js, '\n')+1:], "exit 0\n")
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Players) != 3 {
		t.Errorf("stats --json: %v %s", err, js)
	}
}

// TestAnalyzeTimePerMove: the analysis of a record with clocks gives each
// timed move its turn's time ("ms").
func TestAnalyzeTimePerMove(t *testing.T) {
	rec := `{"tabla":1,"game":"star","first":"red","clock":"1m+2s"}` + "\n" + `{"move":"b1-d9","ms":12345}` + "\n" + `{"move":"b12-d6"}` + "\n"
	out := run(t, rec, "analyze", "--level", "1", "--json", "-")
	if !strings.Contains(out, `"move":"b1-d9"`) || !strings.Contains(out, `"ms":12345`) || strings.Count(out, `"ms":`) != 1 {
		t.Errorf("analyze:\n%s", out)
	}
}
