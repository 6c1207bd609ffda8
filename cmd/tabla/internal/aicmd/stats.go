package aicmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/analysis"
	"github.com/tabla-board/tabla/engine/record"
)

// StatsOptions are the inputs of `tabla stats`.
type StatsOptions struct {
	IO *cmdutil.IO
	// Context, when it ends (Ctrl-C, SIGTERM), stops the reading; nil:
	// none.
	Context context.Context
	Dir     string
	JSON    bool
	SVG     string
	// Hub, when set, is a club hub whose finished games are read instead
	// of DIR (cmd/tabla/internal/hub); HubCA verifies its certificate.
	Hub, HubCA string
}

// GameStats aggregates the records of one game.
type GameStats struct {
	Game       string         `json:"game"`
	Games      int            `json:"games"`
	Wins       map[string]int `json:"wins"` // by side
	Draws      int            `json:"draws"`
	Unfinished int            `json:"unfinished"`
	// OnTime counts the games a flag fall ended (a journal's
	// {"end":"time"}): neither won on the board nor unfinished.
	OnTime int `json:"on_time"`
	// FirstSeatWins counts finished games won by the side of the seat that
	// moved first.
	FirstSeatWins int         `json:"first_seat_wins"`
	Lengths       []int       `json:"-"` // plies per game
	MeanLength    float64     `json:"mean_length"`
	MedianLength  int         `json:"median_length"`
	MinLength     int         `json:"min_length"`
	MaxLength     int         `json:"max_length"`
	FirstMoves    []FirstMove `json:"first_moves"`
	sides         []string
}

// FirstMove is how games that began with one move ended.
type FirstMove struct {
	Move  string `json:"move"`
	Games int    `json:"games"`
	Wins  int    `json:"wins"` // won by the side that played it
}

// Stats is the whole aggregate.
type Stats struct {
	Files      int          `json:"files"`
	Unreadable int          `json:"unreadable"`
	Games      []*GameStats `json:"by_game"`
	// Players are the named players (the records' "names"), by name.
	Players []*PlayerStats `json:"by_player"`
}

// PlayerStats are one player's results over the records that name them
// at a seat (the header's "names"), whatever the game. A win is a game
// won by their seat's side (a four-player six's team); a loss one won by
// another side, or lost on time.
type PlayerStats struct {
	Name       string         `json:"name"`
	Games      int            `json:"games"`
	Won        int            `json:"won"`
	Drawn      int            `json:"drawn"`
	Lost       int            `json:"lost"`
	LostOnTime int            `json:"lost_on_time"` // of Lost: their flag fell
	Unfinished int            `json:"unfinished"`
	ByGame     map[string]int `json:"by_game"` // games played, by game
}

// Score is the share of points (a win 1, a draw ½) of the finished games.
func (p *PlayerStats) Score() float64 {
	if fin := p.Won + p.Drawn + p.Lost; fin > 0 {
		return (float64(p.Won) + float64(p.Drawn)/2) / float64(fin)
	}
	return 0
}

// NewStatsCmd returns `tabla stats`.
func NewStatsCmd(streams *cmdutil.IO) *cobra.Command {
	opts := &StatsOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Aggregate results, lengths and first moves over logged games",
		Long: "Read every *.jsonl record under DIR and print, per game: results by side,\n" +
			"draws and unfinished games, how often the first mover's side won, game\n" +
			"lengths in plies and the most played first moves with their win rates.\n" +
			"Unreadable records are reported on stderr and skipped.",
		Args: cobra.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Hub != "" {
				if len(args) == 1 {
					return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("stats: give DIR or --hub, not both"))
				}
				return statsHub(c.Context(), opts)
			}
			if len(args) != 1 {
				return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("stats: give DIR, or --hub URL for a club hub's games"))
			}
			opts.Dir = args[0]
			opts.Context = c.Context()
			return StatsRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Hub, "hub", "", "every finished game of a club hub (tabla hub): nats://spectator:PASSWORD@HOST:4222")
	cmd.Flags().StringVar(&opts.HubCA, "hub-ca", "", "PEM file of the authority of the hub's TLS certificate")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the aggregate as JSON")
	cmd.Flags().StringVar(&opts.SVG, "svg", "", "write a plot (results and length histograms) to this SVG file")
	return cmd
}

