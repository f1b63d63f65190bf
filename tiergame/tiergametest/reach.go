package tiergametest

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Reach explores the positions reachable from g's start, breadth first,
// entering only the tiers for which tiers returns true (nil enters every
// tier) and the start's, and returns how many positions it reached in
// each tier. It calls visit, if not nil, with every position reached, its
// primitive value and its children. It stops t (t.Fatal) at the first
// move from a primitive position, position without moves that is not
// primitive, or move that leaves the tiers ChildTiers lists or the hashes
// of its tier: Check tells more.
//
// It keeps one bit per hash of each tier entered, so it suits the small
// tiers of a game: a test that compares the number of positions per tier
// with a published table, or collects positions for a benchmark.
func Reach(t testing.TB, g tiergame.Game, tiers func(tiergame.Tier) bool,
	visit func(t tiergame.Tier, p tiergame.Position, v tiergame.Value, children []tiergame.Child)) map[tiergame.Tier]uint64 {
	t.Helper()
	seen := map[tiergame.Tier][]uint64{}
	counts := map[tiergame.Tier]uint64{}
	mark := func(c tiergame.Child) bool {
		bits, ok := seen[c.Tier]
		if !ok {
			bits = make([]uint64, (g.TierSize(c.Tier)+63)/64)
			seen[c.Tier] = bits
		}
		w, b := c.Pos/64, c.Pos%64
		if bits[w]>>b&1 != 0 {
			return false
		}
		bits[w] |= 1 << b
		counts[c.Tier]++
		return true
	}
	st, sp := g.Start()
	if size := g.TierSize(st); uint64(sp) >= size {
		t.Fatalf("%s %s: start hash %d outside tier %d of size %d", g.Name(), g.Option(), sp, st, size)
	}
	queue := []tiergame.Child{{Tier: st, Pos: sp}}
	mark(queue[0])
	childTiers := map[tiergame.Tier][]tiergame.Tier{}
	var children []tiergame.Child
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		var v tiergame.Value
		v, children = g.Moves(c.Tier, c.Pos, children[:0])
		if v != tiergame.Undecided && len(children) > 0 {
			t.Fatalf("%s (tier %d): primitive (%v) but %d moves", g.Format(c.Tier, c.Pos), c.Tier, v, len(children))
		}
		if v == tiergame.Undecided && len(children) == 0 {
			t.Fatalf("%s (tier %d): not primitive but no moves", g.Format(c.Tier, c.Pos), c.Tier)
		}
		if visit != nil {
			visit(c.Tier, c.Pos, v, children)
		}
		ct, ok := childTiers[c.Tier]
		if !ok {
			ct = g.ChildTiers(c.Tier)
			childTiers[c.Tier] = ct
		}
		for _, ch := range children {
			if !slices.Contains(ct, ch.Tier) {
				t.Fatalf("%s (tier %d): a move to tier %d, which ChildTiers does not list: %v", g.Format(c.Tier, c.Pos), c.Tier, ch.Tier, ct)
			}
			if size := g.TierSize(ch.Tier); uint64(ch.Pos) >= size {
				t.Fatalf("%s (tier %d): a move to hash %d of tier %d, whose TierSize is %d", g.Format(c.Tier, c.Pos), c.Tier, ch.Pos, ch.Tier, size)
			}
			if (tiers == nil || tiers(ch.Tier)) && mark(ch) {
				queue = append(queue, ch)
			}
		}
	}
	return counts
}

// Walk returns count hashes of a tier of size hashes in the order a
// cursor might be asked for them: mostly ascending by 1 to 4, as the
// solver visits a tier's reachable positions, with jumps of every length
// and steps back to anywhere (each one step in eight). Check draws hashes
// in short walks; a game's own test can compare its cursor with a
// reference over a long one.
func Walk(rng *rand.Rand, size uint64, count int) []tiergame.Position {
	if size == 0 {
		return nil
	}
	ps := make([]tiergame.Position, count)
	p := rng.Uint64N(size)
	for i := range ps {
		ps[i] = tiergame.Position(p)
		switch rng.IntN(8) {
		case 0:
			p = rng.Uint64N(size)
		case 1:
			p += rng.Uint64N(1 << rng.IntN(40))
		default:
			p += 1 + rng.Uint64N(4)
		}
		if p >= size {
			p = rng.Uint64N(size)
		}
	}
	return ps
}

// Variant is one of the versions of a piece of work Compare times: Run
// does the work for n items (positions).
type Variant struct {
	Name string
	Run  func(n int)
}

// Compare is a benchmark of several versions of the same work, such as a
// game's Moves, its cursor and an older Moves over the same positions: it
// runs each variant over n items in turn, one round of all of them per
// iteration, and reports the fastest round of each as "ns/pos-NAME" and
// "Mpos/s-NAME". Taking turns within one process keeps the comparison fair
// on a machine whose load changes from one moment to the next.
func Compare(b *testing.B, n int, vs ...Variant) {
	best := make([]time.Duration, len(vs))
	for b.Loop() {
		for i, v := range vs {
			start := time.Now()
			v.Run(n)
			if d := time.Since(start); best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	for i, v := range vs {
		ns := float64(best[i].Nanoseconds()) / float64(n)
		b.ReportMetric(ns, "ns/pos-"+v.Name)
		b.ReportMetric(1e3/ns, "Mpos/s-"+v.Name)
	}
	b.ReportMetric(0, "ns/op")
}
