package library

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/engine/record"
)

// MaxSearchMoves is how many of a game's moves Search looks through: the
// first ones, so that the index of a record of a million moves holds a
// few kilobytes of it, not megabytes.
const MaxSearchMoves = 5000

// searchMoves gathers the moves searchText looks through, the first
// MaxSearchMoves.
type searchMoves struct {
	b strings.Builder
	n int
}

func (s *searchMoves) add(a *record.Applied) {
	if a.Roll || s.n >= MaxSearchMoves {
		return
	}
	s.n++
	s.b.WriteString(a.Text)
	s.b.WriteByte(' ')
}

// searchText is what Search looks through in a game beyond its entry: its
// moves in order (the first MaxSearchMoves), then every field of the
// header as key:value, lower case.
// The header is read generically (whatever fields the record package
// knows, and all of meta, nested keys joined by dots), so a field added to
// records is searchable without a change here; the start position is left
// out (its cells would match every move).
func searchText(moves *searchMoves, h *record.Header) string {
	b := &moves.b
	if data, err := json.Marshal(h); err == nil {
		var fields map[string]any
		if json.Unmarshal(data, &fields) == nil {
			delete(fields, "start")
			flatten(b, "", fields)
		}
	}
	return strings.ToLower(b.String())
}

// flatten writes v as key:value words, nested keys joined by dots.
func flatten(b *strings.Builder, key string, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			name := k
			if key != "" {
				name = key + "." + k
			}
			flatten(b, name, v[k])
		}
	case []any:
		for _, x := range v {
			flatten(b, key, x)
		}
	case nil:
	default:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			s = fmt.Sprint(x)
		}
		b.WriteByte(' ')
		b.WriteString(key)
		b.WriteByte(':')
		b.WriteString(s)
	}
}

// Search returns the ids of the games of the last listing (Games) that
// match every word of q, without regard to case: a word matches a part of
// the file's name, the game or variant, a seat, the result, any move of the
// game, or any header field as key:value ("event:club", "alice", "e6-e2",
// "players.south:bo"). Unreadable files match on their name. An empty
// query matches every game.
func (l *Library) Search(q string) []string {
	var words [][]byte
	for _, w := range strings.Fields(strings.ToLower(q)) {
		words = append(words, []byte(w))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loadTextsLocked()
	out := []string{}
	var buf []byte
next:
	for id, e := range l.entries {
		buf = append(buf[:0], strings.ToLower(id)...)
		buf = append(buf, ' ')
		buf = append(buf, e.Game...)
		buf = append(buf, ' ')
		buf = append(buf, e.Variant...)
		for _, p := range e.Players {
			buf = append(buf, ' ')
			buf = append(buf, strings.ToLower(p)...)
		}
		buf = append(buf, ' ')
		buf = append(buf, e.Result...)
		buf = append(buf, ' ')
		buf = append(buf, e.text...)
		for _, w := range words {
			if !bytes.Contains(buf, w) {
				continue next
			}
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// IndexProgress is how far the listing under way has read.
type IndexProgress struct {
	// Indexing is true while a listing reads files (new or changed ones);
	// Read of Total are read.
	Indexing bool `json:"indexing"`
	Read     int  `json:"read"`
	Total    int  `json:"total"`
}

// Progress says how far the listing under way (the first index of a large
// library takes a while) has read, without waiting for it.
func (l *Library) Progress() IndexProgress {
	return IndexProgress{Indexing: l.progress.indexing.Load(), Read: int(l.progress.read.Load()), Total: int(l.progress.total.Load())}
}
