package serial

import (
	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

// mergeGap is the most unchanged LEDs a partial frame carries to join two
// changed runs: a new LEDFrame costs about 12 bytes on the wire (header,
// start, count, CRC, COBS, delimiter), an LED 3.
const mergeGap = 3

// ledEncoder turns the difference between two LED frames into wire frames:
// LEDFrame messages for runs of changed steady LEDs and LEDSet messages for
// blinking LEDs grouped by colour and period. It reuses its buffers: in
// steady state it does not allocate.
type ledEncoder struct {
	frame  wire.LEDFrame
	set    wire.LEDSet
	groups []blinkGroup
}

type blinkGroup struct {
	color  wire.Color
	blink  uint8
	ranges []wire.Range
}

func color(l hardware.LED) wire.Color { return wire.Color{R: l.R, G: l.G, B: l.B} }

// appendUpdate appends to dst the frames that bring a board showing sent
// (nil: unknown, send everything) to want, numbering them from *seq. maxBody
// is the board's Hello.MaxRX. It returns the buffer and the number of
// frames appended.
func (e *ledEncoder) appendUpdate(dst []byte, seq *uint16, sent, want []hardware.LED, maxBody int) ([]byte, int, error) {
	dst, frames, _, err := e.walk(dst, seq, sent, nil, want, maxBody, 0)
	e.set.Ranges = nil
	return dst, frames, err
}

// appendNext appends the first frame of that update only, for a driver that
// waits for each frame's Ack (stop-and-wait) and then works out the next
// one from what the board shows by then and the newest frame wanted. LEDs
// with unknown[i] set (nil: none) count as changed. It returns the message
// it encoded (the encoder's own, valid until the next call; nil when
// nothing changed), so the caller knows which LEDs the frame sets.
func (e *ledEncoder) appendNext(dst []byte, seq *uint16, sent []hardware.LED, unknown []bool, want []hardware.LED, maxBody int) ([]byte, wire.Message, error) {
	dst, _, last, err := e.walk(dst, seq, sent, unknown, want, maxBody, 1)
	return dst, last, err
}

// walk encodes the update, stopping after limit frames (0: no limit), and
// returns the last message encoded.
func (e *ledEncoder) walk(dst []byte, seq *uint16, sent []hardware.LED, unknown []bool, want []hardware.LED, maxBody, limit int) ([]byte, int, wire.Message, error) {
	changed := func(i int) bool {
		return sent == nil || i >= len(sent) || (unknown != nil && unknown[i]) || sent[i] != want[i]
	}
	capacity := wire.LEDFrameCapacity(maxBody)
	if capacity < 1 {
		capacity = 1
	}
	frames := 0
	var lastMsg wire.Message
	n := len(want)
	// Steady runs.
	for i := 0; i < n; i++ {
		if want[i].Blink != hardware.Steady || !changed(i) {
			continue
		}
		last := i
		for k := i + 1; k < n && want[k].Blink == hardware.Steady && k-last <= mergeGap+1; k++ {
			if changed(k) {
				last = k
			}
		}
		for start := i; start <= last; start += capacity {
			end := min(start+capacity, last+1)
			e.frame.Start = uint16(start)
			e.frame.Colors = e.frame.Colors[:0]
			for k := start; k < end; k++ {
				e.frame.Colors = append(e.frame.Colors, color(want[k]))
			}
			var err error
			if dst, err = wire.AppendFrame(dst, *seq, &e.frame); err != nil {
				return dst, frames, nil, err
			}
			*seq++
			frames++
			if frames == limit {
				return dst, frames, &e.frame, nil
			}
		}
		i = last
	}
	// Blinking LEDs, grouped by colour and period.
	e.groups = e.groups[:0]
	for i := 0; i < n; i++ {
		if want[i].Blink == hardware.Steady || !changed(i) {
			continue
		}
		c, bl := color(want[i]), wiremap.BlinkUnits(want[i].Blink)
		g := e.group(c, bl)
		if r := len(g.ranges) - 1; r >= 0 && int(g.ranges[r].Start)+int(g.ranges[r].Count) == i {
			g.ranges[r].Count++
		} else {
			g.ranges = append(g.ranges, wire.Range{Start: uint16(i), Count: 1})
		}
	}
	maxRanges := min(wire.MaxRanges, (min(maxBody, wire.MaxBodyLen)-wire.MinBodyLen-5)/4)
	if maxRanges < 1 {
		maxRanges = 1
	}
	for gi := range e.groups {
		g := &e.groups[gi]
		for start := 0; start < len(g.ranges); start += maxRanges {
			e.set.Color, e.set.Blink = g.color, g.blink
			e.set.Ranges = g.ranges[start:min(start+maxRanges, len(g.ranges))]
			var err error
			if dst, err = wire.AppendFrame(dst, *seq, &e.set); err != nil {
				return dst, frames, nil, err
			}
			*seq++
			frames++
			lastMsg = &e.set
			if frames == limit {
				return dst, frames, lastMsg, nil
			}
		}
	}
	if frames > 0 && lastMsg == nil {
		lastMsg = &e.frame
	}
	return dst, frames, lastMsg, nil
}

func (e *ledEncoder) group(c wire.Color, blink uint8) *blinkGroup {
	for i := range e.groups {
		if e.groups[i].color == c && e.groups[i].blink == blink {
			return &e.groups[i]
		}
	}
	if len(e.groups) < cap(e.groups) {
		e.groups = e.groups[:len(e.groups)+1]
		g := &e.groups[len(e.groups)-1]
		g.color, g.blink, g.ranges = c, blink, g.ranges[:0]
		return g
	}
	e.groups = append(e.groups, blinkGroup{color: c, blink: blink})
	return &e.groups[len(e.groups)-1]
}
