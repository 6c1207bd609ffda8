// Package librarycmd implements `tabla library DIR`: the game library and
// analysis board of a folder of game records (or journals) in the browser.
package librarycmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/sameorigin"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
)

// Options are `tabla library`'s inputs.
type Options struct {
	IO         *cmdutil.IO
	Dir        string
	Listen     string
	AllowHosts []string
	Level      int
	Workers    int
	LogFormat  string
	// Hub is a club hub (cmd/tabla/internal/hub) whose finished games are
	// the library: they are mirrored into Dir (default: the user's cache
	// folder) and kept up to date; HubCA verifies its TLS certificate.
	Hub, HubCA string
	// Ready, when set, is called with the address once the library serves.
	Ready func(addr string, lib *library.Library)
}

// NewCmd returns `tabla library`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	o := &Options{IO: streams}
	cmd := &cobra.Command{
		Use:   "library DIR",
		Short: "Browse and analyse the games of a folder of records in the browser",
		Long: "Serve the game library of DIR (default http://127.0.0.1:7422/): every game\n" +
			"record and journal under it, to filter, sort and open; the analysis board of\n" +
			"a game (step through it, the win-probability curve, inaccuracies, mistakes,\n" +
			"blunders and missed wins with the better move, each player's accuracy, the\n" +
			"engine's best lines, your own variations played on the board, the annotated\n" +
			"record); search over every move, player and event; statistics as charts whose\n" +
			"bars open their games. Analyses run in the background and\n" +
			"are cached beside each record (RECORD.analysis.json); the index is cached in\n" +
			"DIR/.tabla-library.json. Files that are not game records are listed with\n" +
			"the line and byte where they go wrong.",
		Args: cobra.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			if o.Dir == "" && o.Hub == "" {
				return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("library: give DIR, or --hub URL for a club hub's library"))
			}
			return Run(c.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:7422", "address of the library (keep it on localhost unless you mean it)")
	f.StringSliceVar(&o.AllowHosts, "allow-host", nil, "further host names the library answers to (besides the listen address)")
	f.IntVar(&o.Level, "level", 0, "analysis level 1–5 (0: 3)")
	f.IntVar(&o.Workers, "workers", 0, "positions an analysis searches in parallel (0: all cores)")
	f.StringVar(&o.LogFormat, "log-format", "text", "log format: text or json")
	f.StringVar(&o.Hub, "hub", "", "the library of a club hub (tabla hub): nats://spectator:PASSWORD@HOST:4222, mirrored into DIR (default: the cache folder)")
	f.StringVar(&o.HubCA, "hub-ca", "", "PEM file of the authority of the hub's TLS certificate")
	return cmd
}

// Run serves the library until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := cmdutil.CheckLogFormat(o.LogFormat); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("library: --log-format %v", err))
	}
	if o.Level < 0 || o.Level > 5 {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("library: --level %d: want 1–5 (0: the default 3)", o.Level))
	}
	if o.Workers < 0 || o.Workers > 256 {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("library: --workers %d: want 0 (all cores) to 256", o.Workers))
	}
	log := cmdutil.Logger(o.IO.Err, o.LogFormat)
	if o.Hub != "" {
		stop, err := mirrorHub(ctx, o, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	lib, err := library.Open(o.Dir, library.Options{Level: o.Level, Workers: o.Workers, Logger: log})
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	defer lib.Close()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	guard, err := sameorigin.New(sameorigin.Config{Addr: ln.Addr().String(), Hosts: o.AllowHosts})
	if err != nil {
		ln.Close()
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("library: --allow-host: %v", err))
	}
	lib.Warm()
	// lib.Close before the server's Shutdown: a listing under way (Warm's,
	// or a page's /api/games waiting for it) stops, so the requests end
	// at once instead of holding Shutdown until the index is built.
	return serve(ctx, ln, guard.Wrap(webui.Library(lib, webui.LibraryOptions{})), log, lib.Close, func(addr string) {
		fmt.Fprintf(o.IO.Out, "tabla library: %s — open http://%s/ in a browser (Ctrl-C stops)\n", o.Dir, addr)
		log.Info("tabla library", "dir", o.Dir, "page", "http://"+addr+"/", "hosts", strings.Join(guard.Allowed(), ", "))
		if o.Ready != nil {
			o.Ready(addr, lib)
		}
	})
}

// serve serves h on ln until ctx ends; it then calls stopping, and shuts
// the server down.
func serve(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, stopping func(), ready func(addr string)) error {
	srv := webui.NewServer(ctx, h, webui.DefaultLimits)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(webui.DefaultLimits.Listener(ln)) }()
	ready(ln.Addr().String())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	stopping()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("library stopped")
	return err
}

// mirrorHub mirrors a club hub's finished games into o.Dir (the user's
// cache folder by default) and points o.Dir at them; they are kept up to
// date until stop.
func mirrorHub(ctx context.Context, o *Options, log *slog.Logger) (stop func(), err error) {
	if o.Dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("library: no cache folder for the hub's games (%v): give DIR", err)
		}
		o.Dir = filepath.Join(cache, "tabla", "hub")
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.IO.Err, "tabla library: reading the hub's games into %s…\n", o.Dir)
	dir, stop, err := hub.Mirror(ctx, o.Hub, o.HubCA, o.Dir, log)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	return stop, nil
}