// Collect reads every record under dir.
func Collect(dir string, warn io.Writer) (*Stats, error) {
	return CollectContext(context.Background(), dir, warn)
}

// CollectContext is Collect that stops with ctx's error when ctx ends.
func CollectContext(ctx context.Context, dir string, warn io.Writer) (*Stats, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	st := &Stats{}
	byGame := map[string]*GameStats{}
	byName := map[string]*PlayerStats{}
	firsts := map[string]map[string]*FirstMove{}
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st.Files++
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		var end gameEnd
		var first *record.Applied
		g, err := record.Stream(record.NewReader(f, path), end.watch, func(a *record.Applied) error {
			if first == nil && !a.Roll {
				c := *a
				first = &c
			}
			return nil
		})
		f.Close()
		if err != nil {
			st.Unreadable++
			fmt.Fprintln(warn, err)
			continue
		}
		s := g.State
		info := s.Info()
		gs := byGame[info.Game]
		if gs == nil {
			gs = &GameStats{Game: info.Game, Wins: map[string]int{}, sides: info.Sides}
			byGame[info.Game] = gs
			firsts[info.Game] = map[string]*FirstMove{}
			st.Games = append(st.Games, gs)
		}
		gs.Games++
		gs.Lengths = append(gs.Lengths, s.Plies())
		res := s.Result()
		switch {
		case end.reason == "time" && res.Status == engine.Playing:
			gs.OnTime++
		case res.Status == engine.Won:
			gs.Wins[info.Sides[res.Winner]]++
			if first != nil && info.SideOf[first.Seat] == res.Winner {
				gs.FirstSeatWins++
			}
		case res.Status == engine.Draw:
			gs.Draws++
		default:
			gs.Unfinished++
		}
		countPlayers(byName, g, res, end)
		if first != nil {
			fm := firsts[info.Game][first.Text]
			if fm == nil {
				fm = &FirstMove{Move: first.Text}
				firsts[info.Game][first.Text] = fm
			}
			fm.Games++
			if res.Status == engine.Won && info.SideOf[first.Seat] == res.Winner {
				fm.Wins++
			}
		}
	}
	slices.SortFunc(st.Games, func(a, b *GameStats) int { return strings.Compare(a.Game, b.Game) })
	for _, p := range byName {
		st.Players = append(st.Players, p)
	}
	slices.SortFunc(st.Players, func(a, b *PlayerStats) int { return strings.Compare(a.Name, b.Name) })
	for _, gs := range st.Games {
		l := slices.Clone(gs.Lengths)
		slices.Sort(l)
		sum := 0
		for _, v := range l {
			sum += v
		}
		gs.MeanLength = float64(sum) / float64(len(l))
		gs.MedianLength, gs.MinLength, gs.MaxLength = l[len(l)/2], l[0], l[len(l)-1]
		for _, fm := range firsts[gs.Game] {
			gs.FirstMoves = append(gs.FirstMoves, *fm)
		}
		slices.SortFunc(gs.FirstMoves, func(a, b FirstMove) int {
			if a.Games != b.Games {
				return b.Games - a.Games
			}
			return strings.Compare(a.Move, b.Move)
		})
		if len(gs.FirstMoves) > 10 {
			gs.FirstMoves = gs.FirstMoves[:10]
		}
	}
	return st, nil
}

