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
	// State is none (not started), queued, running, done, failed or
	// stopped (CancelAnalysis: Analyze resumes it).
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
	// known are the positions searched so far, by index (analysis.Known),
	// for this version of the record: a stopped analysis resumes from them.
	known []*analysis.Searched
	// cancel is closed to stop the job (CancelAnalysis); ended when its
	// run is over (or it was dropped).
	cancel, ended chan struct{}
	// stop is the running analysis's search stop: closed by the cancel
	// itself, so that no search starts after CancelAnalysis has asked,
	// or when the library closes (stopOnce: whichever comes first).
	stop     chan struct{}
	stopOnce sync.Once
}

// halt closes the job's search stop (once).
func (jb *job) halt() { jb.stopOnce.Do(func() { close(jb.stop) }) }

// cancelled reports whether the job was asked to stop.
func (jb *job) cancelled() bool {
	select {
	case <-jb.cancel:
		return true
	default:
		return false
	}
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

// Close stops the analysis worker and the indexing: the analysis under way
// stops within a search's check (it is not cached), queued analyses are
// dropped; a listing under way (Warm's or a caller's Games) stops between
// two files or within stopEvery lines of a long one, and the index cache
// is not written (the file stays whole: it is only ever replaced by a
// rename). Close returns once the worker and Warm's listing have stopped;
// the library's methods then return ErrClosed.
func (l *Library) Close() {
	l.life.Lock()
	select {
	case <-l.jobs.done:
	default:
		close(l.jobs.done)
	}
	l.life.Unlock()
	l.jobs.wg.Wait()
	l.warm.Wait()
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
	if e.Plies > analysis.MaxMoves {
		// refused at once, naming the line beyond the limit: reading
		// stops there
		f, err := l.open(filepath.FromSlash(e.ID))
		if err != nil {
			return p, fmt.Errorf("library: %q: %w", id, ErrNotFound)
		}
		_, _, err = replay(f, e.ID, l.jobs.done, nil, analysis.MaxMoves)
		f.Close()
		if err == nil {
			err = fmt.Errorf("library: %s: %d moves, more than the %d the analysis takes (analysis.MaxMoves)", e.ID, e.Plies, analysis.MaxMoves)
		}
		return Progress{State: "failed", Error: err.Error()}, err
	}
	st, err := l.stamp(filepath.FromSlash(e.ID))
	if err != nil {
		return p, err
	}
	jb := &job{id: id, progress: Progress{State: "queued"}, stamp: st, cancel: make(chan struct{}), ended: make(chan struct{}), stop: make(chan struct{})}
	l.jobs.mu.Lock()
	if old := l.jobs.byID[id]; old != nil && old.stamp == st {
		// What a stopped (or failed) run of this record searched is
		// not searched again.
		jb.known = old.known
		for _, k := range jb.known {
			if k != nil {
				jb.progress.Done++
			}
		}
		jb.progress.Total = old.progress.Total
	}
	l.jobs.byID[id] = jb
	p = jb.progress
	l.jobs.mu.Unlock()
	l.jobs.start()
	select {
	case l.jobs.queue <- jb:
		return p, nil
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

// CancelAnalysis stops a game's analysis if it is queued or running, and
// returns once it has stopped: the search under way ends at its next
// check of its stop channel (every 1,024 nodes or 64 iterations). The
// positions searched so far are kept in memory, and the next Analyze of
// the same version of the record resumes from them. It says where the
// analysis stands: stopped, or what Analysis says when there was nothing
// to stop.
func (l *Library) CancelAnalysis(id string) (Progress, error) {
	if _, err := l.path(id); err != nil {
		return Progress{}, err
	}
	jb := l.requestCancel(id)
	if jb == nil {
		_, p, err := l.Analysis(id)
		return p, err
	}
	<-jb.ended
	l.jobs.mu.Lock()
	defer l.jobs.mu.Unlock()
	return jb.progress, nil
}

// requestCancel asks the queued or running job of id to stop, and returns
// it when it was running (nil when there is nothing to wait for).
func (l *Library) requestCancel(id string) *job {
	l.jobs.mu.Lock()
	defer l.jobs.mu.Unlock()
	jb := l.jobs.byID[id]
	if jb == nil || (jb.progress.State != "queued" && jb.progress.State != "running") {
		return nil
	}
	if !jb.cancelled() {
		close(jb.cancel)
		jb.halt()
	}
	if jb.progress.State == "queued" {
		// Dropped when its turn comes.
		jb.progress.State = "stopped"
		l.jobs.ended.Wake()
		return nil
	}
	return jb
}

func (l *Library) run(jb *job) {
	defer close(jb.ended)
	defer l.jobs.ended.Wake()
	set := func(f func(p *Progress)) {
		l.jobs.mu.Lock()
		f(&jb.progress)
		l.jobs.mu.Unlock()
	}
	if jb.cancelled() {
		return // stopped while queued
	}
	set(func(p *Progress) { p.State = "running" })
	a, err := l.analyse(jb, func(done, total int) {
		set(func(p *Progress) { p.Done, p.Total = done, total })
		if l.testHookProgress != nil {
			l.testHookProgress(jb.id, done, total)
		}
	})
	if errors.Is(err, analysis.ErrStopped) && jb.cancelled() {
		set(func(p *Progress) { p.State = "stopped" })
		return
	}
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

// analyse analyses a game (from the positions jb knows) and writes the
// cache beside its record. It stops when the library closes or the job is
// cancelled.
func (l *Library) analyse(jb *job, progress func(done, total int)) (a *Analysis, err error) {
	id := jb.id
	path, err := l.path(id)
	if err != nil {
		return nil, err
	}
	st, f, err := l.stampOf(path)
	if err != nil {
		return nil, err
	}
	g, _, err := replay(f, id, l.jobs.done, nil, analysis.MaxMoves)
	f.Close()
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("library: analysing %s: panic: %v", id, p)
		}
	}()
	if st != jb.stamp {
		jb.known = nil // searched on another version of the record
	}
	// (CancelAnalysis closes jb.stop itself: a search the progress hook
	// lets go after the cancel must not start; Close through this)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-l.jobs.done: // Close
			jb.halt()
		case <-finished:
		}
	}()
	so := search.Options{Level: l.level(), Seed: 1, Stop: jb.stop}
	rep, err := analysis.Analyze(g.Header, g.Applied, analysis.Options{Search: so, Workers: l.opts.Workers,
		Blunder: l.blunder(), Progress: progress, Known: jb.known,
		Searched: func(i int, s analysis.Searched) {
			l.jobs.mu.Lock()
			defer l.jobs.mu.Unlock()
			if i >= len(jb.known) {
				jb.known = append(jb.known, make([]*analysis.Searched, i+1-len(jb.known))...)
			}
			jb.known[i] = &s
		}})
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
