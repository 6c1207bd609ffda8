package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"github.com/tabla-board/tabla/engine/rating"
)

// The arbiter's tools on a club evening (issue 37): each a change of the
// event the hub makes and logs with who made it and why — on the event's
// page (the hub's token) and as `tabla hub event enter|withdraw|bye|
// forfeit|pair|result|end|clocks`, both through POST /api/club/ID/arbiter.

// Arbiter actions (ArbiterAction.Do).
const (
	ActEnter    = "enter"    // register, or a late entry; a paused player back
	ActWithdraw = "withdraw" // out for good (Pause: until entered again)
	ActBye      = "bye"      // a half-point bye asked for a round to come
	ActForfeit  = "forfeit"  // a game not played: Absent lose it
	ActPair     = "pair"     // the next round (or the unplayed current one) by hand
	ActRematch  = "rematch"  // pair a stuck Swiss round, allowing rematches
	ActResult   = "result"   // set or correct a result ("1-0", "½-½", places)
	ActEnd      = "end"      // end the game (or every game) after the rounds played
	ActClocks   = "clocks"   // start the current round's clocks at every table
)

// ArbiterAction is one change by the arbiter.
type ArbiterAction struct {
	Do   string `json:"do"`
	Game string `json:"game,omitempty"` // the section ("" with one game, or end: all)
	Name string `json:"name,omitempty"` // enter, withdraw, bye
	// Rating and RD a player comes with (enter; 0: the hub's rating of
	// the player from earlier evenings, else a new player's 1500 ± 350).
	Rating float64  `json:"rating,omitempty"`
	RD     float64  `json:"rd,omitempty"`
	Pause  bool     `json:"pause,omitempty"`  // withdraw: until entered again
	Round  int      `json:"round,omitempty"`  // bye (0 the next), forfeit, result
	Board  int      `json:"board,omitempty"`  // forfeit, result
	Absent []string `json:"absent,omitempty"` // forfeit: who did not come
	// Games are a hand-made pairing's boards, each its players by seat;
	// Byes its pairing-allocated byes.
	Games  [][]string `json:"games,omitempty"`
	Byes   []string   `json:"byes,omitempty"`
	Result string     `json:"result,omitempty"` // "1-0", "½-½", "0-1"; four seats: places "2 1 4 3"
	By     string     `json:"by,omitempty"`     // who (default "arbiter")
	Why    string     `json:"why,omitempty"`
}

// Arbiter applies an arbiter's action to an event and logs it; it
// returns the warnings the change gave (a rematch paired by hand), in
// English.
func (h *Hub) Arbiter(ctx context.Context, id string, a ArbiterAction) ([]string, error) {
	say, err := h.arbiter(ctx, id, a)
	var warnings []string
	for _, w := range say {
		warnings = append(warnings, w.English())
	}
	return warnings, err
}

// sayOf is an error's words for the page: a refusal's, else "the hub
// could not do that".
func sayOf(err error) i18n.Text {
	var rf *Refusal
	if errors.As(err, &rf) {
		return rf.Say
	}
	return i18n.T("hub.err.other")
}

