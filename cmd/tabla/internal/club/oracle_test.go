package club

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
)

// oracle is the folder of the outside pairing oracle (shared/pairings
// beside the module: README.md there), or skips the test; in CI (CI
// set) a missing oracle fails.
func oracle(t *testing.T) string {
	t.Helper()
	o := filepath.Join(testfs.Root(t), "..", "shared", "pairings")
	if _, err := os.Stat(filepath.Join(o, "README.md")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the pairing oracle is missing in CI: %v", err)
		}
		t.Skipf("no pairing oracle: %v", err)
	}
	return o
}

// measures are the oracle README's comparison measures of one round
// (verify.py's measures()).
type measures struct {
	rematches, secondByes int
	diffSum, diffMax      float64
	imbalance, threeInRow int
}

func (m *measures) add(o measures) {
	m.rematches += o.rematches
	m.secondByes += o.secondByes
	m.diffSum += o.diffSum
	m.diffMax = max(m.diffMax, o.diffMax)
	m.imbalance += o.imbalance
	m.threeInRow += o.threeInRow
}

func measure(t *trf.Tournament, p *SwissPairing) measures {
	var m measures
	met := func(a, b int) bool {
		for _, c := range t.Players[a-1].Cells {
			if c.Opponent == b {
				return true
			}
		}
		return false
	}
	seats := func(a int, c byte) []byte {
		var seq []byte
		for _, x := range t.Players[a-1].Cells {
			if x.Opponent != 0 {
				seq = append(seq, x.Colour)
			}
		}
		return append(seq, c)
	}
	if p.Bye != 0 {
		for _, c := range t.Players[p.Bye-1].Cells {
			if c.PairingBye() {
				m.secondByes++
			}
		}
	}
	for _, b := range p.Boards {
		if met(b[0], b[1]) {
			m.rematches++
		}
		d := abs(t.Players[b[0]-1].Points - t.Players[b[1]-1].Points)
		m.diffSum += d
		m.diffMax = max(m.diffMax, d)
		for i, c := range []byte{'w', 'b'} {
			seq := seats(b[i], c)
			w := strings.Count(string(seq), "w")
			if d := w - (len(seq) - w); d > 2 || d < -2 {
				m.imbalance++
			}
			if k := len(seq); k >= 3 && seq[k-2] == c && seq[k-3] == c {
				m.threeInRow++
			}
		}
	}
	return m
}

func readPairs(path string) (*SwissPairing, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b))
	var nums []int
	for _, x := range f {
		v, err := strconv.Atoi(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		nums = append(nums, v)
	}
	if len(nums) == 0 || len(nums) != 1+2*nums[0] {
		return nil, fmt.Errorf("%s: not a .pairs file", path)
	}
	p := &SwissPairing{}
	for i := range nums[0] {
		a, b := nums[1+2*i], nums[2+2*i]
		switch {
		case b == 0:
			p.Bye = a
		case a == 0:
			p.Bye = b
		default:
			p.Boards = append(p.Boards, [2]int{a, b})
		}
	}
	return p, nil
}

// same reports whether two pairings have the same boards (unordered, or
// with seats) and bye.
func same(a, b *SwissPairing, seats bool) bool {
	key := func(p *SwissPairing) []string {
		var out []string
		for _, x := range p.Boards {
			if !seats && x[0] > x[1] {
				x[0], x[1] = x[1], x[0]
			}
			out = append(out, fmt.Sprint(x))
		}
		slices.Sort(out)
		return append(out, fmt.Sprint("bye ", p.Bye))
	}
	return slices.Equal(key(a), key(b))
}