// StatsRun prints the aggregate. DIR must be a directory holding game
// records: a file, an empty directory or one with no readable record is
// an error, not "0 records".
func StatsRun(opts *StatsOptions) error {
	fi, err := os.Stat(opts.Dir)
	if err != nil {
		return fmt.Errorf("stats: %v", err)
	}
	if !fi.IsDir() {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("stats: %s is not a directory (want a journal directory of *.jsonl game records)", opts.Dir))
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := CollectContext(ctx, opts.Dir, opts.IO.Err)
	if stoppedBy(ctx) {
		return interrupted("stats", ctx)
	}
	if err != nil {
		return fmt.Errorf("stats: %v", err)
	}
	switch {
	case st.Files == 0:
		return fmt.Errorf("stats: no game records (*.jsonl) under %s: is it a journal directory?", opts.Dir)
	case st.Unreadable == st.Files:
		return fmt.Errorf("stats: none of the %d *.jsonl files under %s is a readable game record", st.Files, opts.Dir)
	}
	if opts.SVG != "" {
		f, err := os.Create(opts.SVG)
		if err != nil {
			return err
		}
		writeStatsSVG(f, st)
		if err := f.Close(); err != nil {
			return err
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO, st)
	}
	w := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "%d records, %d unreadable\n", st.Files, st.Unreadable)
	for _, gs := range st.Games {
		fmt.Fprintf(w, "\n%s: %d games\n", gs.Game, gs.Games)
		fmt.Fprintln(w, "result\tgames\tshare\t")
		for _, side := range gs.sides {
			fmt.Fprintf(w, "%s won\t%d\t%s\t\n", side, gs.Wins[side], pct(float64(gs.Wins[side])/float64(gs.Games)))
		}
		fmt.Fprintf(w, "draw\t%d\t%s\t\n", gs.Draws, pct(float64(gs.Draws)/float64(gs.Games)))
		if gs.OnTime > 0 {
			fmt.Fprintf(w, "time ran out\t%d\t%s\t\n", gs.OnTime, pct(float64(gs.OnTime)/float64(gs.Games)))
		}
		fmt.Fprintf(w, "unfinished\t%d\t%s\t\n", gs.Unfinished, pct(float64(gs.Unfinished)/float64(gs.Games)))
		if fin := gs.Games - gs.Unfinished - gs.Draws - gs.OnTime; fin > 0 {
			fmt.Fprintf(w, "first mover's side won\t%d of %d\t%s\t\n", gs.FirstSeatWins, fin, pct(float64(gs.FirstSeatWins)/float64(fin)))
		}
		fmt.Fprintf(w, "length (plies)\tmean %.1f\tmedian %d\tmin %d\tmax %d\n", gs.MeanLength, gs.MedianLength, gs.MinLength, gs.MaxLength)
		fmt.Fprintln(w, "first move\tgames\twon by its side\t")
		for _, fm := range gs.FirstMoves {
			fmt.Fprintf(w, "%s\t%d\t%s\t\n", fm.Move, fm.Games, pct(float64(fm.Wins)/float64(fm.Games)))
		}
	}
	if len(st.Players) > 0 {
		fmt.Fprintf(w, "\nplayers: %d named\n", len(st.Players))
		fmt.Fprintln(w, "player\tgames\twon\tdrawn\tlost\ton time\tunfinished\tscore\tgames played\t")
		for _, p := range st.Players {
			var played []string
			for _, g := range slices.Sorted(maps.Keys(p.ByGame)) {
				played = append(played, fmt.Sprintf("%s %d", g, p.ByGame[g]))
			}
			score := "–"
			if p.Won+p.Drawn+p.Lost > 0 {
				score = pct(p.Score())
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", p.Name, p.Games, p.Won, p.Drawn, p.Lost, p.LostOnTime, p.Unfinished,
				score, strings.Join(played, ", "))
		}
	}
	return w.Flush()
}

// gameEnd is a journal's end line, if any: {"end":"time","flag":"red"}
// when a clock's flag fell (the referee's result is then "playing").
type gameEnd struct {
	reason, flag string
}

func (e *gameEnd) watch(ev *record.Event) error {
	if ev.Kind != "end" {
		return nil
	}
	var l struct {
		End  string `json:"end"`
		Flag string `json:"flag"`
	}
	if json.Unmarshal(ev.Raw, &l) == nil {
		e.reason, e.flag = l.End, l.Flag
	}
	return nil
}

