package natsrv

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerConfig sets up the NATS server a hub embeds.
type ServerConfig struct {
	// Dir is the hub's data directory: credentials.json, nats.conf (written
	// from the credentials) and nats/ (JetStream's storage).
	Dir string
	// Listen is the address NATS clients connect to (host:port; port 0
	// picks a free one).
	Listen string
	// TLSCert and TLSKey, when set, make the server speak TLS only: tables
	// then connect with tls://HOST:PORT (and --hub-ca if the certificate is
	// not signed by a known authority).
	TLSCert, TLSKey string
	// Logger gets the server's notices, warnings and errors (default:
	// discard).
	Logger *slog.Logger
}

// Server is a NATS server with JetStream embedded in `tabla hub`: nothing
// else to install. Its users are the hub's Credentials.
type Server struct {
	cfg   ServerConfig
	mu    sync.Mutex
	ns    *server.Server
	conf  string
	host  string
	port  int
	creds *Credentials
	sum   [32]byte // SHA-256 of the credentials file as last loaded (and saved)
	loads int      // configurations loaded: the start and every reload
}

// StartServer starts the embedded NATS server and waits until it accepts
// connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Dir == "" {
		return nil, errors.New("hub: no data directory")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	host, portS, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("hub: --nats-listen %q: %v", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portS)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("hub: --nats-listen %q: bad port", cfg.Listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if host == "" {
		host = "0.0.0.0"
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("hub: TLS needs both a certificate and a key")
	}
	s := &Server{cfg: cfg, host: host, port: port, conf: filepath.Join(dir, "nats.conf")}
	if err := s.writeConf(); err != nil {
		return nil, err
	}
	opts, err := server.ProcessConfigFile(s.conf)
	if err != nil {
		return nil, fmt.Errorf("hub: %s: %v", s.conf, err)
	}
	opts.NoSigs = true
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("hub: NATS: %v", err)
	}
	ns.SetLoggerV2(natsLogger{cfg.Logger}, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("hub: the NATS server did not start within 30 s")
	}
	s.ns = ns
	if a, ok := ns.Addr().(*net.TCPAddr); ok {
		s.port = a.Port // keep it across reloads
	}
	return s, nil
}

// writeConf writes nats.conf from the credentials.
func (s *Server) writeConf() error {
	// the file's sum before it is read: an add between the two is seen
	// again by the watcher, never missed
	sum, serr := credentialsSum(s.cfg.Dir)
	creds, err := LoadCredentials(s.cfg.Dir)
	if err != nil {
		return err
	}
	if serr != nil { // created just now
		if sum, err = credentialsSum(s.cfg.Dir); err != nil {
			return err
		}
	}
	creds.LoadHashes(s.cfg.Dir)
	s.creds = creds
	var b strings.Builder
	fmt.Fprintf(&b, "# written by tabla hub from %s: edits are lost\n", CredentialsFile)
	fmt.Fprintf(&b, "server_name: \"tabla-hub\"\nhost: %s\nport: %d\nmax_payload: 8MB\n", strconv.Quote(s.host), s.port)
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %s\n}\n", strconv.Quote(filepath.Join(s.cfg.Dir, "nats")))
	if s.cfg.TLSCert != "" {
		cert, _ := filepath.Abs(s.cfg.TLSCert)
		key, _ := filepath.Abs(s.cfg.TLSKey)
		fmt.Fprintf(&b, "tls {\n  cert_file: %s\n  key_file: %s\n}\n", strconv.Quote(cert), strconv.Quote(key))
	}
	b.WriteString(creds.NATSConfig())
	if err := creds.SaveHashes(s.cfg.Dir); err != nil { // the hashes cached; the credentials left as they are
		return err
	}
	s.sum = sum // what was read before: an add since is the next reload's
	s.loads++
	tmp := s.conf + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.conf)
}

// Reload reads the credentials again (a table added with `tabla hub
// table add`) and reloads the server's users.
func (s *Server) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeConf(); err != nil {
		return err
	}
	return s.ns.Reload()
}

// credentialsSum is the SHA-256 of dir's credentials file.
func credentialsSum(dir string) ([32]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, CredentialsFile))
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(data), nil
}

func (s *Server) loadedSum() [32]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sum
}

// Loads counts the configurations the server loaded: 1 at the start, one
// more for every reload.
func (s *Server) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

// Credentials are the users as last loaded.
func (s *Server) Credentials() *Credentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creds
}

// ClientURL is the address clients connect to (nats:// or tls://, no
// user).
func (s *Server) ClientURL() string {
	host := s.host
	if host == "0.0.0.0" || host == "::" || host == "" {
		host = "127.0.0.1"
	}
	scheme := "nats"
	if s.cfg.TLSCert != "" {
		scheme = "tls"
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(s.port))
}

// URL is ClientURL with a user's credentials.
func (s *Server) URL(user, password string) string {
	return UserURL(s.ClientURL(), user, password)
}

// UserURL puts a user and password into a NATS URL.
func UserURL(u, user, password string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	return scheme + "://" + user + ":" + password + "@" + rest
}

// Shutdown stops the server and waits for it.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// NATS is the embedded server itself.
func (s *Server) NATS() *server.Server { return s.ns }

// natsLogger passes the server's log to slog.
type natsLogger struct{ l *slog.Logger }

func (n natsLogger) Noticef(f string, v ...any) { n.l.Debug("nats: " + fmt.Sprintf(f, v...)) }
func (n natsLogger) Warnf(f string, v ...any)   { n.l.Warn("nats: " + fmt.Sprintf(f, v...)) }
func (n natsLogger) Fatalf(f string, v ...any)  { n.l.Error("nats: " + fmt.Sprintf(f, v...)) }
func (n natsLogger) Errorf(f string, v ...any)  { n.l.Error("nats: " + fmt.Sprintf(f, v...)) }
func (n natsLogger) Debugf(f string, v ...any)  {}
func (n natsLogger) Tracef(f string, v ...any)  {}
