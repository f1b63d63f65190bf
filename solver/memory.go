package solver

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// DefaultMemory is 80% of the machine's memory (MemTotal in /proc/meminfo),
// or 4 GiB where that cannot be read.
func DefaultMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 4 << 30
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024 / 10 * 8
			}
		}
	}
	return 4 << 30
}

// writerSlack is what writing a level file may hold besides the set: up to
// four candidates in memory (64 MiB each before they spill to disk).
const writerSlack = 256 << 20

// bitsetBytes is the memory of a set over n positions, rank index included.
func bitsetBytes(n uint64) uint64 { return n/8 + n/8/64 + 64 }

// reachBytes estimates the peak memory of reaching and expanding tier t:
// its set (and, when loopy, a frontier and a found set), and per worker a
// set over each child tier.
func (r *Run) reachBytes(t tiergame.Tier) uint64 {
	g := r.Game
	n := bitsetBytes(g.TierSize(t))
	if r.Graph.Loopy[t] {
		n *= 3
	}
	var children uint64
	for _, c := range r.Graph.Children[t] {
		children += bitsetBytes(g.TierSize(c))
	}
	return n + uint64(min(r.Workers, r.ranges()))*children + writerSlack
}

// checkMemory refuses a run whose largest step does not fit in the budget.
func (r *Run) checkMemory() error {
	var worst tiergame.Tier
	var need uint64
	for _, t := range r.Graph.Tiers {
		for _, n := range []uint64{r.reachBytes(t), r.solveBytes(t)} {
			if n > need {
				worst, need = t, n
			}
		}
	}
	if need <= r.Memory {
		return nil
	}
	return fmt.Errorf("%w: tier %s (hash space %d) needs about %s, more than the budget of %s; "+
		"with this budget and %d workers the largest tier hash space that fits is about %d positions "+
		"(use fewer workers, or a larger --memory if the machine has it)",
		ErrTooBig, r.Game.TierName(worst), r.Game.TierSize(worst), bytesString(need), bytesString(r.Memory),
		r.Workers, LargestTier(r.Memory, r.Workers))
}

// LargestTier is the largest tier hash space whose steps fit in memory with
// the given workers, for a tier with one child tier of the same size
// (Connect Four's shape): reaching needs its set plus one child set per
// worker; solving needs two tiers' sets and values (estimated at every
// position reachable, the worst case).
func LargestTier(memory uint64, workers int) uint64 {
	if memory <= writerSlack {
		return 0
	}
	m := float64(memory - writerSlack)
	reach := m / ((1 + float64(workers)) * (1.0 / 8 * 65 / 64))
	solve := m / (2 * (1.0/8*65/64 + valueBytes))
	return uint64(min(reach, solve))
}

// ErrTooBig marks a run refused because a step would not fit in memory.
var ErrTooBig = fmt.Errorf("run does not fit in memory")

func bytesString(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
