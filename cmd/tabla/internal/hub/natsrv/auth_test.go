package natsrv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func init() { BcryptCost = bcrypt.MinCost }

// TestCredentials: created once, a table added, saved only when changed,
// the hashes cached beside (never in credentials.json), the permissions
// each user gets.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	c, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddTable("alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddTable("Bad Name"); err == nil {
		t.Fatal("a bad table name added")
	}
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CredentialsFile)
	before, _ := os.Stat(path)
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("an unchanged save rewrote the file")
	}
	conf := c.NATSConfig()
	if err := c.SaveHashes(dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "$2a$") {
		t.Fatal("hashes in credentials.json")
	}
	d, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.LoadHashes(dir)
	if d.NATSConfig() != conf {
		t.Fatal("the cached hashes were not used")
	}
	for _, want := range []string{
		`user: "alpha"`, `"$KV.tabla_seats.alpha.>"`, `"_INBOX_alpha.>"`, `"_INBOX_spectator.>"`,
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("the config lacks %s", want)
		}
	}
	for _, not := range []string{`"$KV.tabla_seats.>"`, `"_INBOX.>"`, "CONSUMER.DELETE", "CONSUMER.DURABLE", c.Admin, c.Tables["alpha"]} {
		if strings.Contains(conf, not) {
			t.Errorf("the config holds %s", not)
		}
	}
}
