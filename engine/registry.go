package engine

import (
	"fmt"
	"sort"
	"sync"
)

// Constructor sets up a new game.
type Constructor func(cfg Config) (State, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Constructor{}
)

// Register makes a game available to New. Game packages call it from init;
// import engine/games to get all five.
func Register(game string, c Constructor) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[game]; dup {
		panic("engine: game registered twice: " + game)
	}
	registry[game] = c
}

// New sets up a game by name.
func New(game string, cfg Config) (State, error) {
	regMu.RLock()
	c, ok := registry[game]
	regMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: unknown game %q (have %v)", ErrConfig, game, Games())
	}
	return c(cfg)
}

// Games lists the registered games, sorted.
func Games() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []string
	for g := range registry {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}
