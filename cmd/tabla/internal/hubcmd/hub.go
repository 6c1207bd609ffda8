// Package hubcmd implements `tabla hub`: a club's tables on one hub (live
// broadcast, remote play between boards, one library), on NATS. The work
// is cmd/tabla/internal/hub's; this package parses flags.
package hubcmd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
)

// Options are `tabla hub`'s inputs.
type Options struct {
	IO        *cmdutil.IO
	Serve     hub.ServeOptions
	LogFormat string
	// Ready, when set, is called once the hub serves (tests).
	Ready func(addr, natsURL string)
}

// defaultDir is the data directory without --data.
func defaultDir() string {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" {
		return d
	}
	return "tabla-hub"
}

// NewCmd returns `tabla hub` and its subcommands.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	o := &Options{IO: streams}
	cmd := &cobra.Command{
		Use:   "hub [--data DIR] [--listen ADDR] [--nats-listen ADDR | --nats URL]",
		Short: "A club's tables on one hub: live broadcast, remote play, one library (NATS)",
		Long: "Run a club hub. By default it embeds a NATS server with JetStream (storage\n" +
			"in DIR/nats) that the tables publish to (--nats-listen, default :4222), and\n" +
			"serves on --listen the spectators' pages (every live table, its board, moves\n" +
			"and evaluation bar), browser play and the club library (/library/, GET\n" +
			"/api/games). With --nats it uses an existing NATS server or cluster (the\n" +
			"admin's URL) and starts none.\n\n" +
			"Credentials live in DIR/credentials.json: an admin, a read-only spectator,\n" +
			"one user per table (`tabla hub table add NAME` prints the table's config\n" +
			"line), and the token for browser play. A running hub picks added tables up\n" +
			"within seconds. Tables: `tabla run --hub nats://NAME:PASSWORD@HOST:4222`.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := cmdutil.CheckLogFormat(o.LogFormat); err != nil {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub: --log-format %v", err))
			}
			if o.Serve.Replicas < 0 || o.Serve.Replicas > 5 {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("hub: --replicas %d: want 1–5", o.Serve.Replicas))
			}
			if c.Flags().Changed("nats") && c.Flags().Changed("nats-listen") {
				return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("hub: --nats uses an existing server: --nats-listen is for the embedded one"))
			}
			if (o.Serve.TLSCert == "") != (o.Serve.TLSKey == "") {
				return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("hub: TLS needs both --tls-cert and --tls-key"))
			}
			o.Serve.Logger = cmdutil.Logger(o.IO.Err, o.LogFormat)
			o.Serve.Ready = func(addr, natsURL string) {
				fmt.Fprintf(o.IO.Out, "tabla hub: pages on http://%s/, tables connect to %s (data in %s; Ctrl-C stops)\n", addr, natsURL, o.Serve.Dir)
				if o.Ready != nil {
					o.Ready(addr, natsURL)
				}
			}
			return hub.Serve(c.Context(), o.Serve)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Serve.Dir, "data", defaultDir(), "data directory: credentials, JetStream storage, the club library")
	f.StringVar(&o.Serve.Listen, "listen", ":7430", "address of the spectators' pages and the library API")
	f.StringVar(&o.Serve.NATSListen, "nats-listen", ":4222", "address of the embedded NATS server the tables connect to")
	f.StringVar(&o.Serve.NATS, "nats", "", "use this NATS server or cluster instead (admin's URL: nats://admin:PASSWORD@HOST:4222[,…])")
	f.StringVar(&o.Serve.CA, "ca", "", "PEM file of the authority of the NATS server's TLS certificate, if the system does not know it (--nats, or --tls-cert signed by a private authority)")
	f.StringVar(&o.Serve.TLSCert, "tls-cert", "", "the embedded server speaks TLS with this certificate (PEM)")
	f.StringVar(&o.Serve.TLSKey, "tls-key", "", "…and this key (PEM)")
	f.IntVar(&o.Serve.Replicas, "replicas", 1, "replicas of the streams (3 on a three-node cluster)")
	f.StringSliceVar(&o.Serve.AllowHosts, "allow-host", nil, "further host names the pages answer to, e.g. hub.local")
	f.DurationVar(&o.Serve.EvalTime, "eval-time", 0, "search time of the evaluation bar per position (default 50ms; negative: none)")
	f.DurationVar(&o.Serve.BroadcastDelay, "broadcast-delay", 0, "hold the public feed of the live games (/api/broadcast) this long behind the boards, e.g. 15m")
	f.StringVar(&o.LogFormat, "log-format", "text", "text or json")
	cmd.AddCommand(newTableCmd(streams), newConfigCmd(streams), newEventCmd(streams))
	return cmd
}

