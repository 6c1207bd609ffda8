package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/tabla-board/tabla/cmd/tabla/internal/watchers"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/analysis"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// AnalysisSuffix is added to a record's name for its cached analysis.
const AnalysisSuffix = ".analysis.json"

// analysisVersion changes when Analysis changes meaning.
const analysisVersion = 2

// Stamp identifies one version of a record file.
type Stamp struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	SHA256  string    `json:"sha256"`
}

// Analysis is a game's analysis as cached beside its record.
type Analysis struct {
	Version int              `json:"version"`
	Record  Stamp            `json:"record"`
	Level   int              `json:"level"`
	Blunder float64          `json:"blunder"`
	Report  *analysis.Report `json:"report"`
	// Best holds, for every step but the last, the engine's move from that
	// position (after the roll that follows it, if any) as an arrow; nil
	// where the move was forced or none was found.
	Best []*Arrow `json:"best"`
}

// Progress is where a game's analysis stands.
type Progress struct {
	// State is none (not started), queued, running, done or failed.
	State string `json:"state"`
	Done  int    `json:"done"`  // positions searched
	Total int    `json:"total"` // positions to search (0 until known)
	Error string `json:"error,omitempty"`
}

type job struct {
	id       string
	progress Progress
	result   *Analysis
	stamp    Stamp
}

// jobs runs analyses one at a time and keeps the finished ones in memory.
type jobs struct {
	lib   *Library
	mu    sync.Mutex
	queue chan *job
	byID  map[string]*job
	wg    sync.WaitGroup
	once  sync.Once
	done  chan struct{}
	ended watchers.Set // woken when an analysis ends, done or failed
}

func (j *jobs) init(l *Library) {
	j.lib = l
	j.byID = map[string]*job{}
	j.queue = make(chan *job, 1024)
	j.done = make(chan struct{})
}

func (j *jobs) start() {
	j.once.Do(func() {
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			for {
				select {
				case <-j.done:
					return
				case jb := <-j.queue:
					j.lib.run(jb)
				}
			}
		}()
	})
}

// Close stops the analysis worker: the analysis under way stops within a
// search's check (it is not cached), queued analyses are dropped.
func (l *Library) Close() {
	select {
	case <-l.jobs.done:
	default:
		close(l.jobs.done)
	}
	l.jobs.wg.Wait()
}

// stampOf reads a record file (by its name in the library) through its
// hash, and returns the file rewound to its start for reading it again;
// the caller closes it.
func (l *Library) stampOf(name string) (Stamp, *os.File, error) {
	f, err := l.open(name)
	if err != nil {
		return Stamp{}, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return Stamp{}, nil, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return Stamp{}, nil, err
	}
	return Stamp{Size: n, ModTime: fi.ModTime(), SHA256: hex.EncodeToString(h.Sum(nil))}, f, nil
}

// stamp is stampOf for the stamp alone.
func (l *Library) stamp(name string) (Stamp, error) {
	st, f, err := l.stampOf(name)
	if err == nil {
		f.Close()
	}
	return st, err
}

func (l *Library) level() int {
	if l.opts.Level == 0 {
		return search.DefaultLevel
	}
	return l.opts.Level
}

func (l *Library) blunder() float64 {
	if l.opts.Blunder == 0 {
		return analysis.DefaultBlunder
	}
	return l.opts.Blunder
}

// Analysis returns a game's analysis if it is done (from memory or from
// the cache beside the record, if that still describes the record), and
// where it stands otherwise.
func (l *Library) Analysis(id string) (*Analysis, Progress, error) {
	path, err := l.path(id)
	if err != nil {
		return nil, Progress{}, err
	}
	st, err := l.stamp(path)
	if err != nil {
		return nil, Progress{}, fmt.Errorf("library: %s: %w", id, ErrNotFound)
	}
	l.jobs.mu.Lock()
	if jb := l.jobs.byID[id]; jb != nil {
		switch p := jb.progress; {
		case p.State == "queued" || p.State == "running":
			l.jobs.mu.Unlock()
			return nil, p, nil
		case jb.stamp == st:
			l.jobs.mu.Unlock()
			return jb.result, p, nil // done, or failed on this version of the record
		}
	}
	l.jobs.mu.Unlock()
	if a := l.readCache(path, st); a != nil {
		l.jobs.mu.Lock()
		l.jobs.byID[id] = &job{id: id, progress: Progress{State: "done", Done: 1, Total: 1}, result: a, stamp: st}
		l.jobs.mu.Unlock()
		return a, Progress{State: "done", Done: 1, Total: 1}, nil
	}
	return nil, Progress{State: "none"}, nil
}

// readCache reads RECORD.analysis.json if it describes this version of the
// record at the library's level.
func (l *Library) readCache(path string, st Stamp) *Analysis {
	f, err := l.open(path + AnalysisSuffix)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil
	}
	var a Analysis
	if json.Unmarshal(data, &a) != nil || a.Version != analysisVersion || a.Report == nil {
		return nil
	}
	if a.Record.Size != st.Size || !a.Record.ModTime.Equal(st.ModTime) || a.Record.SHA256 != st.SHA256 ||
		a.Level != l.level() || a.Blunder != l.blunder() {
		return nil
	}
	return &a
}

