package natsrv

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
)

// CredentialsFile holds a hub's NATS users, in its data directory (mode
// 0600).
const CredentialsFile = "credentials.json"

// Credentials are the users of a hub's NATS account TABLA:
//
//   - admin: everything (the hub's own connection, `tabla library --hub`);
//   - spectator: read-only — the live statuses and the games, nothing to
//     publish, no consumer to delete, replies on its own inbox only;
//   - one user per table, named after it: it publishes only on its own
//     subjects (its records, live status, journals, table entry, its
//     game's seats and its requests for seats of others' games) and reads
//     every game (remote play), replies on its own inbox only.
//
// They become users of the embedded server (NATS accounts and permissions,
// Config), or of an existing server's configuration (NATSConfig).
type Credentials struct {
	Admin     string            `json:"admin"`
	Spectator string            `json:"spectator"`
	Tables    map[string]string `json:"tables"`
	// Browser is the token that lets a person play a seat on the hub's
	// page (not a NATS user: the hub plays the seat).
	Browser string `json:"browser"`
	// Hashes cache the passwords' bcrypt hashes that the server's
	// configuration holds (user → SHA-256 of the password, hex, ":" hash).
	// The hub keeps them in a file of its own (HashesFile): only `tabla hub
	// table add` writes the credentials, so that an add while the hub
	// reloads is never lost and the hub's writes start no reload. Older
	// hubs kept them here; they are still read.
	Hashes map[string]string `json:"hashes,omitempty"`
}

// HashesFile caches the hub's bcrypt hashes of the credentials, in its
// data directory.
const HashesFile = "credentials-hashes.json"

// LoadHashes adds dir's cached hashes to c's.
func (c *Credentials) LoadHashes(dir string) {
	data, err := os.ReadFile(filepath.Join(dir, HashesFile))
	if err != nil {
		return
	}
	var h map[string]string
	if json.Unmarshal(data, &h) != nil {
		return // recomputed
	}
	if c.Hashes == nil {
		c.Hashes = map[string]string{}
	}
	for k, v := range h {
		c.Hashes[k] = v
	}
}

// SaveHashes writes c's hashes to dir's cache (0600, unchanged left alone).
func (c *Credentials) SaveHashes(dir string) error {
	data, err := json.MarshalIndent(c.Hashes, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, HashesFile)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ErrNoHub says a directory holds no hub's credentials.
var ErrNoHub = errors.New("no hub's credentials")

// ReadCredentials reads the credentials of an existing hub's data
// directory and never creates any: a command that acts on a running hub
// (`tabla hub event …`) fails at once on a wrong --data instead of making
// a new hub with new passwords that the running one does not know.
func ReadCredentials(dir string) (*Credentials, error) {
	path := filepath.Join(dir, CredentialsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		abs, _ := filepath.Abs(dir)
		return nil, fmt.Errorf("%w in %s (no %s): give the running hub's data directory with --data", ErrNoHub, abs, CredentialsFile)
	}
	return LoadCredentials(dir)
}

// LoadCredentials reads dir's credentials, creating them (an admin and a
// spectator password, no tables) when there are none.
func LoadCredentials(dir string) (*Credentials, error) {
	path := filepath.Join(dir, CredentialsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		c := &Credentials{Admin: secret(), Spectator: secret(), Tables: map[string]string{}, Browser: secret()}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		return c, c.Save(dir)
	}
	if err != nil {
		return nil, err
	}
	var c Credentials
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("hub: %s: %v", path, err)
	}
	if c.Admin == "" || c.Spectator == "" {
		return nil, fmt.Errorf("hub: %s: no admin or spectator password", path)
	}
	if c.Tables == nil {
		c.Tables = map[string]string{}
	}
	if c.Browser == "" {
		c.Browser = secret()
		if err := c.Save(dir); err != nil {
			return nil, err
		}
	}
	for name := range c.Tables {
		if err := wire.CheckTable(name); err != nil {
			return nil, fmt.Errorf("hub: %s: %v", path, err)
		}
	}
	return &c, nil
}