func newTableCmd(streams *cmdutil.IO) *cobra.Command {
	var dir, host string
	var tls bool
	cmd := &cobra.Command{Use: "table", Short: "Add and list the tables of a hub"}
	cmd.PersistentFlags().StringVar(&dir, "data", defaultDir(), "the hub's data directory")
	cmd.PersistentFlags().StringVar(&host, "host", "", "HOST:PORT the tables reach the hub's NATS server at (default: this machine's name, port 4222)")
	cmd.PersistentFlags().BoolVar(&tls, "tls", false, "the hub speaks TLS (tls:// URLs)")
	hostOf := func() string {
		if host != "" {
			return host
		}
		name, err := os.Hostname()
		if err != nil {
			name = "localhost"
		}
		return net.JoinHostPort(name, strconv.Itoa(4222))
	}
	add := &cobra.Command{
		Use:   "add NAME…",
		Short: "Give tables their credentials and print each one's config line",
		Long: "Give each table a user of its own on the hub (a running hub reloads its\n" +
			"users within seconds) and print its line for tabla run's config file\n" +
			"(or --hub URL). Names are 1–32 of a–z, 0–9, _ and -.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			creds, err := hub.LoadCredentials(dir)
			if err != nil {
				return err
			}
			for _, name := range args {
				if _, err := creds.AddTable(name); err != nil {
					return cmdutil.WithCode(cmdutil.ExitUsage, err)
				}
			}
			if err := creds.Save(dir); err != nil {
				return err
			}
			for _, name := range args {
				line, _ := hub.TableLine(creds, name, hostOf(), tls)
				fmt.Fprintf(streams.Out, "%s:\t%s\n", name, line)
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Print every table's config line, the spectators' URL, the browser token and the admin's URL",
		Long: "Print every table's line for tabla run's config file, then the read-only\n" +
			"spectators' URL (for tabla library --hub and tabla stats --hub), the\n" +
			"token that lets a person play a seat on the hub's page (and start engine\n" +
			"analyses beyond a few a minute), and the admin's URL that tabla hub --nats\n" +
			"needs on an existing server or cluster (keep it to the hub's machine).",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			creds, err := hub.LoadCredentials(dir)
			if err != nil {
				return err
			}
			var names []string
			for n := range creds.Tables {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, name := range names {
				line, _ := hub.TableLine(creds, name, hostOf(), tls)
				fmt.Fprintf(streams.Out, "%s:\t%s\n", name, line)
			}
			scheme := "nats"
			if tls {
				scheme = "tls"
			}
			fmt.Fprintf(streams.Out, "spectators (tabla library --hub, tabla stats --hub):\t%s\n", hub.UserURL(scheme+"://"+hostOf(), "spectator", creds.Spectator))
			fmt.Fprintf(streams.Out, "browser play (Authorization: Bearer):\t%s\n", creds.Browser)
			fmt.Fprintf(streams.Out, "the hub itself (tabla hub --nats, on a cluster):\t%s\n", hub.UserURL(scheme+"://"+hostOf(), "admin", creds.Admin))
			return nil
		},
	}
	cmd.AddCommand(add, list)
	return cmd
}

func newConfigCmd(streams *cmdutil.IO) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the accounts block of an existing NATS server's config for this hub",
		Long: "Print the NATS configuration block (account TABLA with JetStream, the\n" +
			"admin, the spectator and every table with their permissions) to include in\n" +
			"an existing server's or cluster's configuration, for tabla hub --nats.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			creds, err := hub.LoadCredentials(dir)
			if err != nil {
				return err
			}
			creds.LoadHashes(dir) // the running hub's hashes, not new ones
			fmt.Fprint(streams.Out, creds.NATSConfig())
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "data", defaultDir(), "the hub's data directory")
	return cmd
}