// TestDutchOracle pairs every round of the oracle's 200 Swiss tournaments
// from the oracle's own history (bbpPairings' pairings of the earlier
// rounds) and holds tabla's pairings to bbpPairings' on the README's
// measures, summed over the rounds: no rematch, no second bye, no more
// score difference (sum and worst), no more seat faults; the rounds that
// bbpPairings found unpairable are refused.
func TestDutchOracle(t *testing.T) {
	dir := filepath.Join(oracle(t), "dutch")
	files, err := filepath.Glob(filepath.Join(dir, "T*-r*.trf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rounds in %s (%v)", dir, err)
	}
	var ours, theirs measures
	rounds, identical, identicalSeats, refused, unpairable, ourWorse, fallbacks := 0, 0, 0, 0, 0, 0, 0
	for _, f := range files {
		base := strings.TrimSuffix(f, ".trf")
		name := filepath.Base(base)
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		tour, err := trf.Read(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := HistoryOfTRF(tour)
		for i, pts := range h.Points() {
			if pts != tour.Players[i].Points {
				t.Fatalf("%s: player %d has %v points, the file says %v", name, i+1, pts, tour.Players[i].Points)
			}
		}
		got, fallback, err := pairDutch(h)
		if _, nerr := os.Stat(base + ".nopairing"); nerr == nil {
			unpairable++
			if !errors.Is(err, ErrNoPairing) {
				t.Errorf("%s: bbpPairings found no pairing; tabla: %v, %v", name, got, err)
			} else {
				refused++
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := readPairs(base + ".pairs")
		if err != nil {
			t.Fatal(err)
		}
		rounds++
		if fallback {
			fallbacks++
			t.Logf("%s: paired by the fallback matching: %v, bbpPairings %v", name, got, want)
		}
		if len(got.Boards) != len(want.Boards) || (got.Bye == 0) != (want.Bye == 0) {
			t.Errorf("%s: %d boards and bye %d, bbpPairings %d and %d", name, len(got.Boards), got.Bye, len(want.Boards), want.Bye)
		}
		mo, mt := measure(tour, got), measure(tour, want)
		ours.add(mo)
		theirs.add(mt)
		if same(got, want, false) {
			identical++
		}
		if same(got, want, true) {
			identicalSeats++
		}
		if mo.diffSum > mt.diffSum || mo.imbalance+mo.threeInRow > mt.imbalance+mt.threeInRow {
			ourWorse++
			t.Logf("%s: worse than bbpPairings here: %+v against %+v (%v against %v)", name, mo, mt, got, want)
		}
	}
	t.Logf("%d rounds paired (%d by the fallback matching), %d unpairable refused of %d", rounds, fallbacks, refused, unpairable)
	t.Logf("%-42s %12s %12s", "measure", "tabla", "bbpPairings")
	for _, r := range []struct {
		what string
		a, b any
	}{
		{"rematches", ours.rematches, theirs.rematches},
		{"second byes", ours.secondByes, theirs.secondByes},
		{"score differences, sum over all boards", ours.diffSum, theirs.diffSum},
		{"largest single-board score difference", ours.diffMax, theirs.diffMax},
		{"seat imbalance above 2 (player-rounds)", ours.imbalance, theirs.imbalance},
		{"same seat three times in a row", ours.threeInRow, theirs.threeInRow},
		{"rounds identical (boards and bye)", identical, rounds},
		{"rounds identical with seats", identicalSeats, rounds},
		{"rounds worse on a measure than bbpPairings", ourWorse, 0},
	} {
		t.Logf("%-42s %12v %12v", r.what, r.a, r.b)
	}
	switch {
	case rounds != 1113 || unpairable != 9:
		t.Errorf("%d rounds and %d unpairable; the oracle has 1113 and 9", rounds, unpairable)
	case ours.rematches != 0 || ours.secondByes != 0:
		t.Errorf("%d rematches and %d second byes", ours.rematches, ours.secondByes)
	case ours.diffSum > theirs.diffSum || ours.diffMax > theirs.diffMax:
		t.Errorf("score differences: sum %v max %v, bbpPairings %v and %v", ours.diffSum, ours.diffMax, theirs.diffSum, theirs.diffMax)
	case ours.imbalance > theirs.imbalance || ours.threeInRow > theirs.threeInRow:
		t.Errorf("seat faults: imbalance %d three in a row %d, bbpPairings %d and %d", ours.imbalance, ours.threeInRow, theirs.imbalance, theirs.threeInRow)
	}
}

// TestBergerOracle: every round of every size equals FIDE's table.
func TestBergerOracle(t *testing.T) {
	dir := filepath.Join(oracle(t), "berger")
	for n := 3; n <= 16; n++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("berger-%02d.txt", n)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if want := n - 1 + n%2; len(lines) != want {
			t.Fatalf("berger-%02d: %d rounds, want %d", n, len(lines), want)
		}
		for r, line := range lines {
			got, err := Berger(n, r+1)
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, p := range got {
				s = append(s, fmt.Sprintf("%d-%d", p[0], p[1]))
			}
			if g := strings.Join(s, " "); g != strings.TrimSpace(line) {
				t.Errorf("%d players, round %d: %s, FIDE %s", n, r+1, g, line)
			}
		}
		if _, err := Berger(n, len(lines)+1); err == nil {
			t.Errorf("%d players: a round %d", n, len(lines)+1)
		}
	}
}
