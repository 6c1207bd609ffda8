package hubcmd

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
)

// newEventCmd is `tabla hub event`: a club evening on the hub.
func newEventCmd(streams *cmdutil.IO) *cobra.Command {
	cmd := &cobra.Command{Use: "event", Short: "Club evenings on the hub: pairings, results, standings, ratings"}
	var dir, host, ca, name, site, date, clock string
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
			creds, err := hub.LoadCredentials(dir)
			if err != nil {
				return err
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
			fmt.Fprintf(streams.Out, "event %s created: register the players and start it on the hub's page /event.html?e=%s\n", e.ID, e.ID)
			for _, s := range e.Sections {
				fmt.Fprintf(streams.Out, "  %s: %s, %d rounds, clock %s, tables %s\n", s.Game, s.System, s.Rounds, orNone(s.Clock), strings.Join(s.Tables, ", "))
			}
			return nil
		},
	}
	f := newc.Flags()
	f.StringVar(&dir, "data", defaultDir(), "the hub's data directory (its admin's credentials)")
	f.StringVar(&host, "host", "", "HOST:PORT of the hub's NATS server (default localhost:4222)")
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
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