// arbiter is Arbiter with the warnings in the page's words. Its refusals
// are Refusals (the club's too): the page words them.
func (h *Hub) arbiter(ctx context.Context, id string, a ArbiterAction) (warnings []i18n.Text, err error) {
	now := h.now()
	by := strings.TrimSpace(a.By)
	if by == "" {
		by = "arbiter"
	}
	why := strings.TrimSpace(a.Why)
	if err := club.CheckName(by); err != nil {
		return nil, refuse(i18n.T("arb.err.who", "why", sayOf(err)), fmt.Errorf("who: %v", err))
	}
	if len(why) > 200 {
		return nil, refuse(i18n.T("arb.err.whylong"), errors.New("say why in up to 200 characters"))
	}
	if why == "" && a.Do != ActEnter && a.Do != ActClocks {
		return nil, refuse(i18n.T("ev.err.saywhy"), fmt.Errorf("%s: say why (the log shows it)", a.Do))
	}
	err = h.updateEvent(ctx, id, func(e *EventState) error {
		warnings = nil
		// log writes the change with who made it and why: What in
		// English, Say in the page's words
		log := func(say i18n.Text, format string, args ...any) {
			what := fmt.Sprintf(format, args...)
			if why != "" {
				what += ": " + why
				say = i18n.T("ev.log.why", "what", say, "why", why)
			}
			e.Log = append(e.Log, EventLogEntry{T: now.UTC(), What: what, Say: &say, Who: by})
		}
		var s *club.Section
		switch {
		case a.Game != "":
			if s = e.section(a.Game); s == nil {
				return refuse(i18n.T("arb.err.nogame", "game", a.Game), fmt.Errorf("the event has no %s", a.Game))
			}
		case len(e.Sections) == 1:
			s = e.Sections[0]
		case a.Do != ActEnd && a.Do != ActClocks:
			return refuse(i18n.T("arb.err.which", "n", len(e.Sections)), fmt.Errorf("the event has %d games: say which", len(e.Sections)))
		}
		switch a.Do {
		case ActEnter:
			r := h.ratingOf(s.Game, strings.TrimSpace(a.Name))
			if a.Rating != 0 || a.RD != 0 {
				if a.Rating < 100 || a.Rating > 4000 || a.RD < 0 || a.RD > 500 {
					return refuse(i18n.T("arb.err.rating", "r", a.Rating, "rd", a.RD), fmt.Errorf("a rating is 100 to 4000 and its RD 0 to 500, got %g ± %g", a.Rating, a.RD))
				}
				r = rating.Rating{R: a.Rating, RD: a.RD, Sigma: rating.DefaultVolatility}
				if r.RD == 0 {
					r.RD = rating.DefaultDeviation
				}
			}
			n := len(s.Played)
			if err := s.Enter(a.Name, r); err != nil {
				return err
			}
			p := s.Players[playerIndex(s, a.Name)]
			switch {
			case n == 0:
				log(i18n.T("arb.log.registered", "name", p.Name, "game", s.Game, "rating", RatingText(p.Rating)),
					"%s registered for %s, rated %s", p.Name, s.Game, RatingText(p.Rating))
			default:
				log(i18n.T("arb.log.entered", "name", p.Name, "game", s.Game, "round", p.From, "rating", RatingText(p.Rating)),
					"%s entered %s from round %d (no points for the rounds before), rated %s", p.Name, s.Game, p.From, RatingText(p.Rating))
			}
		case ActWithdraw:
			how := club.Withdrawn
			if a.Pause {
				how = club.Paused
			}
			if err := s.Withdraw(a.Name, how); err != nil {
				return err
			}
			name := s.Players[playerIndex(s, a.Name)].Name
			log(i18n.T(map[bool]string{true: "arb.log.paused", false: "arb.log.withdrew"}[a.Pause], "name", name, "game", s.Game, "round", len(s.Played)),
				"%s %s from %s after round %d", name, map[bool]string{true: "paused", false: "withdrew"}[a.Pause], s.Game, len(s.Played))
		case ActBye:
			round := a.Round
			if round == 0 {
				round = len(s.Played) + 1
			}
			if err := s.RequestBye(a.Name, round); err != nil {
				return err
			}
			name := s.Players[playerIndex(s, a.Name)].Name
			log(i18n.T("arb.log.bye", "name", name, "game", s.Game, "round", round), "%s has a half-point bye in %s round %d", name, s.Game, round)
		case ActForfeit:
			p, err := s.Forfeit(a.Round, a.Board, a.Absent)
			if err != nil {
				return err
			}
			log(i18n.T("arb.log.forfeit", "game", s.Game, "round", a.Round, "board", a.Board, "players", strings.Join(p.Players, " – "), "who", forfeitText(s, p)),
				"%s round %d board %d (%s) forfeited: %s", s.Game, a.Round, a.Board, strings.Join(p.Players, " – "), forfeitText(s, p))
		case ActPair:
			r, warn, err := s.PairByHand(a.Games, a.Byes, by)
			if err != nil {
				return err
			}
			warnings = warn
			say := i18n.T("arb.log.byhand", "game", s.Game, "round", r.N, "pairs", pairsWords(r))
			if len(warn) > 0 {
				say = i18n.T("arb.log.byhand.warn", "game", s.Game, "round", r.N, "pairs", pairsWords(r), "warnings", listWords(warn))
			}
			log(say, "%s round %d paired by hand: %s%s", s.Game, r.N, describeRound(s, r), warnText(warn))
		case ActRematch:
			if s.Stuck == "" {
				return refuse(i18n.T("arb.err.notstuck", "game", s.Game), fmt.Errorf("%s is not stuck: its next round pairs without a rematch", s.Game))
			}
			r, k, err := s.PairAllowingRematch()
			if err != nil {
				return err
			}
			log(i18n.T("arb.log.rematch", "game", s.Game, "round", r.N, "k", k, "pairs", pairsWords(r)),
				"%s round %d paired allowing rematches of rounds 1–%d: %s", s.Game, r.N, k, describeRound(s, r))
		case ActResult:
			p := s.Find(a.Round, a.Board)
			if p == nil {
				return refuse(i18n.T("club.err.noboard", "game", s.Game, "round", a.Round, "board", a.Board), fmt.Errorf("%s has no round %d board %d", s.Game, a.Round, a.Board))
			}
			places, err := club.ParseResult(a.Result, len(s.Seats))
			if err != nil {
				return err
			}
			before, sayBefore := "none", "—"
			if p.Result != nil {
				before = resultText(s, p.Result)
				sayBefore = before
			}
			p.Result = &club.Result{Places: places, Points: s.Points(places), End: "arbiter", By: "arbiter"}
			log(i18n.T("arb.log.result", "game", s.Game, "round", a.Round, "board", a.Board, "players", strings.Join(p.Players, " – "), "before", sayBefore, "after", resultText(s, p.Result)),
				"the arbiter changed %s round %d board %d (%s) from %s to %s", s.Game, a.Round, a.Board, strings.Join(p.Players, " – "), before, resultText(s, p.Result))
		case ActEnd:
			secs := e.Sections
			if s != nil && a.Game != "" {
				secs = []*club.Section{s}
			}
			for _, x := range secs {
				if x.Finished() && !x.Ended {
					x.Ended = true
					continue
				}
				if err := x.End(); err != nil {
					return err
				}
			}
			for _, x := range secs {
				var st any = standingsText(x)
				if len(x.Players) == 0 {
					st = i18n.T("arb.noplayers")
				}
				log(i18n.T("arb.log.ended", "game", x.Game, "n", len(x.Played), "standings", st), "%s ended after %d rounds; final standings: %s", x.Game, len(x.Played), standingsText(x))
			}
		case ActClocks:
			secs := e.Sections
			if s != nil {
				secs = []*club.Section{s}
			}
			n := 0
			for _, x := range secs {
				if c := x.Current(); c != nil && !c.Complete() && c.Clocks.IsZero() {
					c.Clocks = now.UTC()
					n++
					log(i18n.T("arb.log.clocks", "game", x.Game, "round", c.N), "%s round %d's clocks started", x.Game, c.N)
				}
			}
			if n == 0 {
				return refuse(i18n.T("arb.err.noclocks"), errors.New("no round under way waits for its clocks"))
			}
		default:
			return fmt.Errorf("no arbiter's action %q (enter, withdraw, bye, forfeit, pair, rematch, result, end, clocks)", a.Do)
		}
		if s != nil {
			h.advance(e, s, now)
		}
		return nil
	})
	return warnings, err
}