// Save writes the credentials (0600, through a temporary file).
func (c *Credentials) Save(dir string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, CredentialsFile)
	data = append(data, '\n')
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil // unchanged: no write for a watcher to see
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// AddTable adds a table (or returns its password if it has one).
func (c *Credentials) AddTable(name string) (string, error) {
	if err := wire.CheckTable(name); err != nil {
		return "", err
	}
	if pw, ok := c.Tables[name]; ok {
		return pw, nil
	}
	pw := secret()
	c.Tables[name] = pw
	return pw, nil
}

// secret is a random password: 24 bytes, URL-safe base64.
func secret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// jsRead are the JetStream API subjects a reader needs: stream and
// consumer info, consumers of the hub's streams and buckets (ordered,
// ephemeral ones: nats.go's ordered consumers and KV watches), message
// gets (KV gets included). No durable-consumer subject, no deletion of a
// consumer: one user cannot take another's consumers away.
var jsRead = []string{
	"$JS.API.INFO", "$JS.API.STREAM.INFO.>", "$JS.API.STREAM.NAMES", "$JS.API.STREAM.LIST",
	"$JS.API.STREAM.MSG.GET.>", "$JS.API.DIRECT.GET.>",
	"$JS.API.CONSUMER.CREATE." + wire.StreamGames + ".>", "$JS.API.CONSUMER.CREATE." + wire.StreamJournals + ".>",
	"$JS.API.CONSUMER.CREATE.KV_" + wire.BucketTables + ".>", "$JS.API.CONSUMER.CREATE.KV_" + wire.BucketSeats + ".>",
	"$JS.API.CONSUMER.CREATE.KV_" + wire.BucketPairings + ".>", // a club evening's pairings are public
	"$JS.API.CONSUMER.INFO.>", "$JS.API.CONSUMER.MSG.NEXT.>", "$JS.ACK.>", "$JS.FC.>",
}

// tableAllow is what table name may publish.
func tableAllow(name string) []string {
	return append([]string{
		wire.RecPrefix + name + ".>", wire.LiveSubject(name), wire.JournalPrefix + name + ".>",
		"$KV." + wire.BucketTables + "." + name, "$KV." + wire.BucketSeats + "." + name + ".>", // its seats and its requests
	}, jsRead...)
}

// NATSConfig is the accounts block of a NATS server configuration for
// these credentials: account TABLA with JetStream, its users and their
// permissions. Include it in an existing server's or cluster's
// configuration (`tabla hub config`) to use it as the hub.
func (c *Credentials) NATSConfig() string {
	if c.Hashes == nil {
		c.Hashes = map[string]string{}
	}
	var b strings.Builder
	b.WriteString("accounts {\n  TABLA {\n    jetstream: enabled\n    users: [\n")
	user := func(name, pw string, pub, sub []string) {
		fmt.Fprintf(&b, "      {user: %s, password: %s", strconv.Quote(name), strconv.Quote(c.hash(name, pw)))
		if pub != nil || sub != nil {
			fmt.Fprintf(&b, ", permissions: {publish: {allow: %s}, subscribe: {allow: %s}}", list(pub), list(sub))
		}
		b.WriteString("}\n")
	}
	user("admin", c.Admin, nil, nil)
	user("spectator", c.Spectator, jsRead, []string{wire.Inbox("spectator") + ".>", wire.LivePrefix + ">"})
	names := make([]string, 0, len(c.Tables))
	for n := range c.Tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		user(n, c.Tables[n], tableAllow(n), []string{wire.Inbox(n) + ".>", wire.LivePrefix + ">"}) // live: is the other board there
	}
	b.WriteString("    ]\n  }\n}\n")
	return b.String()
}

// BcryptCost is the cost of the passwords' hashes (tests lower it: under
// the race detector one hash takes seconds).
var BcryptCost = bcrypt.DefaultCost

// hash is the bcrypt hash of a user's password, from the cache when the
// password has not changed.
func (c *Credentials) hash(user, pw string) string {
	sum := sha256.Sum256([]byte(pw))
	key := hex.EncodeToString(sum[:])
	if h, ok := strings.CutPrefix(c.Hashes[user], key+":"); ok {
		return h
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), BcryptCost)
	if err != nil {
		return pw // too long for bcrypt: plain (the server takes both)
	}
	c.Hashes[user] = key + ":" + string(h)
	return string(h)
}

func list(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
