package companion

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// TestStartPaired: the hub's pairing replaces a game not yet begun with
// one whose header carries the names, event, round and time control; the
// same pairing again changes nothing; a game under way is never
// abandoned for one; a wrong seat is refused; once the game ends the next
// pairing starts.
func TestStartPaired(t *testing.T) {
	dir := t.TempDir()
	p, s := newSimSession(t, record.Header{Game: "star", First: "red"}, dir, true)
	ctl, err := clock.ParseControls([]string{"10m+5s"})
	if err != nil {
		t.Fatal(err)
	}
	w := record.Who{Names: map[string]string{"red": "Ayşe", "white": "Bora"}, Event: "Moda", Round: "1.2"}
	before := s.JournalPath()
	if started, err := s.StartPaired(w, ctl); !started || err != nil {
		t.Fatalf("the first pairing: %v %v", started, err)
	}
	g, _ := journalled(t, s)
	if s.JournalPath() == before || !s.Paired(w) || g.Header.Names["white"] != "Bora" || g.Header.Round != "1.2" || g.Header.Clock.String() != "10m+5s" {
		t.Fatalf("the paired game's header: %+v (journal %s, was %s)", g.Header, s.JournalPath(), before)
	}
	if c := s.Clock(); c == nil || c.Control != "10m+5s" || c.LeftMs["red"] != 600000 {
		t.Fatalf("the paired game's clocks: %+v", c)
	}
	if started, err := s.StartPaired(w, ctl); started || err != nil {
		t.Fatalf("the same pairing again: %v %v", started, err)
	}
	playRandomStar(t, p, s, 2, rand.New(rand.NewPCG(3, 4)))
	next := record.Who{Names: map[string]string{"red": "Cem", "white": "Deniz"}, Event: "Moda", Round: "2.2"}
	if _, err := s.StartPaired(next, ctl); !errors.Is(err, ErrGameUnderWay) {
		t.Fatalf("a pairing during a game: %v", err)
	}
	if _, err := s.StartPaired(record.Who{Names: map[string]string{"green": "X"}, Event: "Moda", Round: "2.2"}, ctl); err == nil {
		t.Fatal("a pairing naming a seat STAR has not")
	}
	if !s.Paired(w) {
		t.Fatal("the game under way lost its pairing")
	}
	// the game ends (the clock of the seat to move runs out), then the
	// next pairing starts
	wait(t, p, 11*time.Minute)
	if !s.Ended() {
		t.Fatal("no flag after 11 minutes")
	}
	if started, err := s.StartPaired(next, nil); !started || err != nil {
		t.Fatalf("the next pairing after the game: %v %v", started, err)
	}
	g, _ = journalled(t, s)
	if g.Header.Names["red"] != "Cem" || len(g.Header.Clock) != 0 || s.Clock() != nil {
		t.Fatalf("the next game: %+v, clock %+v", g.Header, s.Clock())
	}
}
