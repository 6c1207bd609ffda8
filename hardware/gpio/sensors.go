package gpio

import (
	"errors"
	"fmt"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/spi"
)

// Scanner reads every sensor once: present[i] is whether sensor i sees a
// piece.
type Scanner interface {
	Sensors() int
	Scan(present []bool) error
}

// Matrix is a row/column sensor matrix: each row is driven active in turn
// and the columns read. With diodes in series with every switch (towards
// the row) any number of pieces reads without ghosting.
type Matrix struct {
	rows       []gpio.PinOut
	cols       []gpio.PinIn
	activeHigh bool
}

// NewMatrix sets the pins up: rows as outputs at the idle level, columns
// as inputs pulled to the idle level.
func NewMatrix(rows []gpio.PinOut, cols []gpio.PinIn, activeHigh bool) (*Matrix, error) {
	if len(rows) == 0 || len(cols) == 0 {
		return nil, errors.New("gpio: a matrix needs at least one row and one column")
	}
	m := &Matrix{rows: rows, cols: cols, activeHigh: activeHigh}
	pull := gpio.PullUp
	if activeHigh {
		pull = gpio.PullDown
	}
	for _, c := range cols {
		if err := c.In(pull, gpio.NoEdge); err != nil {
			return nil, fmt.Errorf("gpio: column %s: %w", c, err)
		}
	}
	for _, r := range rows {
		if err := r.Out(m.idle()); err != nil {
			return nil, fmt.Errorf("gpio: row %s: %w", r, err)
		}
	}
	return m, nil
}

func (m *Matrix) idle() gpio.Level { return !gpio.Level(m.activeHigh) }

// Sensors is rows × columns.
func (m *Matrix) Sensors() int { return len(m.rows) * len(m.cols) }

// Scan drives each row active in turn and reads the columns.
func (m *Matrix) Scan(present []bool) error {
	active := gpio.Level(m.activeHigh)
	for r, row := range m.rows {
		if err := row.Out(active); err != nil {
			return fmt.Errorf("gpio: row %s: %w", row, err)
		}
		for c, col := range m.cols {
			present[r*len(m.cols)+c] = col.Read() == active
		}
		if err := row.Out(!active); err != nil {
			return fmt.Errorf("gpio: row %s: %w", row, err)
		}
	}
	return nil
}

// ShiftChain is a chain of 74HC165 parallel-in shift registers read over
// SPI: a low pulse on the latch (SH/LD) pin loads the inputs, then one SPI
// read clocks out a byte per chip. Chip 0 is the one whose QH drives MISO;
// sensor 8k+i is input i (A=0 … H=7) of chip k. There is no periph driver
// for the 165; this is it.
type ShiftChain struct {
	conn       spi.Conn
	latch      gpio.PinOut
	buf        []byte
	activeHigh bool
}

// NewShiftChain sets the latch idle (high).
func NewShiftChain(conn spi.Conn, latch gpio.PinOut, chips int, activeHigh bool) (*ShiftChain, error) {
	if chips <= 0 {
		return nil, errors.New("gpio: a shift chain needs at least one chip")
	}
	if err := latch.Out(gpio.High); err != nil {
		return nil, fmt.Errorf("gpio: latch %s: %w", latch, err)
	}
	return &ShiftChain{conn: conn, latch: latch, buf: make([]byte, chips), activeHigh: activeHigh}, nil
}

// Sensors is 8 per chip.
func (s *ShiftChain) Sensors() int { return 8 * len(s.buf) }

// Scan latches the inputs and reads them. By default an input pulled low
// (a switch to ground, pull-ups on the inputs) is a piece.
func (s *ShiftChain) Scan(present []bool) error {
	if err := s.latch.Out(gpio.Low); err != nil {
		return fmt.Errorf("gpio: latch: %w", err)
	}
	if err := s.latch.Out(gpio.High); err != nil {
		return fmt.Errorf("gpio: latch: %w", err)
	}
	if err := s.conn.Tx(nil, s.buf); err != nil {
		return fmt.Errorf("gpio: reading the 74HC165 chain: %w", err)
	}
	for k, b := range s.buf {
		if !s.activeHigh {
			b = ^b
		}
		for i := range 8 {
			present[8*k+i] = b&(1<<i) != 0
		}
	}
	return nil
}

// debouncer accepts a sensor's new reading after n equal scans.
type debouncer struct {
	n      int
	stable []bool
	cand   []bool
	count  []int
}

func newDebouncer(sensors, n int) *debouncer {
	return &debouncer{n: max(n, 1), stable: make([]bool, sensors), cand: make([]bool, sensors), count: make([]int, sensors)}
}

// update takes one scan and appends the sensors whose state changed.
func (d *debouncer) update(raw []bool, changed []int) []int {
	for i, v := range raw {
		if v == d.stable[i] {
			d.count[i] = 0
			continue
		}
		if d.count[i] > 0 && v == d.cand[i] {
			d.count[i]++
		} else {
			d.cand[i], d.count[i] = v, 1
		}
		if d.count[i] >= d.n {
			d.stable[i], d.count[i] = v, 0
			changed = append(changed, i)
		}
	}
	return changed
}
