package companion

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// A journal of more moves than a resuming daemon keeps
// (record.MaxApplied) is not resumed: it is set aside whole in
// unreadable/, every byte kept, and the log names the line of the first
// move beyond and the limit. No table plays such a game; a made-up one
// must not take the daemon's memory (issue 36 item 4).
func TestResumeRefusesTooManyMoves(t *testing.T) {
	dir := t.TempDir()
	name := "game-20261128T100000.000000000Z-star.jsonl"
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	header := `{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"star","identifying":false,"settle_ms":100,"takeback":2,"source":"sim"}}}`
	if err := recordtest.BackAndForth(f, header, record.MaxApplied+4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(path)
	var log bytes.Buffer
	if u, err := FindUnfinished(dir, "star", slog.New(slog.NewTextHandler(&log, nil))); err != ErrNoGame {
		t.Fatalf("resumed %v, %v; want ErrNoGame", u, err)
	}
	after, err := os.ReadFile(filepath.Join(dir, UnreadableDir, name))
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("the journal set aside: %v, %d bytes of %d", err, len(after), len(before))
	}
	for _, want := range []string{"moved aside", "line=100002", "100000"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
}
