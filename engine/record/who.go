package record

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Who and where: the optional header fields a club game carries.
//
//	"names": {"red":"Ayşe","white":"Bora"}   a player's name per seat (any seats of the game)
//	"event": "Kadıköy club evening"          the event
//	"round": "3"                             the round: "3", or "3.2" (round 3, table or game 2)
//	"site":  "Moda, İstanbul"                where the game is played
//	"date":  "2026-11-26"                    the day it was played (YYYY-MM-DD)
//
// A name, event or site is 1 to MaxText characters of printable text
// without leading or trailing space. The fields are checked when the
// header is read; a wrong one is an *Error naming line 1 and its Field.

// MaxText is the longest name, event or site, in characters.
const MaxText = 100

// WhoFields are the header fields of who and where, in their order.
var WhoFields = []string{"names", "event", "round", "site", "date"}

// checkText checks a name, an event or a site.
func checkText(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case !utf8.ValidString(s):
		return fmt.Errorf("not valid UTF-8")
	case utf8.RuneCountInString(s) > MaxText:
		return fmt.Errorf("%d characters, at most %d", utf8.RuneCountInString(s), MaxText)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("%q starts or ends with space", s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return fmt.Errorf("%q holds the control character %U", s, r)
		}
	}
	return nil
}

// checkRound: one or more positive integers joined by dots ("3", "3.2").
func checkRound(s string) error {
	if s == "" {
		return fmt.Errorf("empty: want a round number such as \"3\" or \"3.2\"")
	}
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || part[0] == '0' || len(part) > 6 || strings.Trim(part, "0123456789") != "" {
			return fmt.Errorf("%q: want a round number such as \"3\" or \"3.2\" (positive numbers joined by dots)", s)
		}
	}
	return nil
}

// checkDate: a calendar date YYYY-MM-DD.
func checkDate(s string) error {
	if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != len(time.DateOnly) {
		return fmt.Errorf("%q: want a date YYYY-MM-DD", s)
	}
	return nil
}

// FieldError is a header field that is wrong: Field names it ("names.red",
// "round"), Msg says what.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// checkWho checks the who-and-where fields of a header; seats are the
// game's seats (nil: not known, names' keys are not checked).
func checkWho(h *Header, present map[string]json.RawMessage, seats []string) error {
	text := func(field, v string) error {
		if _, ok := present[field]; !ok {
			return nil
		}
		if err := checkText(v); err != nil {
			return &FieldError{field, err.Error()}
		}
		return nil
	}
	if raw, ok := present["names"]; ok {
		if h.Names == nil {
			return &FieldError{"names", fmt.Sprintf("want an object seat → name, got %s", clip(raw))}
		}
		for _, seat := range slices.Sorted(maps.Keys(h.Names)) {
			if seats != nil && !slices.Contains(seats, seat) {
				return &FieldError{"names." + seat, fmt.Sprintf("not a seat of %s (%s)", h.Game, strings.Join(seats, ", "))}
			}
			if err := checkText(h.Names[seat]); err != nil {
				return &FieldError{"names." + seat, err.Error()}
			}
		}
	}
	if err := text("event", h.Event); err != nil {
		return err
	}
	if _, ok := present["round"]; ok {
		if err := checkRound(h.Round); err != nil {
			return &FieldError{"round", err.Error()}
		}
	}
	if err := text("site", h.Site); err != nil {
		return err
	}
	if _, ok := present["date"]; ok {
		if err := checkDate(h.Date); err != nil {
			return &FieldError{"date", err.Error()}
		}
	}
	return nil
}

// CheckWho checks the who-and-where fields a program is about to write
// (from flags, a config or a phone) as the reader will: seats are the
// game's seats. The error is a *FieldError.
func CheckWho(h *Header, seats []string) error {
	present := map[string]json.RawMessage{}
	if h.Names != nil {
		present["names"] = nil
	}
	for f, v := range map[string]string{"event": h.Event, "round": h.Round, "site": h.Site, "date": h.Date} {
		if v != "" {
			present[f] = nil
		}
	}
	return checkWho(h, present, seats)
}

// Who is the who-and-where of a header, for pages and summaries: every
// field is omitted when unset.
type Who struct {
	Names map[string]string `json:"names,omitempty"`
	Event string            `json:"event,omitempty"`
	Round string            `json:"round,omitempty"`
	Site  string            `json:"site,omitempty"`
	Date  string            `json:"date,omitempty"`
}

// Who returns the header's who and where.
func (h *Header) Who() Who {
	return Who{Names: h.Names, Event: h.Event, Round: h.Round, Site: h.Site, Date: h.Date}
}

// SetWho sets the header's who and where (the fields of w that are set;
// an empty string or map clears).
func (h *Header) SetWho(w Who) {
	h.Names, h.Event, h.Round, h.Site, h.Date = w.Names, w.Event, w.Round, w.Site, w.Date
	if len(h.Names) == 0 {
		h.Names = nil
	}
}
