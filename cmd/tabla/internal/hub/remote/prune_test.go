package remote

import (
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
)

// TestRemoteFollowsOnlyTheGameNow: when the table's game changes, the
// records of the earlier game's remote seats stop being followed (each
// kept a consumer and a 1.5 s poll until the daemon stopped).
func TestRemoteFollowsOnlyTheGameNow(t *testing.T) {
	r := &Remote{name: "h", sources: map[string]*source{}, claims: map[string]wire.Ref{}}
	stopped := map[string]bool{}
	add := func(key string) {
		r.sources[key] = &source{cancel: func() { stopped[key] = true }}
	}
	add("g/old-game")
	add("web/h-g1-south")
	add("g/new-game")
	r.claims["h.g1.north"] = wire.Ref{Table: "g", Game: "old-game", Seat: "north"}
	r.claims["h.g1.south"] = wire.Ref{Table: "web", Game: "h-g1-south", Seat: "south"}
	r.claims["h.g2.north"] = wire.Ref{Table: "g", Game: "new-game", Seat: "north"}
	r.gid = "g2"
	r.pruneLocked()
	if len(r.sources) != 1 || r.sources["g/new-game"] == nil {
		t.Fatalf("followed after the game changed: %v", keys(r.sources))
	}
	if !stopped["g/old-game"] || !stopped["web/h-g1-south"] || stopped["g/new-game"] {
		t.Fatalf("stopped %v, want the old game's two", stopped)
	}
	if len(r.claims) != 1 {
		t.Fatalf("claims kept: %v", r.claims)
	}
	// a joiner back on a game of its own follows nothing
	j := &Remote{name: "g", join: "h", host: wire.Ref{Table: "h", Game: "g2"}, joined: "j1", gid: "j2", sources: map[string]*source{}}
	j.sources["h/g2"] = &source{cancel: func() {}}
	j.pruneLocked()
	if len(j.sources) != 0 {
		t.Fatalf("a joiner on its own game follows %v", keys(j.sources))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