// countPlayers adds a game to the results of the players it names.
func countPlayers(byName map[string]*PlayerStats, g *record.Game, res engine.Result, end gameEnd) {
	info := g.State.Info()
	for seat, name := range g.Header.Names {
		si := slices.Index(info.Seats, seat)
		if si < 0 {
			continue
		}
		p := byName[name]
		if p == nil {
			p = &PlayerStats{Name: name, ByGame: map[string]int{}}
			byName[name] = p
		}
		p.Games++
		p.ByGame[info.Game]++
		switch {
		case end.reason == "time" && end.flag != "" && res.Status == engine.Playing:
			fi := slices.Index(info.Seats, end.flag)
			switch {
			case fi >= 0 && info.SideOf[fi] == info.SideOf[si]:
				p.Lost++
				p.LostOnTime++
			case fi >= 0 && len(info.Sides) == 2:
				p.Won++ // the other side's flag fell
			default:
				p.Unfinished++ // four sides: the game ended with no winner
			}
		case res.Status == engine.Won && res.Winner == info.SideOf[si]:
			p.Won++
		case res.Status == engine.Won:
			p.Lost++
		case res.Status == engine.Draw:
			p.Drawn++
		default:
			p.Unfinished++
		}
	}
}

// writeStatsSVG draws, per game, a stacked bar of results and a histogram of
// game lengths.
func writeStatsSVG(w io.Writer, st *Stats) {
	const width, rowH, left = 900.0, 150.0, 90.0
	height := 40 + rowH*float64(max(1, len(st.Games)))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/><text x="16" y="24" font-size="15" font-weight="bold">%d games: results and lengths</text>`+"\n", st.Files-st.Unreadable)
	for i, gs := range st.Games {
		y0 := 40 + rowH*float64(i)
		fmt.Fprintf(&b, `<text x="16" y="%g" font-weight="bold">%s</text><text x="16" y="%g" fill="#666">%d games</text>`+"\n", y0+30, gs.Game, y0+46, gs.Games)
		// Results bar.
		x, bw := left, 360.0
		type part struct {
			label, colour string
			n             int
		}
		var parts []part
		for _, s := range gs.sides {
			parts = append(parts, part{s, analysis.SideColour(s), gs.Wins[s]})
		}
		parts = append(parts, part{"draw", "#bbbbbb", gs.Draws}, part{"unfinished", "#eeeeee", gs.Unfinished})
		for _, p := range parts {
			if p.n == 0 {
				continue
			}
			wd := bw * float64(p.n) / float64(gs.Games)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%g" width="%.1f" height="26" fill="%s" stroke="#ffffff"><title>%s: %d</title></rect>`+"\n", x, y0+14, wd, p.colour, html.EscapeString(p.label), p.n)
			if wd > 40 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle" fill="%s">%s %d%%</text>`+"\n", x+wd/2, y0+58, p.colour, html.EscapeString(p.label), 100*p.n/gs.Games)
			}
			x += wd
		}
		// Length histogram.
		hx, hw, hh := left+400, 380.0, 90.0
		const bins = 12
		lo, hi := gs.MinLength, gs.MaxLength+1
		counts := make([]int, bins)
		for _, l := range gs.Lengths {
			counts[min(bins-1, (l-lo)*bins/max(1, hi-lo))]++
		}
		top := slices.Max(counts)
		for k, c := range counts {
			h := hh * float64(c) / float64(max(1, top))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4c78a8"><title>%d–%d plies: %d</title></rect>`+"\n",
				hx+hw*float64(k)/bins+1, y0+10+hh-h, hw/bins-2, h, lo+k*(hi-lo)/bins, lo+(k+1)*(hi-lo)/bins-1, c)
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#444"/>`+"\n", hx, y0+10+hh, hx+hw, y0+10+hh)
		fmt.Fprintf(&b, `<text x="%g" y="%g">%d</text><text x="%g" y="%g" text-anchor="end">%d</text><text x="%g" y="%g" text-anchor="middle">length in plies (mean %.0f)</text>`+"\n",
			hx, y0+26+hh, lo, hx+hw, y0+26+hh, hi-1, hx+hw/2, y0+26+hh, gs.MeanLength)
	}
	b.WriteString("</svg>\n")
	io.WriteString(w, b.String())
}

// statsHub reads a club hub's finished games into a temporary folder and
// aggregates them.
func statsHub(ctx context.Context, opts *StatsOptions) error {
	tmp, err := os.MkdirTemp("", "tabla-stats-hub-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	dir, stop, err := hub.Mirror(ctx, opts.Hub, opts.HubCA, tmp, nil)
	if err != nil {
		return fmt.Errorf("stats: %v", err)
	}
	stop()
	o := *opts
	o.Dir = dir
	return StatsRun(&o)
}
