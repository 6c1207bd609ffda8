package wire

import (
	"bytes"
	"encoding/json"
)

// RecordKinds are the kinds of journal line (a line's kind is its first
// key, as the companion's journal and the record writer write them) that
// are record events (Event.Line): decisions, who plays (changed during
// the game) and the end of a game. Every
// other kind — board events, commands, markers — stays in the journal
// only.
var RecordKinds = map[string]bool{"move": true, "roll": true, "takeback": true, "end": true, "who": true}

// UndoneKind wraps a decision a takeback undid: {"undone":{…}}.
const UndoneKind = "undone"

// LineKind is the first key of a journal line ("" if it is no JSON
// object).
func LineKind(line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	k, _ := tok.(string)
	return k
}
