package companion

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
)

// TestSetWho: a phone's names and event rewrite the journal's header, the
// moves before stay, the game resumes with them, and wrong values are
// refused naming the field, changing nothing.
func TestSetWho(t *testing.T) {
	dir := t.TempDir()
	h := record.Header{Game: "star", First: "red", Event: "Moda club evening"}
	p, s := newSimSession(t, h, dir, true)
	playRandomStar(t, p, s, 3, rand.New(rand.NewPCG(1, 2)))
	moves := s.State().Moves
	who := record.Who{Names: map[string]string{"red": "Ayşe", "white": "Bora"}, Event: "Moda club evening", Round: "2", Date: "2026-11-26"}
	if err := s.SetWho(who); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		who   record.Who
		field string
	}{
		{record.Who{Names: map[string]string{"green": "Can"}}, "names.green"},
		{record.Who{Round: "two"}, "round"},
		{record.Who{Names: map[string]string{"red": strings.Repeat("x", 101)}}, "names.red"},
	} {
		var fe *record.FieldError
		if err := s.SetWho(bad.who); !errors.As(err, &fe) || fe.Field != bad.field {
			t.Errorf("SetWho(%+v): %v, want a FieldError on %s", bad.who, err, bad.field)
		}
	}
	if got := s.Who(); got.Names["red"] != "Ayşe" || got.Round != "2" {
		t.Errorf("a refused SetWho changed the game's who: %+v", got)
	}
	playRandomStar(t, p, s, 1, rand.New(rand.NewPCG(3, 4)))
	data, err := os.ReadFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(strings.NewReader(string(data)), "journal")
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Header.Who(); got.Names["white"] != "Bora" || got.Event != "Moda club evening" || got.Date != "2026-11-26" {
		t.Errorf("header after SetWho: %+v", got)
	}
	if len(g.Applied) != len(moves)+1 {
		t.Errorf("journal holds %d moves, want %d", len(g.Applied), len(moves)+1)
	}
	if !strings.Contains(string(data), `{"who":{"names":{"red":"Ayşe","white":"Bora"}`) {
		t.Errorf("no who line for the hub in the journal:\n%s", data)
	}
	if _, err := metaOf(g.Header); err != nil {
		t.Errorf("the companion meta was lost: %v", err)
	}
	if r, err := ReplayFile(s.JournalPath()); err != nil || !r.Match() {
		t.Errorf("replay after SetWho: %v %v", err, r)
	}
	s.Close()
	_, s2 := newSimSession(t, record.Header{Game: "star", First: "red"}, dir, false)
	if got := s2.Who(); got.Names["red"] != "Ayşe" || got.Round != "2" {
		t.Errorf("resumed game's who: %+v", got)
	}
	if got := s2.StatusJSON().Who; got.Names["white"] != "Bora" {
		t.Errorf("status who: %+v", got)
	}
}

// TestParseWho reads --player SEAT=NAME flags.
func TestParseWho(t *testing.T) {
	seats := []string{"red", "white"}
	w, err := ParseWho(WhoOptions{Players: []string{"red=Ayşe Yılmaz", " white = Bora"}, Round: "1"}, seats)
	if err != nil || w.Names["red"] != "Ayşe Yılmaz" || w.Names["white"] != "Bora" {
		t.Fatalf("got %+v %v", w, err)
	}
	for _, bad := range [][]string{{"Ayşe"}, {"red=Ayşe", "red=Bora"}, {"blue=Can"}, {"red="}} {
		if _, err := ParseWho(WhoOptions{Players: bad}, seats); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
