package hubcmd

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
)

// newEventCmd is `tabla hub event`: a club evening on the hub.
func newEventCmd(streams *cmdutil.IO) *cobra.Command {
	cmd := &cobra.Command{Use: "event", Short: "Club evenings on the hub: pairings, results, standings, ratings"}
	var dir, host, ca, name, site, date, clock, pages string
	var games, tables []string
	var rounds int
	var tls bool
	newc := &cobra.Command{
		Use:   "new ID --game GAME[:SYSTEM] --table GAME=TABLE,… [--rounds N] [--clock CONTROL]",
		Short: "Create a club evening on the running hub",
		Long: "Create a club evening on the running hub: its games (--game, once per\n" +
			"game; SYSTEM is swiss or roundrobin for two-player games, fours for\n" +
			"DAHA and RAY: tables of four; default swiss or fours), the tables that\n" +
			"play each (--table gyges=g1,g2,g3), the rounds and the time control\n" +
			"(--clock 10m+5s: base plus Fischer increment; 10m/d5s: a simple delay).\n\n" +
			"Then open the hub's page /event.html?e=ID: register the players (the\n" +
			"browser token of `tabla hub table list`) and start the first round. The\n" +
			"hub pairs each round, sends every pairing to its table (its phones show\n" +
			"who sits where), takes the results from the tables' journals as games\n" +
			"end, pairs the next round when the last result is in, and shows the\n" +
			"standings with their tie-breaks and the Glicko-2 ratings. A finished\n" +
			"round is one download of its games' records.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			spec := hub.EventSpec{ID: args[0], Name: name, Site: site, Date: date}
			byGame := map[string][]string{}
			for _, t := range tables {
				g, list, ok := strings.Cut(t, "=")
				if !ok || list == "" {
					return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event: --table %q: want GAME=TABLE,TABLE…", t))
				}
				byGame[g] = append(byGame[g], strings.Split(list, ",")...)
			}
			if len(games) == 0 {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event: no --game"))
			}
			for _, g := range games {
				game, system, _ := strings.Cut(g, ":")
				spec.Sections = append(spec.Sections, hub.SectionSpec{Game: game, System: system, Rounds: rounds, Clock: clock, Tables: byGame[game]})
				delete(byGame, game)
			}
			for g := range byGame {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event: --table for %s, which no --game names", g))
			}
			e, err := hub.NewEvent(spec, time.Now())
			if err != nil {
				return cmdutil.WithCode(cmdutil.ExitUsage, err)
			}
			creds, err := hub.ReadCredentials(dir)
			if err != nil {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event new: %w", err))
			}
			if err := hub.CheckEventTables(e, creds); err != nil {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event new: %w", err))
			}
			h := host
			if h == "" {
				h = net.JoinHostPort("localhost", strconv.Itoa(4222))
			}
			scheme := "nats"
			if tls {
				scheme = "tls"
			}
			if err := hub.CreateEventAt(c.Context(), hub.UserURL(scheme+"://"+h, "admin", creds.Admin), ca, e); err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "event %s created: register the players and start it on the hub's page %s\n", e.ID, hub.EventURL(pages, e.ID))
			for _, s := range e.Sections {
				fmt.Fprintf(streams.Out, "  %s: %s, %d rounds, clock %s, tables %s\n", s.Game, s.System, s.Rounds, orNone(s.Clock), strings.Join(s.Tables, ", "))
			}
			return nil
		},
	}
	f := newc.Flags()
	f.StringVar(&dir, "data", defaultDir(), "the hub's data directory (its admin's credentials)")
	f.StringVar(&host, "host", "", "HOST:PORT of the hub's NATS server (default localhost:4222)")
	f.StringVar(&pages, "url", "http://localhost:7430", "the hub's pages (tabla hub --listen), for the event page's address")
	f.BoolVar(&tls, "tls", false, "the hub speaks TLS")
	f.StringVar(&ca, "ca", "", "PEM file of the authority of the hub's TLS certificate")
	f.StringVar(&name, "name", "", "the event's name, as every game's header will carry it (default the id)")
	f.StringVar(&site, "site", "", "where it is played")
	f.StringVar(&date, "date", time.Now().Format("2006-01-02"), "the day, YYYY-MM-DD")
	f.StringArrayVar(&games, "game", nil, "a game of the evening, GAME[:SYSTEM] (swiss, roundrobin, fours); once per game")
	f.StringArrayVar(&tables, "table", nil, "the tables that play a game, GAME=TABLE,TABLE…")
	f.IntVar(&rounds, "rounds", 4, "rounds of each game")
	f.StringVar(&clock, "clock", "", "time control of every game, e.g. 10m+5s (none: untimed)")
	cmd.AddCommand(newc)
	cmd.AddCommand(arbiterCmds(streams)...)
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// arbiterCmds are `tabla hub event enter|withdraw|bye|forfeit|pair|
// rematch|result|end|clocks`: the arbiter's tools, sent to the hub's
// pages with its token as the event page sends them, each logged on the
// event with who (--by) and why (--why).
func arbiterCmds(streams *cmdutil.IO) []*cobra.Command {
	type common struct {
		url, token, dir, game, by, why string
	}
	mk := func(use, short, long string, args cobra.PositionalArgs, build func(c *cobra.Command, args []string) (hub.ArbiterAction, error), extra func(*cobra.Command)) *cobra.Command {
		var o common
		cmd := &cobra.Command{
			Use:   use,
			Short: short,
			Long: long + "\n\nSent to the hub's pages (--url) with the hub's token (--token, or read from\n" +
				"--data as `tabla hub table list` prints it); logged on the event with who\n" +
				"(--by) and why (--why).",
			Args: args,
			RunE: func(c *cobra.Command, args []string) error {
				a, err := build(c, args)
				if err != nil {
					return cmdutil.WithCode(cmdutil.ExitUsage, err)
				}
				a.Game, a.By, a.Why = o.game, o.by, o.why
				token := o.token
				if token == "" {
					creds, err := hub.ReadCredentials(o.dir)
					if err != nil {
						return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub event: %w (or give --token)", err))
					}
					token = creds.Browser
				}
				warnings, err := hub.PostArbiter(c.Context(), o.url, token, args[0], a)
				if err != nil {
					return err
				}
				for _, w := range warnings {
					fmt.Fprintf(streams.Out, "warning: %s\n", w)
				}
				return printOutcome(c, streams, o.url, args[0], a)
			},
		}
		f := cmd.Flags()
		f.StringVar(&o.url, "url", "http://localhost:7430", "the hub's pages (tabla hub --listen)")
		f.StringVar(&o.token, "token", "", "the hub's token (default: read from --data)")
		f.StringVar(&o.dir, "data", defaultDir(), "the hub's data directory (its token)")
		f.StringVar(&o.game, "game", "", "the game of the event (needed when it has more than one)")
		f.StringVar(&o.by, "by", defaultBy(), "who makes the change (the log says)")
		f.StringVar(&o.why, "why", "", "why (the log says; needed but for enter and clocks)")
		if extra != nil {
			extra(cmd)
		}
		return cmd
	}
	var rat, rd float64
	var pause bool
	var round, board int
	var boards, byes []string
	enter := mk("enter ID NAME [--rating R --rd RD]", "Register a player, or enter one late (or a paused player again)",
		"Before the first round: register NAME. After it: a late entry, who plays from\n"+
			"the next round on and scores nothing for the rounds missed (a round robin\n"+
			"takes no late entries); a paused player is paired again. --rating and --rd\n"+
			"give the rating the player comes with (default: the hub's rating from earlier\n"+
			"evenings, else 1500 ± 350).",
		cobra.ExactArgs(2), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActEnter, Name: args[1], Rating: rat, RD: rd}, nil
		}, func(c *cobra.Command) {
			c.Flags().Float64Var(&rat, "rating", 0, "the player's rating (Glicko-2 scale, e.g. 1720)")
			c.Flags().Float64Var(&rd, "rd", 0, "its deviation (default 350 with --rating)")
		})
	withdraw := mk("withdraw ID NAME [--pause]", "Withdraw a player from the rounds to come (--pause: until entered again)", "Withdraw a player.",
		cobra.ExactArgs(2), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActWithdraw, Name: args[1], Pause: pause}, nil
		}, func(c *cobra.Command) { c.Flags().BoolVar(&pause, "pause", false, "pause: out until `enter` again") })
	bye := mk("bye ID NAME [--round N]", "Give a player the half-point bye they asked for", "A half-point bye (¾ in a game of four) in a round not yet paired (default the next).",
		cobra.ExactArgs(2), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActBye, Name: args[1], Round: round}, nil
		}, func(c *cobra.Command) { c.Flags().IntVar(&round, "round", 0, "the round (default the next)") })
	roundBoard := func(c *cobra.Command) {
		c.Flags().IntVar(&round, "round", 0, "the round")
		c.Flags().IntVar(&board, "board", 0, "the board")
	}
	forfeit := mk("forfeit ID --round N --board B ABSENT…", "Score a game not played: the absent players lose it (scored, not rated)",
		"A forfeit: the players named did not come; they lose, the others win (shown + and −).",
		cobra.MinimumNArgs(2), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActForfeit, Round: round, Board: board, Absent: args[1:]}, nil
		}, roundBoard)
	pair := mk("pair ID --board A,B [--board C,D …] [--bye E]", "Pair the next round by hand (or the current one before any result)",
		"Pair a round by hand: each --board its players by seat, comma-separated,\n"+
			"board 1 first. Every player the round pairs must be on a board or the bye;\n"+
			"a rematch is allowed and warned of. The way out of a round the system\n"+
			"cannot pair (the others: rematch, end).",
		cobra.ExactArgs(1), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			a := hub.ArbiterAction{Do: hub.ActPair, Byes: byes}
			for _, b := range boards {
				var names []string
				for _, n := range strings.Split(b, ",") {
					names = append(names, strings.TrimSpace(n))
				}
				a.Games = append(a.Games, names)
			}
			if len(a.Games) == 0 {
				return a, fmt.Errorf("hub event pair: no --board")
			}
			return a, nil
		}, func(c *cobra.Command) {
			c.Flags().StringArrayVar(&boards, "board", nil, "a board's players by seat, A,B (once per board, board 1 first)")
			c.Flags().StringArrayVar(&byes, "bye", nil, "a player given the pairing's bye")
		})
	rematch := mk("rematch ID", "Pair a Swiss round that cannot be paired, allowing rematches (of the oldest games)", "Allow rematches.",
		cobra.ExactArgs(1), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActRematch}, nil
		}, nil)
	result := mk("result ID --round N --board B RESULT", "Set or correct a result: 1-0, ½-½ (or 1/2-1/2), 0-1; places by seat for four",
		"Set or correct a game's result as typed: 1-0, ½-½ (1/2-1/2), 0-1; in a game\n"+
			"of four the places by seat, e.g. \"2 1 4 3\".",
		cobra.ExactArgs(2), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActResult, Round: round, Board: board, Result: args[1]}, nil
		}, roundBoard)
	end := mk("end ID", "End the event (or --game) after the rounds played and print the final standings",
		"End the event after the rounds played: the current round must be complete.",
		cobra.ExactArgs(1), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActEnd}, nil
		}, nil)
	clocks := mk("clocks ID", "Start the round's clocks at every table (else each starts with its first move)",
		"Start the current round's clocks: each table starts its first mover's clock\n"+
			"now, unless a move is made already. Without it, a table's clocks start with\n"+
			"the first move, never while the pieces are set up.",
		cobra.ExactArgs(1), func(c *cobra.Command, args []string) (hub.ArbiterAction, error) {
			return hub.ArbiterAction{Do: hub.ActClocks}, nil
		}, nil)
	return []*cobra.Command{enter, withdraw, bye, forfeit, pair, rematch, result, end, clocks}
}

