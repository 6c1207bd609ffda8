package companion

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// Who and where a game is played (record.Who: a name per seat, event,
// round, site, date) is part of the journal's header. It is set when a
// game starts from tabla run's and tabla sim's flags or config (WhoOptions),
// and changed during the game by a paired phone (SetWho: POST /api/who),
// which rewrites the header line of the journal (a new file renamed over
// the old one, as a takeback does) and journals {"who":{…},"t":"…"} for
// the club hub, which took the header when the game started. A new game
// on the same table keeps it.

// WhoOptions are the flags and config keys of who and where: Players are
// SEAT=NAME, the rest as record.Header's fields.
type WhoOptions struct {
	Players                  []string
	Event, Round, Site, Date string
}

// AddFlags adds the flags of who and where (tabla run, tabla sim).
func (w *WhoOptions) AddFlags(f *pflag.FlagSet) {
	f.StringArrayVar(&w.Players, "player", nil, "a player's name for a seat, SEAT=NAME (once per seat), e.g. --player red=Ayşe")
	f.StringVar(&w.Event, "event", "", "the event the games belong to, e.g. \"Moda club evening\"")
	f.StringVar(&w.Round, "round", "", "the round: 3, or 3.2 (round 3, table 2)")
	f.StringVar(&w.Site, "site", "", "where the games are played")
	f.StringVar(&w.Date, "date", "", "the day, YYYY-MM-DD")
}

// ParseWho reads who-and-where options for a game with these seats and
// checks them as the record reader will.
func ParseWho(o WhoOptions, seats []string) (record.Who, error) {
	w := record.Who{Event: o.Event, Round: o.Round, Site: o.Site, Date: o.Date}
	for _, p := range o.Players {
		seat, name, ok := strings.Cut(p, "=")
		if !ok {
			return record.Who{}, fmt.Errorf("player %q: want SEAT=NAME, e.g. %s=Ayşe", p, seats[0])
		}
		seat, name = strings.TrimSpace(seat), strings.TrimSpace(name)
		if w.Names == nil {
			w.Names = map[string]string{}
		}
		if _, dup := w.Names[seat]; dup {
			return record.Who{}, fmt.Errorf("player: seat %s named twice", seat)
		}
		w.Names[seat] = name
	}
	h := record.Header{}
	h.SetWho(w)
	if err := record.CheckWho(&h, seats); err != nil {
		return record.Who{}, err
	}
	return w, nil
}

// Who is the game's who and where.
func (s *Session) Who() record.Who {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header.Who()
}

// ErrGameOver: the game has ended, its record is not changed any more.
var ErrGameOver = errors.New("companion: the game is over; its record is kept as it is")

// SetWho sets the game's who and where (all of it: a field left empty is
// cleared) and rewrites the journal's header. Seats not of the game, empty
// or overlong names, a round or date of the wrong form are refused with a
// *record.FieldError.
func (s *Session) SetWho(w record.Who) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.header
	h.SetWho(w)
	if err := record.CheckWho(&h, s.ref.Game().Info().Seats); err != nil {
		return err
	}
	if s.overLocked() {
		return ErrGameOver
	}
	if s.journal != nil {
		if err := s.journal.rewriteHeader(&h); err != nil {
			return fmt.Errorf("companion: rewriting the journal's header: %w", err)
		}
		// the hub took the header when the game started: a line tells it
		line := struct {
			Who record.Who `json:"who"`
			T   string     `json:"t"`
		}{h.Who(), s.clock().UTC().Format(time.RFC3339Nano)}
		if err := s.journal.w.WriteObject(line); err != nil {
			return fmt.Errorf("companion: journal: %w", err)
		}
	}
	s.header = h
	s.publish()
	s.notifyLocked()
	return nil
}

// rewriteHeader replaces the journal's header line with h (meta kept from
// the file's header), through a new file renamed over the old one: a power
// cut leaves either.
func (j *Journal) rewriteHeader(h *record.Header) error {
	if p := j.Problem(); p != nil {
		return p
	}
	// the copy holds every line written: they are on disk with it
	if err := j.commit(); err != nil {
		return j.fail(err)
	}
	in, err := os.Open(j.path)
	if err != nil {
		return err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 64<<10)
	old, err := record.NewReader(io.LimitReader(br, record.MaxLine), j.path).Header()
	if err != nil {
		return err
	}
	// the reader above read the header line through its own buffer: start
	// over and skip the first line
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br.Reset(in)
	if _, err := br.ReadSlice('\n'); err != nil {
		return err
	}
	hh := *h
	hh.Meta = old.Meta
	tmp := j.path + ".tmp"
	f, err := j.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		os.Remove(tmp)
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = record.NewWriter(bw).WriteHeader(&hh)
	if err == nil {
		_, err = io.Copy(bw, br)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		os.Remove(tmp)
		return err
	}
	_, err = j.swapIn(tmp)
	return err
}

// overLocked: the game has ended (won, drawn, or its time ran out).
func (s *Session) overLocked() bool {
	return s.ref.Game().Awaiting() == engine.AwaitNone || s.clocks != nil && s.clocks.ended
}
