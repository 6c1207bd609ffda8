package club

import "fmt"

// Berger is round r (1-based) of FIDE's Berger table for n players
// (C.05, Annex 1): the pairs, board 1 first, as (first seat, second
// seat) numbers. An odd n uses the table of n+1, where meeting n+1 is a
// bye. With m = n-1 (n even): the last player meets a = 1 + (r-1)·n/2
// (mod m, in 1..m), in the second seat in odd rounds and the first in
// even ones; board k = 2..n/2 is (a+k-1) against (a-k+1), mod m in 1..m.
func Berger(n, r int) ([][2]int, error) {
	if n < 2 {
		return nil, fmt.Errorf("club: a round robin of %d players", n)
	}
	n += n % 2
	m := n - 1
	if r < 1 || r > m {
		return nil, fmt.Errorf("club: a round robin of %d players has rounds 1..%d, not %d", n, m, r)
	}
	wrap := func(x int) int { return ((x-1)%m+m)%m + 1 }
	a := wrap(1 + (r-1)*n/2)
	out := [][2]int{{a, n}}
	if r%2 == 0 {
		out[0] = [2]int{n, a}
	}
	for k := 2; k <= n/2; k++ {
		out = append(out, [2]int{wrap(a + k - 1), wrap(a - k + 1)})
	}
	return out, nil
}
