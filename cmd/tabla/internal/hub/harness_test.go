package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/remote"
	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/sim"
)

// testLog is a logger for tests: quiet unless TABLA_HUB_LOG is set.
func testLog(t testing.TB) *slog.Logger {
	if os.Getenv("TABLA_HUB_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
}

// testHub is an embedded hub on loopback.
type testHub struct {
	t        testing.TB
	dir      string
	srv      *Server
	hub      *Hub
	http     *httptest.Server
	addr     string // NATS host:port, kept across restarts
	httpAddr string // the pages' host:port, kept across restarts
	eval     time.Duration
	log      *slog.Logger // the server's and the service's log (default testLog)

	changes   <-chan struct{} // awaitChange's subscription
	changesOf *Hub            // (the hub it was made on: a restart makes a new one)
}

// awaitChange waits until the hub reports a change (a game's copy moved
// on), or briefly when none comes: what a test waits for may reach a table
// over its own link just after the hub's report.
func (th *testHub) awaitChange() {
	if th.changesOf != th.hub {
		th.changes, th.changesOf = th.hub.subscribe(th.t.Context(), "", false), th.hub
	}
	t := time.NewTimer(50 * time.Millisecond)
	defer t.Stop()
	select {
	case <-th.changes:
	case <-t.C:
	}
}

func startHub(t testing.TB) *testHub {
	th := &testHub{t: t, dir: t.TempDir(), addr: "127.0.0.1:0", eval: -1}
	th.start()
	t.Cleanup(th.stop)
	return th
}

func (th *testHub) start() {
	t := th.t
	log := th.log
	if log == nil {
		log = testLog(t)
	}
	srv, err := StartServer(ServerConfig{Dir: th.dir, Listen: th.addr, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	th.srv = srv
	th.addr = strings.TrimPrefix(srv.ClientURL(), "nats://")
	h, err := Open(Options{URL: srv.URL("admin", srv.Credentials().Admin), Dir: th.dir, Token: "secret", Logger: log, EvalTime: th.eval})
	if err != nil {
		t.Fatal(err)
	}
	th.hub = h
	th.http = httptest.NewUnstartedServer(h.Handler())
	if th.httpAddr != "" {
		ln, err := net.Listen("tcp", th.httpAddr)
		if err != nil {
			t.Fatal(err)
		}
		th.http.Listener.Close()
		th.http.Listener = ln
	}
	th.http.Start()
	th.httpAddr = th.http.Listener.Addr().String()
	waitFor(t, "the hub to read its streams", 60*time.Second, h.Ready)
}

// stop stops the service and the server (a kill of the hub).
func (th *testHub) stop() {
	if th.hub == nil {
		return
	}
	th.http.CloseClientConnections()
	th.http.Close()
	th.hub.Close()
	th.srv.Shutdown()
	th.hub = nil
}

// tableURL gives a table its credentials and returns its hub URL.
func (th *testHub) tableURL(name string) string { return th.tableURLs(name)[name] }

// tableURLs gives tables their credentials with one reload of the server
// and returns their hub URLs by name: a test whose tables connect while
// others play registers them all first (nats-server v2.15.2's reload
// races with the direct gets of tables already playing).
func (th *testHub) tableURLs(names ...string) map[string]string {
	c, err := LoadCredentials(th.dir)
	if err != nil {
		th.t.Fatal(err)
	}
	urls := map[string]string{}
	for _, name := range names {
		pw, err := c.AddTable(name)
		if err != nil {
			th.t.Fatal(err)
		}
		urls[name] = UserURL("nats://"+th.addr, name, pw)
	}
	if err := c.Save(th.dir); err != nil {
		th.t.Fatal(err)
	}
	if th.srv != nil {
		if err := th.srv.Reload(); err != nil {
			th.t.Fatal(err)
		}
	}
	return urls
}

func waitFor(t testing.TB, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vtable is a table on a virtual board: the sim board, the companion
// session on it (driven on virtual time by a Player), its link to the
// hub and its remote play; step plays as the person at the table.
type vtable struct {
	t      testing.TB
	name   string
	dir    string
	url    string
	join   string
	h      record.Header
	def    *boards.Board
	vb     *sim.Board
	sess   *companion.Session
	p      *companion.Player
	link   *link.Table
	rem    *remote.Remote
	cancel context.CancelFunc
	done   chan struct{}
	rng    *rand.Rand
	seed   uint64
	mu     sync.Mutex
	closed bool
	paired bool   // hosts a game another table joins
	caFile string // the hub's TLS authority
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 42)) }

// openVTable opens a table (resuming its journal directory's game if it
// has one): h is the game it hosts, join the game it joins ("" none).
func openVTable(t testing.TB, url, name, dir string, h record.Header, join string, seed uint64) *vtable {
	v := &vtable{t: t, name: name, dir: dir, url: url, join: join, h: h, seed: seed, rng: rand.New(rand.NewPCG(seed, 42))}
	v.open()
	t.Cleanup(v.close)
	return v
}

func (v *vtable) open() {
	t := v.t
	ln, err := link.Connect(link.TableOptions{URL: v.url, Name: v.name, CA: v.caFile, JournalDir: v.dir, Logger: testLog(t), ReconnectWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	v.link = ln
	die := rand.New(rand.NewPCG(v.seed, 7))
	v.rem = remote.NewRemote(ln, remote.RemoteOptions{Join: v.join, JournalDir: v.dir, Rand: die.IntN, Logger: testLog(t).With("table", v.name)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	hh, resume, err := v.rem.Prepare(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	h := v.h
	noResume := false
	if hh != nil {
		h, noResume = *hh, !resume
		v.h = h
	}
	name := h.Board
	if name == "" {
		name = h.Game
	}
	if v.def, err = boards.Open(name); err != nil {
		t.Fatal(err)
	}
	// a resumed board keeps its pieces: set the virtual board up as the
	// journal left the game
	vb, err := sim.New(sim.Options{Board: v.def, Sensors: sim.Identifying, Seed: v.seed, Empty: v.vb != nil})
	if err != nil {
		t.Fatal(err)
	}
	if v.vb != nil {
		for i, code := range v.vb.Pieces() {
			if code != 0 {
				vb.Place(v.def.Cells[i].Name, v.def.Codes[code])
			}
		}
		v.vb.Close()
	}
	v.vb = vb
	sess, err := companion.Open(companion.Options{Header: h, Board: v.def, HW: vb, JournalDir: v.dir, NoResume: noResume,
		Source: "sim", Hint: v.rem.Hint, Rand: v.rem.Rand, Publisher: ln, Logger: testLog(t).With("table", v.name)})
	if err != nil {
		t.Fatal(err)
	}
	v.sess = sess
	v.p = companion.NewPlayer(vb, sess)
	ln.Start(sess)
	rctx, rcancel := context.WithCancel(context.Background())
	v.cancel = rcancel
	v.done = make(chan struct{})
	go func() {
		defer close(v.done)
		v.rem.Run(rctx, sess)
	}()
	v.closed = false
}

// close closes the table as a kill would: nothing flushed.
func (v *vtable) close() {
	if v.closed {
		return
	}
	v.closed = true
	v.cancel()
	<-v.done
	v.link.Close(0)
	v.p.Close()
	v.sess.Close()
}

// restart kills the table and starts it again on the same journal
// directory and board.
func (v *vtable) restart() {
	v.close()
	v.open()
}

// mine reports whether seat is played at this table.
func (v *vtable) mine(seat string) bool {
	if v.join != "" {
		return seat == v.rem.Seat()
	}
	if !v.paired {
		return true // a table on its own
	}
	if !v.rem.Ready() {
		return false // the person waits until the table knows who plays where
	}
	return !v.rem.PlayedElsewhere(seat)
}

// state is the game as the table's referee has it.
func (v *vtable) state() engine.State {
	h := v.h
	h.Meta = nil
	st, err := record.NewState(&h)
	if err != nil {
		v.t.Fatal(err)
	}
	for _, a := range v.sess.History() {
		if a.Roll {
			st.Roll(a.Face)
		} else {
			st.Play(a.Move)
		}
	}
	return st
}

func (v *vtable) act(action string) {
	if err := v.p.Act(json.RawMessage(action)); err != nil {
		st := v.sess.State()
		v.t.Fatalf("%s: %s: %v\nexpected %v\nsensed   %v\nmoves %v hint %q mode %s", v.name, action, err, st.Expected, st.Sensed, st.Moves, st.Hint, st.Mode)
	}
}

// step makes the next physical action the person at the table would: put
// the board right, roll or move for a seat played here, carry out a move
// lit for a seat played elsewhere. It reports whether it did anything.
func (v *vtable) step() bool {
	st := v.sess.State()
	if st.Mode == "confirm" {
		v.act(`{"press":"confirm"}`)
		return true
	}
	if !st.InSync {
		return v.fix(st.Expected, st.Sensed)
	}
	if st.Status != "playing" || st.ToMove == nil {
		return false
	}
	seat := *st.ToMove
	if !v.mine(seat) {
		if st.Awaiting == "move" && st.Hint != "" {
			v.carry(v.state(), st.Hint)
			return true
		}
		return false
	}
	game := v.state()
	if game.Awaiting() == engine.AwaitRoll {
		face := chooseFace(game, v.def, v.rng)
		if game.Info().Die.Numeric {
			v.act(`{"roll":` + face + `}`)
		} else {
			v.act(`{"roll":"` + face + `"}`)
		}
		return true
	}
	m := chooseMove(game, v.def, v.rng)
	v.carry(game, engine.MoveString(game, m))
	return true
}

// fix puts the board in line with the position.
func (v *vtable) fix(expected, sensed map[string]string) bool {
	did := false
	cells := make([]string, 0, len(sensed))
	for c := range sensed {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	for _, c := range cells {
		if expected[c] != sensed[c] {
			v.act(`{"remove":"` + c + `"}`)
			did = true
		}
	}
	cells = cells[:0]
	for c := range expected {
		cells = append(cells, c)
	}
	sort.Strings(cells)
	for _, c := range cells {
		if _, on := v.def.Index(c); on && sensed[c] != expected[c] {
			v.act(`{"place":"` + c + `","piece":"` + expected[c] + `"}`)
			did = true
		}
	}
	return did
}

// carry carries out a move physically: lifts of the cells it empties or
// changes (the moving piece first), then places (its destination first).
func (v *vtable) carry(st engine.State, text string) {
	m, err := st.ParseMove(text)
	if err != nil {
		v.t.Fatalf("%s: carry %s: %v", v.name, text, err)
	}
	for _, s := range physical(st, m, text) {
		v.act(s)
	}
}

// physical is the actions that carry out m in st.
func physical(st engine.State, m engine.Move, text string) []string {
	before := st.Position().Pieces
	c := st.Clone()
	c.Play(m)
	after := c.Position().Pieces
	from, to, extra := "", "", ""
	if a, b, ok := strings.Cut(text, "-"); ok && !strings.Contains(text, ",") {
		from, to = a, b
		to, extra, _ = strings.Cut(to, "/")
	} else if a, b, ok := strings.Cut(text, ">"); ok {
		from, to = a, b
		to, _, _ = strings.Cut(to, "/")
	}
	var lifts, places []string
	for cell, p := range before {
		if after[cell] != p {
			lifts = append(lifts, cell)
		}
	}
	for cell, p := range after {
		if p != "" && before[cell] != p {
			places = append(places, cell)
		}
	}
	if extra != "" { // a GYGES replace: the landing piece is lifted and put down elsewhere
		lifts = []string{from, to}
		places = []string{to, extra}
	}
	sort.Strings(lifts)
	sort.Strings(places)
	first := func(list []string, x string) {
		if i := slices.Index(list, x); i > 0 {
			copy(list[1:i+1], list[:i])
			list[0] = x
		}
	}
	first(lifts, from)
	first(places, to)
	var out []string
	for _, l := range lifts {
		if after[l] == "" || slices.Contains(places, l) {
			out = append(out, `{"lift":"`+l+`"}`)
		}
	}
	for _, l := range lifts {
		if after[l] != "" && !slices.Contains(places, l) {
			out = append(out, `{"lift":"`+l+`"}`)
		}
	}
	for _, p := range places {
		out = append(out, `{"place":"`+p+`","piece":"`+after[p]+`"}`)
	}
	return out
}

// onBoard reports whether a move changes only cells of the physical board.
func onBoard(b *boards.Board, before, after map[string]string) bool {
	for _, m := range []map[string]string{before, after} {
		for c := range m {
			if _, ok := b.Index(c); !ok && before[c] != after[c] {
				return false
			}
		}
	}
	return true
}

// chooseMove plays a winning move if there is one, else a random move
// that stays on the physical board — for STAR the one that makes the
// largest group, so that games end in a few dozen plies.
func chooseMove(st engine.State, def *boards.Board, rng *rand.Rand) engine.Move {
	ms := st.Moves(nil)
	pos := st.Position().Pieces
	me := st.Info().Seats[st.ToMove()]
	best, score := engine.NoMove, -1
	for _, m := range ms {
		c := st.Clone()
		c.Play(m)
		if !onBoard(def, pos, c.Position().Pieces) {
			continue
		}
		s := rng.IntN(10)
		if r := c.Result(); r.Status == engine.Won && r.Winner == st.Info().SideOf[st.ToMove()] {
			s += 1000
		}
		if st.Info().Game == "star" {
			s += 10 * largestGroup(def, c.Position().Pieces, me)
		}
		if s > score {
			best, score = m, s
		}
	}
	if best == engine.NoMove {
		return ms[rng.IntN(len(ms))]
	}
	return best
}

// chooseFace rolls at random; for RAY mostly toward the target.
func chooseFace(st engine.State, def *boards.Board, rng *rand.Rand) string {
	faces := st.Info().Die.Faces
	f := faces[rng.IntN(len(faces))]
	if st.Info().Game != "ray" || rng.IntN(4) == 0 {
		return f
	}
	me := st.Info().Seats[st.ToMove()]
	at := ""
	for c, p := range st.Position().Pieces {
		if p == me {
			at = c
		}
	}
	ai, ok := def.Index(at)
	if !ok {
		return f
	}
	ti := def.MustIndex("o15")
	dx, dy := def.Cells[ti].X-def.Cells[ai].X, def.Cells[ti].Y-def.Cells[ai].Y
	switch {
	case math.Abs(dx) >= math.Abs(dy) && dx < 0:
		return "W"
	case math.Abs(dx) >= math.Abs(dy):
		return "E"
	case dy > 0:
		return "N"
	}
	return "S"
}

func largestGroup(b *boards.Board, pieces map[string]string, colour string) int {
	seen := map[string]bool{}
	best := 0
	for c, p := range pieces {
		if p != colour || seen[c] {
			continue
		}
		n, stack := 0, []string{c}
		seen[c] = true
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			xi, _ := b.Index(x)
			for d, q := range pieces {
				if q != colour || seen[d] {
					continue
				}
				di, _ := b.Index(d)
				if math.Abs(b.Cells[xi].X-b.Cells[di].X) <= 1.01 && math.Abs(b.Cells[xi].Y-b.Cells[di].Y) <= 1.01 {
					seen[d] = true
					stack = append(stack, d)
				}
			}
		}
		best = max(best, n)
	}
	return best
}

// journalMoves are the moves in effect of a journal file.
func journalMoves(t testing.TB, path string) []string {
	t.Helper()
	return movesOf(journalSteps(t, path))
}

// journalSteps are the moves and rolls in effect of a journal file.
func journalSteps(t testing.TB, path string) []Step {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := record.Replay(f, path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []Step
	seats := g.State.Info().Seats
	for _, a := range g.Applied {
		out = append(out, Step{Roll: a.Roll, Text: a.Text, Seat: seats[a.Seat]})
	}
	return out
}

func movesOf(steps []Step) []string {
	var out []string
	for _, s := range steps {
		if !s.Roll {
			out = append(out, s.Text)
		}
	}
	return out
}

func describe(st engine.State) string {
	r := st.Result()
	return fmt.Sprintf("ply %d %s", st.Plies(), r.Status)
}

// proxy is a TCP relay between a table and the hub that the test can cut,
// as a network would.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]bool
}

func newProxy(t testing.TB, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			time.Sleep(10 * time.Millisecond) // a transient failure
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[u] = true, true
		p.mu.Unlock()
		go p.pipe(c, u)
		go p.pipe(u, c)
	}
}

func (p *proxy) pipe(a, b net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := a.Read(buf)
		if n > 0 {
			if _, werr := b.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	a.Close()
	b.Close()
}

// setCut cuts the link (every connection dropped, new ones refused) or
// restores it.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

// viaProxy is a hub URL through a proxy.
func viaProxy(u string, p *proxy) string {
	at := strings.LastIndexByte(u, '@')
	return u[:at+1] + p.addr()
}

// joined waits until the host knows the guest plays its seat.
func joined(t testing.TB, host, guest *vtable) {
	t.Helper()
	host.paired = true
	waitFor(t, "the host to see the guest's seat", 10*time.Second, func() bool { return !host.mine(guest.rem.Seat()) })
}

// sameGame checks that two tables' journals hold the same moves and rolls.
func sameGame(t testing.TB, host, guest *vtable) []Step {
	t.Helper()
	hs, gs := journalSteps(t, host.sess.JournalPath()), journalSteps(t, guest.sess.JournalPath())
	if !slices.Equal(hs, gs) {
		for _, v := range []*vtable{host, guest} {
			t.Logf("%s: link %+v; remote %s", v.name, v.link.Stats(), v.rem.Debug())
		}
		t.Fatalf("the remote game's journals differ:\nhost  %v\nguest %v", hs, gs)
	}
	return hs
}
