package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
	"github.com/tabla-board/tabla/cmd/tabla/internal/sameorigin"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
)

// ServeOptions are `tabla hub`'s inputs.
type ServeOptions struct {
	// Dir is the data directory: credentials, JetStream's storage (when
	// embedded), the club library.
	Dir string
	// Listen is the address of the spectators' pages and the library API.
	Listen string
	// NATSListen is the embedded NATS server's address (tables connect to
	// it); ignored with NATS.
	NATSListen string
	// NATS is an existing NATS server or cluster (the admin's URL,
	// nats://admin:PASSWORD@HOST:4222,…): no server is started.
	NATS string
	// CA verifies an existing server's TLS certificate.
	CA string
	// TLSCert and TLSKey make the embedded server speak TLS.
	TLSCert, TLSKey string
	// Replicas of the streams (default 1; 3 on a three-node cluster).
	Replicas int
	// AllowHosts are further names the pages answer to.
	AllowHosts []string
	// EvalTime bounds each evaluation (0: 50 ms; negative: none).
	EvalTime time.Duration
	// BroadcastDelay holds the public feed of the live games this long
	// behind the boards (Options.BroadcastDelay).
	BroadcastDelay time.Duration
	Logger         *slog.Logger
	// Ready, when set, is called once the hub serves, with the pages'
	// address and the NATS server's client URL (no credentials).
	Ready func(addr, natsURL string)
}

// Serve runs a hub until ctx ends: the embedded NATS server (unless NATS
// is given), the hub's service, and its pages on Listen.
func Serve(ctx context.Context, o ServeOptions) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	log := o.Logger
	if o.Dir == "" {
		return errors.New("hub: no data directory (--data)")
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return err
	}
	creds, err := LoadCredentials(o.Dir)
	if err != nil {
		return err
	}
	url, natsURL := o.NATS, o.NATS
	var srv *Server
	if o.NATS == "" {
		srv, err = StartServer(ServerConfig{Dir: o.Dir, Listen: o.NATSListen, TLSCert: o.TLSCert, TLSKey: o.TLSKey, Logger: log})
		if err != nil {
			return err
		}
		defer srv.Shutdown()
		url, natsURL = srv.URL("admin", creds.Admin), srv.ClientURL()
		go natsrv.WatchCredentials(ctx, srv, log)
	} else {
		natsURL = link.Redact(natsURL)
	}
	h, err := Open(Options{URL: url, CA: o.CA, Dir: o.Dir, Replicas: o.Replicas, Token: creds.Browser, EvalTime: o.EvalTime,
		BroadcastDelay: o.BroadcastDelay, Logger: log})
	if err != nil {
		return err
	}
	defer h.Close()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	guard, err := sameorigin.New(sameorigin.Config{Addr: ln.Addr().String(), Hosts: o.AllowHosts})
	if err != nil {
		ln.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The shared timeouts of every page server; a club's spectators keep
	// hundreds of event streams open (the load test: 1,500, from one
	// address), often from behind one address (a club's Wi-Fi), so larger
	// caps than a table's: one address may hold as many streams as
	// connections, and 512 slots stay for pages and new spectators.
	limits := webui.DefaultLimits
	limits.MaxConns = 4096
	limits.MaxPerHost = 2048
	limits.MaxStreams = 3584
	limits.StreamsPerHost = 2048
	hs := webui.NewServer(ctx, guard.Wrap(h.Handler()), limits)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limits.Listener(ln)) }()
	log.Info("tabla hub", "page", "http://"+ln.Addr().String()+"/", "nats", natsURL, "data", o.Dir)
	if o.Ready != nil {
		o.Ready(ln.Addr().String(), natsURL)
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	hs.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// TableLine is the config line of a table: its hub URL with its
// credentials, for host (HOST:PORT as the table reaches the hub).
func TableLine(c *Credentials, name, host string, tls bool) (string, error) {
	pw, ok := c.Tables[name]
	if !ok {
		return "", fmt.Errorf("hub: no table %q (add it first)", name)
	}
	scheme := "nats"
	if tls {
		scheme = "tls"
	}
	return "hub = " + UserURL(scheme+"://"+host, name, pw), nil
}