// Analyze starts a game's analysis in the background unless it is done,
// queued or running (a failed one is tried again), and says where it
// stands.
func (l *Library) Analyze(id string) (Progress, error) {
	a, p, err := l.Analysis(id)
	if err != nil {
		return p, err
	}
	if a != nil || p.State == "queued" || p.State == "running" {
		return p, nil
	}
	e, _, err := l.Entry(id)
	if err != nil {
		return p, err
	}
	if e.Error != nil {
		return p, e.Error
	}
	st, err := l.stamp(filepath.FromSlash(e.ID))
	if err != nil {
		return p, err
	}
	jb := &job{id: id, progress: Progress{State: "queued"}, stamp: st}
	l.jobs.mu.Lock()
	l.jobs.byID[id] = jb
	l.jobs.mu.Unlock()
	l.jobs.start()
	select {
	case l.jobs.queue <- jb:
		return Progress{State: "queued"}, nil
	default:
		p := Progress{State: "failed", Error: "too many analyses queued; try again later"}
		l.jobs.mu.Lock()
		jb.progress = p
		l.jobs.mu.Unlock()
		return p, nil
	}
}

// ErrChanged: the record changed while it was analysed.
var ErrChanged = errors.New("the record changed while it was analysed")

// WatchAnalyses returns a channel that receives a value after each analysis
// ends, done or failed (coalesced); it is closed when ctx ends.
func (l *Library) WatchAnalyses(ctx context.Context) <-chan struct{} {
	return l.jobs.ended.Watch(ctx)
}

func (l *Library) run(jb *job) {
	defer l.jobs.ended.Wake()
	set := func(f func(p *Progress)) {
		l.jobs.mu.Lock()
		f(&jb.progress)
		l.jobs.mu.Unlock()
	}
	set(func(p *Progress) { p.State = "running" })
	a, err := l.analyse(jb.id, func(done, total int) { set(func(p *Progress) { p.Done, p.Total = done, total }) })
	if err != nil {
		l.log.Warn("analysis failed", "game", jb.id, "err", err)
		set(func(p *Progress) { p.State, p.Error = "failed", err.Error() })
		return
	}
	l.jobs.mu.Lock()
	jb.result, jb.stamp = a, a.Record
	jb.progress.State = "done"
	jb.progress.Done = max(jb.progress.Done, 1)
	jb.progress.Total = max(jb.progress.Total, 1)
	l.jobs.mu.Unlock()
}

// analyse analyses a game and writes the cache beside its record.
func (l *Library) analyse(id string, progress func(done, total int)) (a *Analysis, err error) {
	path, err := l.path(id)
	if err != nil {
		return nil, err
	}
	st, f, err := l.stampOf(path)
	if err != nil {
		return nil, err
	}
	g, _, err := replay(f, id)
	f.Close()
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("library: analysing %s: panic: %v", id, p)
		}
	}()
	so := search.Options{Level: l.level(), Seed: 1, Stop: l.jobs.done} // Close stops it
	rep, err := analysis.Analyze(g.Header, g.Applied, analysis.Options{Search: so, Workers: l.opts.Workers,
		Blunder: l.blunder(), Progress: progress})
	if err != nil {
		return nil, err
	}
	rep.TimeMS = 0
	a = &Analysis{Version: analysisVersion, Record: st, Level: l.level(), Blunder: l.blunder(), Report: rep}
	a.Best, err = bestArrows(g, rep)
	if err != nil {
		return nil, err
	}
	if now, err := l.stamp(path); err != nil || now != st {
		return nil, fmt.Errorf("library: %s: %w", id, ErrChanged)
	}
	out, err := json.Marshal(a)
	if err == nil {
		err = l.writeAtomic(path+AnalysisSuffix, out)
	}
	if err != nil {
		l.log.Warn("analysis not cached (kept in memory)", "game", id, "err", err)
	}
	return a, nil
}

// bestArrows draws the engine's move of every position before a move.
func bestArrows(g *record.Game, rep *analysis.Report) ([]*Arrow, error) {
	st, err := record.NewState(g.Header)
	if err != nil {
		return nil, err
	}
	var out []*Arrow
	k := 0
	for _, ap := range g.Applied {
		if ap.Roll {
			if err := st.Roll(ap.Face); err != nil {
				return nil, err
			}
			continue
		}
		var arrow *Arrow
		if k < len(rep.Moves) && rep.Moves[k].Best != "" && st.Awaiting() == engine.AwaitMove {
			arrow, _ = arrowOf(st, rep.Moves[k].Best) // a best move that does not parse is not drawn
		}
		out = append(out, arrow)
		st.Play(ap.Move)
		k++
	}
	return out, nil
}
