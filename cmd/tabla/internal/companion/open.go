package companion

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/serial"
	"github.com/tabla-board/tabla/sim"
)

// BoardOptions are what an opener may need besides the spec.
type BoardOptions struct {
	Def     *boards.Board
	Sensors string // sim: presence or identifying
	Seed    uint64 // sim: faults and dice
}

// Opener opens a board from the part of a spec after "scheme:".
type Opener func(ctx context.Context, arg string, o BoardOptions) (hardware.Board, error)

var (
	openersMu sync.Mutex
	openers   = map[string]Opener{
		"serial": openSerial,
		"sim":    openSim,
	}
)

// RegisterOpener adds a board scheme (the GPIO driver plugs in here).
func RegisterOpener(scheme string, o Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[scheme] = o
}

// Schemes lists the known board schemes.
func Schemes() []string {
	openersMu.Lock()
	defer openersMu.Unlock()
	var out []string
	for s := range openers {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// OpenBoard opens a board from a spec: "serial:/dev/ttyUSB0", "serial:auto",
// "gpio", "sim" (a virtual board in process whose clock follows the host's).
func OpenBoard(ctx context.Context, spec string, o BoardOptions) (hardware.Board, error) {
	scheme, arg, _ := strings.Cut(spec, ":")
	openersMu.Lock()
	op, ok := openers[scheme]
	openersMu.Unlock()
	if !ok {
		if scheme == "gpio" {
			return nil, fmt.Errorf("companion: board %q: this tabla has no GPIO driver yet", spec)
		}
		return nil, fmt.Errorf("companion: board %q: want one of %s (serial:PATH, serial:auto, sim)", spec, strings.Join(Schemes(), ", "))
	}
	return op(ctx, arg, o)
}

func openSerial(ctx context.Context, arg string, o BoardOptions) (hardware.Board, error) {
	if arg == "" {
		arg = "auto"
	}
	cfg := serial.Config{Dial: serial.PortDialer(arg, 0, nil)}
	if o.Def != nil {
		// a board that is not def is refused, and the daemon waits for def
		cfg.Accept, cfg.Expected = acceptBoard(o.Def), expected(o.Def)
	}
	return serial.Open(ctx, cfg)
}

// realTimeSim is a virtual board whose clock follows the host's, for
// `tabla run --board sim`.
type realTimeSim struct {
	*sim.Board
	stop chan struct{}
	once sync.Once
}

func openSim(ctx context.Context, arg string, o BoardOptions) (hardware.Board, error) {
	kind, err := sim.ParseSensorKind(o.Sensors)
	if err != nil {
		return nil, err
	}
	b, err := sim.New(sim.Options{Board: o.Def, Sensors: kind, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	rt := &realTimeSim{Board: b, stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-rt.stop:
				return
			case now := <-t.C:
				b.Advance(now.Sub(last))
				last = now
			}
		}
	}()
	return rt, nil
}

func (r *realTimeSim) Close() error {
	r.once.Do(func() { close(r.stop) })
	return r.Board.Close()
}

// Sim returns the virtual board behind a board opened with "sim", or nil.
func Sim(b hardware.Board) *sim.Board {
	switch v := b.(type) {
	case *sim.Board:
		return v
	case *realTimeSim:
		return v.Board
	}
	return nil
}