// printOutcome says what the hub did: the round for a pairing, the
// final standings for the end, else the log's last line.
func printOutcome(c *cobra.Command, streams *cmdutil.IO, url, id string, a hub.ArbiterAction) error {
	v, err := hub.GetEventView(c.Context(), url, id)
	if err != nil {
		return err
	}
	if n := len(v.Log); n > 0 {
		l := v.Log[n-1]
		fmt.Fprintf(streams.Out, "%s (%s)\n", l.What, l.Who)
	}
	if a.Do != hub.ActEnd {
		return nil
	}
	for _, s := range v.Sections {
		if a.Game != "" && s.Game != a.Game {
			continue
		}
		fmt.Fprintf(streams.Out, "%s final standings:\n", s.Game)
		rat := map[string]string{}
		for _, r := range s.Ratings {
			rat[r.Name] = hub.RatingText(r.After)
		}
		for _, st := range s.Standings {
			tb := make([]string, len(st.Tiebreaks))
			for i, x := range st.Tiebreaks {
				tb[i] = s.Tiebreaks[i] + " " + club.FormatPoints(x)
			}
			fmt.Fprintf(streams.Out, "  %2d. %-20s %5s  %s  rated %s\n", st.Rank, st.Name, club.FormatPoints(st.Points), strings.Join(tb, ", "), rat[st.Name])
		}
	}
	return nil
}

func defaultBy() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "arbiter"
}
