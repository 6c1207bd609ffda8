package hub

import (
	"archive/zip"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
)

// A club evening's exports (issue 37):
//
//	GET /api/club/ID/GAME/crosstable.html   the crosstable, a page that prints on A4
//	GET /api/club/ID/GAME/crosstable.csv    the same as CSV (club.WriteCrosstableCSV)
//	GET /api/club/ID/GAME/round/N/print.html  round N's pairings, then a result slip per board (A4)
//	GET /api/club/ID/GAME/report.trf        FIDE's TRF-16 of the complete rounds (two-player games)
//	GET /api/club/ID/records.zip            every scored game's record, GAME/rRR-bBB-TABLE-ID.jsonl,
//	                                        with each game's crosstable.csv (and report.trf)

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

type crossData struct {
	Event, Where, Game, System string
	Rounds                     []int
	Tiebreaks                  []string
	Rows                       []crossRowView
	Two                        bool
}

type crossRowView struct {
	club.CrossRow
	RatingText string
	PointsText string
	TBText     []string
}

func crossPage(e *EventState, s *club.Section) crossData {
	d := crossData{Event: e.Name, Where: strings.Trim(e.Site+" · "+e.Date, " ·"), Game: strings.ToUpper(s.Game), System: s.System,
		Tiebreaks: club.TiebreakNames(s.System), Two: len(s.Seats) == 2}
	for _, r := range s.Played {
		d.Rounds = append(d.Rounds, r.N)
	}
	for _, row := range s.Crosstable() {
		v := crossRowView{CrossRow: row, RatingText: RatingText(row.Rating), PointsText: club.FormatPoints(row.Points)}
		for _, t := range row.Tiebreaks {
			v.TBText = append(v.TBText, club.FormatPoints(t))
		}
		d.Rows = append(d.Rows, v)
	}
	return d
}

type printData struct {
	Event, Where, Game string
	Round              int
	Seats              []string
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

type printSeat struct{ Seat, Name, Rating string }

func printPage(e *EventState, s *club.Section, r *club.Round) printData {
	d := printData{Event: e.Name, Where: strings.Trim(e.Site+" · "+e.Date, " ·"), Game: strings.ToUpper(s.Game), Round: r.N, Seats: s.Seats,
		Byes: r.Byes, Half: r.Half, Absent: r.Absent}
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
			b.Players = append(b.Players, printSeat{Seat: s.Seats[i], Name: n, Rating: rat[n]})
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
.noprint { margin: .5rem 0; }
@page { size: A4; margin: 12mm; }
@media print { body { margin: 0; font-size: 10pt; } .noprint { display: none; } a { color: inherit; text-decoration: none; } }
`

var crossTmpl = template.Must(template.New("cross").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Event}} — {{.Game}} crosstable</title><style>` + printCSS + `</style></head><body>
<h1>{{.Event}} — {{.Game}}</h1><div class="where">{{.Where}} · {{.System}}</div>
<div class="noprint"><a href="crosstable.csv">CSV</a> · <a href="report.trf">TRF</a> · print this page for the wall (A4)</div>
<table><thead><tr><th>No</th><th>Rank</th><th>Player</th><th>Rating</th>{{range .Rounds}}<th>R{{.}}</th>{{end}}<th>Pts</th>{{range .Tiebreaks}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td class="num">{{.No}}</td><td class="num">{{.Rank}}</td><td>{{.Name}}{{if .Out}} <i>({{.Out}})</i>{{end}}</td><td>{{.RatingText}}</td>{{range .Cells}}<td class="{{.Kind}}">{{.Text}}</td>{{end}}<td class="num"><b>{{.PointsText}}</b></td>{{range .TBText}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p class="legend">{{if .Two}}A round's cell: the opponent's number, w the first seat or b the second, and the score (1, ½, 0); + and − a game won or lost by forfeit (scored, not rated);{{else}}A round's cell: the place and points, the table mates' numbers;{{end}} "bye" the pairing's bye, "½ bye" a bye asked for, − no game. A rating is r ± RD, as the player came: the player's strength lies within two RDs of r 95 times in 100 (a new player is 1500 ± 350).</p>
</body></html>
`))

var printTmpl = template.Must(template.New("print").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Event}} — {{.Game}} round {{.Round}}</title><style>` + printCSS + `</style></head><body>
<section class="pairings"><h1>{{.Event}} — {{.Game}} round {{.Round}}</h1><div class="where">{{.Where}}</div>
<table><thead><tr><th>Board</th><th>Table</th>{{range .Seats}}<th>{{.}}</th>{{end}}<th>Result</th></tr></thead><tbody>
{{range .Boards}}<tr><td class="num">{{.Board}}</td><td>{{.Table}}</td>{{range .Players}}<td>{{.Name}}</td>{{end}}<td>{{.Result}}</td></tr>
{{end}}</tbody></table>
{{if .Byes}}<p>Bye: {{range $i, $b := .Byes}}{{if $i}}, {{end}}{{$b}}{{end}}</p>{{end}}
{{if .Half}}<p>Half-point bye: {{range $i, $b := .Half}}{{if $i}}, {{end}}{{$b}}{{end}}</p>{{end}}
{{if .Absent}}<p>Not playing: {{range $i, $b := .Absent}}{{if $i}}, {{end}}{{$b}}{{end}}</p>{{end}}
</section>
<section class="slips"><h2>Result slips</h2>
{{range .Boards}}{{$b := .}}<div class="slip"><div class="head"><span>{{$.Event}} · {{$.Game}} round {{$.Round}}</span><span>board {{.Board}} · table {{.Table}}</span></div>
<table>{{range .Players}}<tr><td>{{.Seat}}</td><td>{{.Name}}</td><td>{{.Rating}}</td>{{if $.Places}}<td>place <span class="box">&nbsp;</span></td>{{end}}</tr>{{end}}</table>
{{if $.Choices}}<p>Result (circle one): {{range $.Choices}}<span class="box">{{.}}</span>{{end}}</p>{{else}}<p>Write each seat's place (1 first; shared places repeat).</p>{{end}}
<div class="sign">{{range .Players}}<span>{{.Name}}</span>{{end}}<span>arbiter</span></div></div>
{{end}}</section>
</body></html>
`))