func playerIndex(s *club.Section, name string) int {
	for i, p := range s.Players {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return i
		}
	}
	return -1
}

// RatingText is a rating as people read it: "1835 ± 209" (the RD: the
// player's strength lies within two RDs of the rating 95 times in 100).
func RatingText(r rating.Rating) string {
	return fmt.Sprintf("%.0f ± %.0f", r.R, r.RD)
}

func forfeitText(s *club.Section, p *club.Pairing) string {
	var parts []string
	for i, n := range p.Players {
		sign := "−"
		if p.Result.Points[i] > 0 {
			sign = "+"
		}
		parts = append(parts, n+" "+sign)
	}
	return strings.Join(parts, ", ")
}

func warnText(w []i18n.Text) string {
	if len(w) == 0 {
		return ""
	}
	var parts []string
	for _, x := range w {
		parts = append(parts, x.English())
	}
	return " (warning: " + strings.Join(parts, "; ") + ")"
}

// listWords is texts one after another ("a; b; c") as one text for the
// page, each in its words.
func listWords(w []i18n.Text) i18n.Text {
	out := w[len(w)-1]
	for i := len(w) - 2; i >= 0; i-- {
		out = i18n.T("list.semi", "a", w[i], "b", out)
	}
	return out
}

// pairsWords is a round's boards for the page ("1. T1: Ayşe – Ali; 2. …",
// no words to translate) and its byes.
func pairsWords(r *club.Round) i18n.Text {
	var parts []string
	for _, p := range r.Pairings {
		parts = append(parts, fmt.Sprintf("%d. %s: %s", p.Board, p.Table, strings.Join(p.Players, " – ")))
	}
	if len(r.Byes) > 0 {
		return i18n.T("arb.pairs.bye", "pairs", strings.Join(parts, "; "), "byes", strings.Join(r.Byes, ", "))
	}
	return i18n.T("arb.pairs", "pairs", strings.Join(parts, "; "))
}

func standingsText(s *club.Section) string {
	var parts []string
	for _, st := range s.Standings() {
		parts = append(parts, fmt.Sprintf("%d. %s %s", st.Rank, st.Name, club.FormatPoints(st.Points)))
	}
	if len(parts) == 0 {
		return "no players"
	}
	return strings.Join(parts, ", ")
}

// arbiterTime is when the round's clocks started, for the tables.
func arbiterTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// PostArbiter sends an arbiter's action to a running hub's pages (base
// "http://HOST:PORT", the hub's token) as the event page does: `tabla
// hub event enter|…`. It returns the warnings; a refusal is an error
// with the hub's words.
func PostArbiter(ctx context.Context, base, token, id string, a ArbiterAction) ([]string, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", strings.TrimRight(base, "/")+"/api/club/"+url.PathEscape(id)+"/arbiter", bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hub: %v (is the hub's page at %s? --url)", err, base)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(body))
		var rf Refused
		if json.Unmarshal(body, &rf) == nil && rf.Error != "" {
			msg = rf.Error
		}
		return nil, fmt.Errorf("hub: %s %s: %s", a.Do, id, msg)
	}
	var out struct{ Warnings []string }
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("hub: the answer to %s: %v", a.Do, err)
	}
	return out.Warnings, nil
}

// GetEventView reads an event's page (JSON) from a running hub.
func GetEventView(ctx context.Context, base, id string) (*EventView, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(base, "/")+"/api/club/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("hub: event %s: %s", id, resp.Status)
	}
	var v EventView
	return &v, json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&v)
}
