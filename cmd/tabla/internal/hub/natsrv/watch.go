package natsrv

import (
	"context"
	"log/slog"
	"time"
)

// WatchCredentials reloads the server's users when the credentials file
// changes (`tabla hub table add` on a running hub), looking every 2 s.
func WatchCredentials(ctx context.Context, srv *Server, log *slog.Logger) {
	w := CredWatch{Server: srv, Log: log}
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w.Check()
	}
}

// CredWatch compares the credentials file with what the server loaded
// last — by content, not time: the server's own write of the file (the
// hashes it caches) is what it loaded, not a change to reload for.
type CredWatch struct {
	Server *Server
	Log    *slog.Logger
}

// Check reloads the server's users if the file changed; it reports
// whether it did.
func (w *CredWatch) Check() bool {
	sum, err := credentialsSum(w.Server.cfg.Dir)
	if err != nil || sum == w.Server.loadedSum() {
		return false
	}
	if err := w.Server.Reload(); err != nil {
		w.Log.Error("hub: reloading the credentials", "err", err)
		return false
	}
	w.Log.Info("hub: credentials reloaded", "tables", len(w.Server.Credentials().Tables))
	return true
}
