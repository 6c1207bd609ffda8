package hub

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
)

// A club evening's exports (issue 37):
//
//	GET /api/club/ID/GAME/crosstable.html   the crosstable, a page that prints on A4
//	GET /api/club/ID/GAME/crosstable.csv    the same as CSV (club.WriteCrosstableCSV)
//	GET /api/club/ID/GAME/round/N/print.html  round N's pairings, then a result slip per board (A4)
//	GET /api/club/ID/GAME/report.trf        FIDE's TRF-16 of the complete rounds (two-player games)
//	GET /api/club/ID/records.zip            every scored game's record, GAME/rRR-bBB-TABLE-ID.jsonl,
//	                                        with each game's crosstable.csv (and report.trf)
//
// The two pages are worded from the catalogues as every page is: each
// text is its key and arguments (data-i18n, data-i18n-args) with the
// English in place, and i18n.js words it in the reader's language (its
// switch is in the part not printed). The CSV and the TRF stay English
// (files for programs, as the CLI).

func (h *Hub) exportRoutes(mux *http.ServeMux) {
	section := func(w http.ResponseWriter, r *http.Request) (*EventState, *club.Section) {
		e := h.Event(r.PathValue("id"))
		if e == nil {
			http.Error(w, "no such event", http.StatusNotFound)
			return nil, nil
		}
		s := e.section(r.PathValue("game"))
		if s == nil {
			http.Error(w, "the event has no "+r.PathValue("game"), http.StatusNotFound)
			return nil, nil
		}
		return e, s
	}
	attach := func(w http.ResponseWriter, name, ctype string) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, name))
	}
	mux.HandleFunc("GET /api/club/{id}/{game}/crosstable.csv", func(w http.ResponseWriter, r *http.Request) {
		e, s := section(w, r)
		if s == nil {
			return
		}
		attach(w, e.ID+"-"+s.Game+"-crosstable.csv", "text/csv; charset=utf-8")
		s.WriteCrosstableCSV(w)
	})
	mux.HandleFunc("GET /api/club/{id}/{game}/crosstable.html", func(w http.ResponseWriter, r *http.Request) {
		e, s := section(w, r)
		if s == nil {
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := crossTmpl.Execute(w, crossPage(e, s)); err != nil {
			h.log.Warn("hub: the crosstable page", "err", err)
		}
	})
	mux.HandleFunc("GET /api/club/{id}/{game}/round/{n}/print.html", func(w http.ResponseWriter, r *http.Request) {
		e, s := section(w, r)
		if s == nil {
			return
		}
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 1 || n > len(s.Played) {
			http.Error(w, "no such round", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := printTmpl.Execute(w, printPage(e, s, s.Played[n-1])); err != nil {
			h.log.Warn("hub: the round's print page", "err", err)
		}
	})
	mux.HandleFunc("GET /api/club/{id}/{game}/report.trf", func(w http.ResponseWriter, r *http.Request) {
		e, s := section(w, r)
		if s == nil {
			return
		}
		t, err := s.TRF(e.Name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		attach(w, e.ID+"-"+s.Game+".trf", "text/plain; charset=utf-8")
		trf.Write(w, t)
	})
	mux.HandleFunc("GET /api/club/{id}/records.zip", func(w http.ResponseWriter, r *http.Request) {
		e := h.Event(r.PathValue("id"))
		if e == nil {
			http.Error(w, "no such event", http.StatusNotFound)
			return
		}
		attach(w, e.ID+".zip", "application/zip")
		if err := h.writeEventZip(w, e); err != nil {
			h.log.Warn("hub: the event's records", "event", e.ID, "err", err)
		}
	})
}

// writeEventZip writes the event's scored games' records (a game set by
// the arbiter or forfeited has none), each game's crosstable and, for
// two-player games, its TRF.
func (h *Hub) writeEventZip(w io.Writer, e *EventState) error {
	z := zip.NewWriter(w)
	for _, s := range e.Sections {
		for _, r := range s.Played {
			for _, p := range r.Pairings {
				if p.Result == nil || p.Result.Game == "" {
					continue
				}
				rec, err := h.gameRecord(p.Result.Game)
				if err != nil {
					return err
				}
				table, gid, _ := strings.Cut(p.Result.Game, "/")
				f, err := z.Create(fmt.Sprintf("%s/r%02d-b%02d-%s-%s.jsonl", s.Game, r.N, p.Board, table, gid))
				if err != nil {
					return err
				}
				if _, err := f.Write(rec); err != nil {
					return err
				}
			}
		}
		f, err := z.Create(s.Game + "/crosstable.csv")
		if err != nil {
			return err
		}
		if err := s.WriteCrosstableCSV(f); err != nil {
			return err
		}
		if t, err := s.TRF(e.Name); err == nil {
			f, err := z.Create(s.Game + "/report.trf")
			if err != nil {
				return err
			}
			if err := trf.Write(f, t); err != nil {
				return err
			}
		}
	}
	return z.Close()
}

// sayAttr marks an element's text as a catalogue key with arguments
// (i18n.js words it in the page's language).
func sayAttr(t i18n.Text) template.HTMLAttr {
	out := ` data-i18n="` + html.EscapeString(t.Key) + `"`
	if len(t.Args) > 0 {
		b, _ := json.Marshal(t.Args)
		out += ` data-i18n-args="` + html.EscapeString(string(b)) + `"`
	}
	return template.HTMLAttr(out)
}

// say is a text as a span the page words, the English in it.
func say(t i18n.Text) template.HTML {
	return template.HTML("<span" + string(sayAttr(t)) + ">" + html.EscapeString(t.English()) + "</span>")
}

// exportFuncs word the export pages: {{say (T KEY "arg" value …)}}.
var exportFuncs = template.FuncMap{
	"T":       func(key string, kv ...any) i18n.Text { return i18n.T(key, kv...) },
	"say":     say,
	"sayAttr": sayAttr,
	"join":    func(names []string) string { return strings.Join(names, ", ") },
}

// seatWords is a seat in words ("red2": red 2).
func seatWords(seat string) i18n.Text {
	base := strings.TrimRight(seat, "0123456789")
	if n := seat[len(base):]; n != "" {
		return i18n.T("seat.numbered", "seat", i18n.T("seat."+base), "n", n)
	}
	return i18n.T("seat." + base)
}

// tiebreakKeys are the tie-breaks' keys by their English names
// (club.TiebreakNames).
var tiebreakKeys = map[string]string{"Buchholz": "tb.buchholz", "Sonneborn-Berger": "tb.sonneborn", "wins": "tb.wins",
	"first places": "tb.firsts", "table mates' points": "tb.mates"}

func tiebreakWords(name string) i18n.Text {
	if k, ok := tiebreakKeys[name]; ok {
		return i18n.T(k)
	}
	return i18n.T("plain", "text", name) // a name without words
}

// cellWords is a crosstable cell in words, as club's Text prints it:
// "5w1", "3b½", "4w+", "bye 1", "½ bye", "−"; four seats "2nd 2 (5,7,8)".
func cellWords(s *club.Section, c club.CrossCell) i18n.Text {
	pts := club.FormatPoints(c.Points)
	switch c.Kind {
	case "bye":
		return i18n.T("cross.bye", "pts", pts)
	case "half":
		return i18n.T("cross.half", "pts", pts)
	case "absent":
		return i18n.T("plain", "text", c.Text)
	}
	opp := make([]string, len(c.Opp))
	for i, o := range c.Opp {
		opp[i] = strconv.Itoa(o)
	}
	if len(s.Seats) == 2 {
		seat := i18n.T(map[bool]string{true: "cross.first", false: "cross.second"}[c.Seat == 0])
		switch c.Kind {
		case "open":
			return i18n.T("cross.two", "opp", opp[0], "seat", seat, "pts", "")
		case "forfeit":
			return i18n.T("cross.two", "opp", opp[0], "seat", seat, "pts", map[bool]string{true: "+", false: "−"}[c.Points > 0])
		}
		return i18n.T("cross.two", "opp", opp[0], "seat", seat, "pts", pts)
	}
	mates := "(" + strings.Join(opp, ",") + ")"
	switch c.Kind {
	case "open":
		return i18n.T("cross.open4", "board", c.Board, "mates", mates)
	case "forfeit":
		return i18n.T("plain", "text", c.Text)
	}
	place := i18n.T("cross.place.n", "n", c.Place)
	if c.Place <= 3 {
		place = i18n.T("cross.place." + strconv.Itoa(c.Place))
	}
	return i18n.T("cross.four", "place", place, "pts", pts, "mates", mates)
}

type crossData struct {
	Event, Where, Game string
	System             i18n.Text
	Rounds             []int
	Tiebreaks          []i18n.Text
	Rows               []crossRowView
	Two                bool
}

type crossRowView struct {
	club.CrossRow
	OutSay     i18n.Text
	RatingText string
	PointsText string
	TBText     []string
	CellSay    []i18n.Text
}

func crossPage(e *EventState, s *club.Section) crossData {
	d := crossData{Event: e.Name, Where: strings.Trim(e.Site+" · "+e.Date, " ·"), Game: strings.ToUpper(s.Game), System: i18n.T("ev.system." + s.System),
		Two: len(s.Seats) == 2}
	for _, t := range club.TiebreakNames(s.System) {
		d.Tiebreaks = append(d.Tiebreaks, tiebreakWords(t))
	}
	for _, r := range s.Played {
		d.Rounds = append(d.Rounds, r.N)
	}
	for _, row := range s.Crosstable() {
		v := crossRowView{CrossRow: row, RatingText: RatingText(row.Rating), PointsText: club.FormatPoints(row.Points)}
		if row.Out != "" {
			v.OutSay = i18n.T("club.out." + row.Out)
		}
		for _, t := range row.Tiebreaks {
			v.TBText = append(v.TBText, club.FormatPoints(t))
		}
		for _, c := range row.Cells {
			v.CellSay = append(v.CellSay, cellWords(s, c))
		}
		d.Rows = append(d.Rows, v)
	}
	return d
}

type printData struct {
	Event, Where, Game string
	Round              int
	Seats              []i18n.Text
	Boards             []printBoard
	Byes, Half, Absent []string
	Choices            []string // the results a slip offers (two seats)
	Places             []int    // four seats: the places to write
}

type printBoard struct {
	Board   int
	Table   string
	Players []printSeat
	Result  string
}

type printSeat struct {
	Seat         i18n.Text
	Name, Rating string
}

func printPage(e *EventState, s *club.Section, r *club.Round) printData {
	d := printData{Event: e.Name, Where: strings.Trim(e.Site+" · "+e.Date, " ·"), Game: strings.ToUpper(s.Game), Round: r.N,
		Byes: r.Byes, Half: r.Half, Absent: r.Absent}
	for _, seat := range s.Seats {
		d.Seats = append(d.Seats, seatWords(seat))
	}
	if len(s.Seats) == 2 {
		d.Choices = []string{"1–0", "½–½", "0–1"}
	} else {
		for i := range s.Seats {
			d.Places = append(d.Places, i+1)
		}
	}
	rat := map[string]string{}
	for _, p := range s.Players {
		rat[p.Name] = RatingText(p.Rating)
	}
	for _, p := range r.Pairings {
		b := printBoard{Board: p.Board, Table: p.Table}
		for i, n := range p.Players {
			b.Players = append(b.Players, printSeat{Seat: seatWords(s.Seats[i]), Name: n, Rating: rat[n]})
		}
		if p.Result != nil {
			b.Result = resultText(s, p.Result)
		}
		d.Boards = append(d.Boards, b)
	}
	return d
}

// printCSS prints on A4: no page furniture, the slips never split.
const printCSS = `
body { font: 11pt/1.35 system-ui, sans-serif; margin: 1.5rem; color: #111; }
h1 { font-size: 15pt; margin: 0 0 .2rem; } h2 { font-size: 12pt; margin: 1rem 0 .4rem; }
.where { color: #555; margin-bottom: .6rem; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #999; padding: .2rem .35rem; text-align: left; vertical-align: top; }
th { background: #eee; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.legend { color: #444; font-size: 9pt; margin-top: .5rem; }
.slip { border: 1px dashed #555; padding: .5rem .7rem; margin: .6rem 0; break-inside: avoid; page-break-inside: avoid; }
.slip .head { display: flex; justify-content: space-between; font-weight: 600; }
.slip .box { display: inline-block; border: 1px solid #333; min-width: 3.2rem; padding: .15rem .4rem; margin-right: .5rem; }
.slip .sign { display: flex; gap: 2rem; margin-top: .6rem; } .slip .sign span { flex: 1; border-top: 1px solid #333; padding-top: .1rem; font-size: 9pt; }
.slips { break-before: page; page-break-before: always; }
.noprint { margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.wide { overflow-x: auto; } td.rating { white-space: nowrap; }
@page { size: A4; margin: 12mm; }
@media print { body { margin: 0; font-size: 10pt; } .noprint { display: none; } a { color: inherit; text-decoration: none; } }
`

// the pages' scripts: the catalogues and i18n.js (webui's, under /ui/)
const exportScripts = `<script src="/ui/catalogue.js"></script><script src="/ui/i18n.js"></script>`

var crossTmpl = template.Must(template.New("cross").Funcs(exportFuncs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title{{sayAttr (T "cross.title" "event" .Event "game" .Game)}}>{{.Event}} — {{.Game}} crosstable</title><style>` + printCSS + `</style></head><body>
<header class="noprint"><a href="crosstable.csv">CSV</a> · <a href="report.trf">TRF</a> · {{say (T "cross.print")}}</header>
<h1>{{.Event}} — {{.Game}}</h1><div class="where">{{if .Where}}{{.Where}} · {{end}}{{say .System}}</div>
<div class="wide"><table><thead><tr><th>{{say (T "cross.no")}}</th><th>{{say (T "cross.rank")}}</th><th>{{say (T "ev.player")}}</th><th>{{say (T "ev.rating")}}</th>{{range .Rounds}}<th>{{say (T "cross.round" "n" .)}}</th>{{end}}<th>{{say (T "ev.pts")}}</th>{{range .Tiebreaks}}<th>{{say .}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}{{$row := .}}<tr><td class="num">{{.No}}</td><td class="num">{{.Rank}}</td><td>{{.Name}}{{if .Out}} <i>({{say .OutSay}})</i>{{end}}</td><td class="rating">{{.RatingText}}</td>{{range $i, $c := .Cells}}<td class="{{$c.Kind}}">{{say (index $row.CellSay $i)}}</td>{{end}}<td class="num"><b>{{.PointsText}}</b></td>{{range .TBText}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
<p class="legend">{{if .Two}}{{say (T "cross.legend.two")}}{{else}}{{say (T "cross.legend.four")}}{{end}} {{say (T "cross.legend.rating")}}</p>
` + exportScripts + `
</body></html>
`))

var printTmpl = template.Must(template.New("print").Funcs(exportFuncs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title{{sayAttr (T "print.title" "event" .Event "game" .Game "round" .Round)}}>{{.Event}} — {{.Game}} round {{.Round}}</title><style>` + printCSS + `</style></head><body>
<header class="noprint">{{say (T "print.hint")}}</header>
<section class="pairings"><h1>{{.Event}} — {{say (T "print.round" "game" .Game "round" .Round)}}</h1><div class="where">{{.Where}}</div>
<div class="wide"><table><thead><tr><th>{{say (T "print.board")}}</th><th>{{say (T "print.table")}}</th>{{range .Seats}}<th>{{say .}}</th>{{end}}<th>{{say (T "print.result")}}</th></tr></thead><tbody>
{{range .Boards}}<tr><td class="num">{{.Board}}</td><td>{{.Table}}</td>{{range .Players}}<td>{{.Name}}</td>{{end}}<td>{{.Result}}</td></tr>
{{end}}</tbody></table></div>
{{if .Byes}}<p>{{say (T "ev.bye" "who" (join .Byes))}}</p>{{end}}
{{if .Half}}<p>{{say (T "ev.half" "who" (join .Half))}}</p>{{end}}
{{if .Absent}}<p>{{say (T "ev.absent" "who" (join .Absent))}}</p>{{end}}
</section>
<section class="slips"><h2>{{say (T "print.slips")}}</h2>
{{range .Boards}}{{$b := .}}<div class="slip"><div class="head"><span>{{$.Event}} · {{say (T "print.round" "game" $.Game "round" $.Round)}}</span><span>{{say (T "print.slip.where" "board" .Board "table" .Table)}}</span></div>
<table>{{range .Players}}<tr><td>{{say .Seat}}</td><td>{{.Name}}</td><td>{{.Rating}}</td>{{if $.Places}}<td>{{say (T "print.place")}} <span class="box">&nbsp;</span></td>{{end}}</tr>{{end}}</table>
{{if $.Choices}}<p>{{say (T "print.circle")}} {{range $.Choices}}<span class="box">{{.}}</span>{{end}}</p>{{else}}<p>{{say (T "print.places")}}</p>{{end}}
<div class="sign">{{range .Players}}<span>{{.Name}}</span>{{end}}<span>{{say (T "print.arbiter")}}</span></div></div>
{{end}}</section>
` + exportScripts + `
</body></html>
`))
