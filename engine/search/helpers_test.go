package search

import (
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/daha"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/ray"
	_ "github.com/tabla-board/tabla/engine/six"
	_ "github.com/tabla-board/tabla/engine/star"
)

// pieces builds a Position from "cell:piece" words.
func pieces(toMove, spec string) *engine.Position {
	p := &engine.Position{ToMove: toMove, Pieces: map[string]string{}}
	for _, w := range strings.Fields(spec) {
		c, v, _ := strings.Cut(w, "=")
		p.Pieces[c] = v
	}
	return p
}

// colour adds cells of one colour to spec.
func colour(col, cells string) string {
	var b strings.Builder
	for _, c := range strings.Fields(cells) {
		b.WriteString(c + "=" + col + " ")
	}
	return b.String()
}

func mustNew(t testing.TB, game string, cfg engine.Config) engine.State {
	t.Helper()
	s, err := engine.New(game, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// winsAtOnce reports whether m wins for the mover immediately.
func winsAtOnce(s engine.State, m engine.Move) bool {
	me := s.Info().SideOf[s.ToMove()]
	s.Play(m)
	defer s.Undo()
	r := s.Result()
	return r.Status == engine.Won && r.Winner == me
}

func anyWinAtOnce(s engine.State) bool {
	for _, m := range s.Moves(nil) {
		if winsAtOnce(s, m) {
			return true
		}
	}
	return false
}
