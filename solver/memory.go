package solver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"

	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/tiergame"
)

// DefaultMemory is 80% of the machine's memory (MemTotal in /proc/meminfo),
// or 4 GiB where that cannot be read.
func DefaultMemory() uint64 { return memsize.DefaultBudget() }

// writerSlack is what writing a level file may hold besides the set: up to
// four candidates in memory (64 MiB each before they spill to disk).
const writerSlack = 256 << 20

// bitsetBytes is what a plan counts for a set over n positions: its
// words and a 64th. A ranked set holds a quarter more than its words
// (bitarray.RankedBytes, which a worker's cache counts); the plans count
// less and count the sets on the heap twice (solveSteps), which together
// came within 10% of every peak measured (K+R+N v K+A+A+B+B 2.7% under,
// K+R+N+A and K+R+N+B 9.3% and 9.7% over, Quixo 4x4 6-8% under): with the
// exact size the two largest plans were 14% over, since a step whose
// cells are outside the heap leaves the collector little garbage.
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
	return n + uint64(r.Workers)*children + writerBytes(g.TierSize(t))
}

// writerBytes is what writing the level file of a tier of size hashes
// may hold besides its set: its four candidates, each in memory up to
// 64 MiB (then it spills to disk), and compressed: about a bitmap's size
// at most for the smallest of them, which is all that matters once a
// candidate has lost. Level files of the sparse or structured tiers games
// have are far smaller.
func writerBytes(size uint64) uint64 { return min(writerSlack, 4*min(64<<20, bitsetBytes(size))) }

// count is the number of positions of tier t a step holds: the reachable
// ones once the manifest knows them; before, the most there can be: the
// tier's hash space, or in a symmetric run the canonical positions among
// its hashes, from a sample (see canonicalBound).
func (r *Run) count(t tiergame.Tier) uint64 {
	if r.Manifest != nil {
		if rec := r.Manifest.tier(uint64(t)); rec != nil && rec.Reached {
			return rec.Reachable
		}
	}
	size := r.Game.TierSize(t)
	if !r.Symmetry {
		return size
	}
	if n, ok := r.canonical[t]; ok {
		return n
	}
	if r.canonical == nil {
		r.canonical = map[tiergame.Tier]uint64{}
	}
	n := canonicalBound(r.Game.(tiergame.Symmetric), t, size)
	r.canonical[t] = n
	return n
}

// canonicalSamples is how many hashes canonicalBound draws from a tier.
const canonicalSamples = 1024

// canonicalBound returns a bound on the canonical positions among the
// hashes of tier t of size size: all of them counted in a small tier;
// else, from canonicalSamples hashes drawn at random (seeded by the tier,
// so a plan is repeatable), the fraction found canonical plus three
// standard deviations, times size. A symmetric game without symmetric
// positions keeps about 1/k of its hashes under k symmetries.
func canonicalBound(s tiergame.Symmetric, t tiergame.Tier, size uint64) uint64 {
	if size <= canonicalSamples {
		var n uint64
		for p := range size {
			if s.Canonical(t, tiergame.Position(p)) == tiergame.Position(p) {
				n++
			}
		}
		return n
	}
	rng := rand.New(rand.NewPCG(uint64(t), 0x63616e6f6e))
	hits := 0
	for range canonicalSamples {
		p := tiergame.Position(rng.Uint64N(size))
		if s.Canonical(t, p) == p {
			hits++
		}
	}
	f := float64(hits) / canonicalSamples
	f += 3*math.Sqrt(f*(1-f)/canonicalSamples) + 3.0/canonicalSamples
	if f >= 1 {
		return size
	}
	return uint64(math.Ceil(f * float64(size)))
}

// Estimate is the memory a run needs, before anything is computed.
type Estimate struct {
	Tiers     int    // tiers in the game's tier graph
	HashSpace uint64 // sum of the tiers' hash spaces
	Largest   uint64 // the largest tier's hash space
	// Need is the peak memory of the heaviest step, and Tier its tier.
	Need uint64
	Tier tiergame.Tier
	// Budget is the memory available; Fits says whether Need <= Budget.
	Budget uint64
	Fits   bool
	// Lean is the loopy tiers solved without their longest wins
	// elsewhere kept (Effort.Lean) so that their steps fit the budget.
	Lean []tiergame.Tier
	// LargestFit is the largest tier hash space that would fit the budget
	// (see LargestTier).
	LargestFit uint64
}

// BaseBytes is what a run holds whatever its game, counted in every
// step's estimate: the program, the Go runtime, goroutine stacks,
// compression tables (measured: 27-35 MiB for tic-tac-toe, Quixo 3x3 and
// Connect Four 4x4 with 2 workers).
const BaseBytes = 32 << 20

// Estimate computes the memory estimate of a run: counts are the reachable
// ones where the manifest knows them, else whole hash spaces.
func (r *Run) Estimate() Estimate {
	e := Estimate{Tiers: len(r.Graph.Tiers), Budget: r.Memory, LargestFit: LargestTier(r.Memory, r.Workers)}
	solve, lean := r.solveSteps()
	for _, t := range r.Graph.Tiers {
		if lean[t] {
			e.Lean = append(e.Lean, t)
		}
	}
	for _, t := range r.Graph.Tiers {
		size := r.Game.TierSize(t)
		e.HashSpace += size
		e.Largest = max(e.Largest, size)
		for _, n := range []uint64{r.reachBytes(t), solve[t]} {
			if n += BaseBytes; n > e.Need {
				e.Tier, e.Need = t, n
			}
		}
	}
	e.Fits = e.Need <= e.Budget
	return e
}

// solveSteps estimates the peak memory of each tier's solving step as
// Run.Solve takes them, children first: the step's own (solveBytes), the
// solved tiers it keeps for parents still to solve, and the next tier's
// level file, which loads meanwhile. What of it lives on the Go heap (the
// tiers' sets; cells are outside it) counts twice: the collector lets the
// heap grow to twice what is live before it collects (GOGC=100). A loopy
// tier whose step would not fit the budget with its longest wins
// elsewhere kept is solved lean (without them), and is in lean.
func (r *Run) solveSteps() (steps map[tiergame.Tier]uint64, lean map[tiergame.Tier]bool) {
	order := r.Graph.SolveOrder()
	steps = make(map[tiergame.Tier]uint64, len(order))
	lean = map[tiergame.Tier]bool{}
	held := map[tiergame.Tier]uint64{} // solved tiers kept for their parents
	left := map[tiergame.Tier]int{}
	var heldSum, heldSets uint64
	for _, t := range order {
		left[t] = len(r.Graph.Parents[t])
	}
	set := func(t tiergame.Tier) uint64 { return bitsetBytes(r.Game.TierSize(t)) }
	for i, t := range order {
		others, sets := heldSum, heldSets+set(t)
		for _, c := range r.Graph.Children[t] {
			others -= held[c] // in solveBytes
		}
		var next uint64
		if i+1 < len(order) {
			next = set(order[i+1])
		}
		steps[t] = r.solveBytes(t, false) + others + 2*next + sets
		if r.Graph.Loopy[t] && BaseBytes+steps[t] > r.Memory {
			steps[t] = r.solveBytes(t, true) + others + 2*next + sets
			lean[t] = true
		}
		held[t] = r.solvedBytes(t)
		heldSum += held[t]
		heldSets += set(t)
		for _, c := range r.Graph.Children[t] {
			if left[c]--; left[c] == 0 {
				heldSum -= held[c]
				heldSets -= set(c)
				delete(held, c)
			}
		}
	}
	return steps, lean
}

// Plan builds the tier graph of cfg's game and estimates its memory,
// without touching the disk.
func Plan(cfg Config) (*Run, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Memory == 0 {
		cfg.Memory = DefaultMemory()
	}
	if cfg.Symmetry && cfg.Seeds != "" {
		// Seeds are full level files; canonicalizing them is not built.
		return nil, errors.New("a symmetric run cannot start from seeds")
	}
	g, err := Reduce(cfg.Game, cfg.Symmetry)
	if err != nil {
		return nil, err
	}
	cfg.Game = g
	var roots []tiergame.Tier
	seeds := cfg.Seeds
	if _, err := os.Stat(filepath.Join(cfg.Dir, seedsDir)); seeds == "" && cfg.Dir != "" && err == nil {
		seeds = filepath.Join(cfg.Dir, seedsDir) // a run from seeds, resumed
	}
	if seeds != "" {
		if roots, err = seedTiers(g, seeds); err != nil {
			return nil, err
		}
	} else if so, ok := g.(tiergame.SeedsOnly); ok {
		if err := so.NeedsSeeds(); err != nil {
			return nil, err
		}
	}
	gr, err := NewGraph(cfg.Game, roots...)
	if err != nil {
		return nil, err
	}
	return &Run{Config: cfg, Graph: gr}, nil
}

// checkMemory refuses a run whose heaviest step does not fit in the
// budget, and notes the loopy tiers to solve lean.
func (r *Run) checkMemory() error {
	e := r.Estimate()
	r.lean = map[tiergame.Tier]bool{}
	for _, t := range e.Lean {
		r.lean[t] = true
	}
	if e.Fits {
		return nil
	}
	return fmt.Errorf("%w: tier %s (hash space %d) needs about %s, more than the budget of %s; "+
		"with this budget and %d workers the largest tier hash space that fits is about %d positions "+
		"(use fewer workers, or a larger --memory if the machine has it)",
		ErrTooBig, r.Game.TierName(e.Tier), r.Game.TierSize(e.Tier), bytesString(e.Need), bytesString(r.Memory),
		r.Workers, e.LargestFit)
}

// BytesString prints a byte count in GiB, MiB or bytes.
func BytesString(n uint64) string { return bytesString(n) }

// LargestTier is the largest tier hash space whose steps fit in memory with
// the given workers, for a tier with one child tier of the same size
// (Connect Four's shape): reaching needs its set plus one child set per
// worker; solving needs two tiers' sets, the tier's records and the
// child's (estimated at every position reachable, the worst case: the
// tier's records by rank and their cells, the child's cells).
func LargestTier(memory uint64, workers int) uint64 {
	if memory <= writerSlack {
		return 0
	}
	m := float64(memory - writerSlack)
	reach := m / ((1 + float64(workers)) * (1.0 / 8 * 65 / 64))
	solve := m / (2*(1.0/8*65/64) + recordBytes + 2*cellBytes)
	return uint64(min(reach, solve))
}

// ErrTooBig marks a run refused because a step would not fit in memory.
var ErrTooBig = fmt.Errorf("run does not fit in memory")

func bytesString(n uint64) string { return memsize.Format(n) }

// ChildChunk is how many records of a child tier a KidNotes unit (the
// cluster's, over a range of the child: ChildRanges) turns into notes at
// a time (SolvedReader.Range, ChildNotes): a chunk's records and their
// notes to every part are what it holds of the child beside the child's
// set: about 8 MiB in the estimate (KidNotesBytes).
const ChildChunk = 1 << 16

// noteBytes is a note's memory, and notesPerRecord a bound on the notes
// a child position gives (its parents in the tier, Connect Four's and
// xiangqi's un-moves and un-captures).
const (
	noteBytes      = 8
	notesPerRecord = 8
)

// notesFileBytes is what a notes file being written holds beside its
// notes: its buffer (bufio's 4 KiB) and its open file.
const notesFileBytes = 8 << 10

// PartFirstPassBytes estimates the peak memory of a part's first pass
// (NewPart from the part's own moves, then Part.Apply of the notes files
// of its child tiers a section at a time, Part.EndFirstPass) of a loopy
// tier solved in parts on a worker whose Go heap is held to its budget
// (debug.SetMemoryLimit, as tierd worker --memory does): the tier's set
// (size hashes), the part's cells over its hashes (a byte each) and a
// section of notes read (readNotesBytes); and BaseBytes. It reads no
// child tier: KidNotes units made its notes (KidNotesBytes).
func PartFirstPassBytes(size, hashes uint64) uint64 {
	return BaseBytes + bitsetBytes(size) + hashes*cellBytes + readNotesBytes
}

// KidNotesBytes estimates the peak memory of turning a range of a child
// tier of kidSize hashes into notes to the parts of a loopy tier in
// parts parts (a cluster's KidNotes unit: OpenSolved, SolvedReader.Range
// and ChildNotes a chunk at a time, the notes written to a file per role
// and part as they are made), on such a worker: the child's set (its
// database's reader), a chunk of its records (ChildChunk) with their
// notes, the notes files' encoding of a chunk's notes (their varints and
// zstd frames, a note's bytes each at most) and a buffer per file (three
// roles a part); and BaseBytes. It holds nothing of the tier itself.
func KidNotesBytes(kidSize uint64, parts int) uint64 {
	chunk := min(ChildChunk, kidSize) * (recordBytes + 2*notesPerRecord*noteBytes)
	return BaseBytes + bitsetBytes(kidSize) + chunk + 3*uint64(max(parts, 1))*notesFileBytes
}

// PartBytes estimates the peak memory of the units of a loopy tier of
// size hashes solved in parts of hashes each, whose largest child tier
// has kidSize hashes: a part's first pass or a round of its levels, with
// a byte a cell (tierd plan --cluster and the leader's cut know no
// remoteness yet), or a KidNotes unit over a range of the largest child.
func PartBytes(size, hashes, kidSize uint64) uint64 {
	parts := int((size + max(hashes, 1) - 1) / max(hashes, 1))
	return max(PartFirstPassBytes(size, hashes), PartRoundBytes(size, hashes*cellBytes), KidNotesBytes(kidSize, parts))
}

// PartRoundBytes estimates the peak memory of a part's later round
// (Part.Receive and Part.StepTo, Part.StartTies, or its records:
// Part.Solved and WriteSolvedDB), on such a worker: what it holds, the
// tier's set (size hashes) and the part's cells (cells bytes, with the
// tables beside them: PartCellBytes, or what the part reported: Part.Bytes),
// and a section of notes read and those made before they go to their
// files (partNotesBytes); and BaseBytes. A round reads no child tier.
func PartRoundBytes(size, cells uint64) uint64 {
	return BaseBytes + bitsetBytes(size) + cells + partNotesBytes
}

// partNotesBytes is what a round holds of notes beside the cells: a
// section read (readNotesBytes) and the notes its goroutines make for
// the other parts (flushNotes) with their encoding on the way to their
// files.
const partNotesBytes = readNotesBytes + 2*flushNotes*noteBytes

// readNotesBytes is a section of notes read (EachNotes: up to
// noteSection notes decoded, 8 MiB, its varints and frame).
const readNotesBytes = noteSection*noteBytes + 2<<20

// PartCellBytes estimates the cells of a part over hashes positions in a
// round at level (of ties, if ties): a byte a position, and two from the
// level on whose remoteness a byte's codes do not hold (the cells widen
// to 16 bits then, in place: Part never holds both layouts). A part whose
// child tiers' remoteness a byte does not hold is wide from its first
// pass: Part.Bytes says so after it.
func PartCellBytes(hashes uint64, level int, ties bool) uint64 {
	limit := layout8.rem
	if ties {
		limit = layout8.tieRem
	}
	if level+1 >= int(limit) {
		return 2 * hashes * cellBytes
	}
	return hashes * cellBytes
}

// CloseBytes estimates the peak memory of closing a loopy tier of size
// hashes whose child tiers have kids hashes (MergeTier, then CloseTier on
// workers goroutines) on such a worker: the tier's set and its frontier,
// and per goroutine a set of the positions it found and one over each
// child tier; then, writing the partial level files (stored),
// the set, the child sets and the largest file, in memory whole (up to
// 64 MiB) before it is committed; and BaseBytes.
func CloseBytes(size uint64, kids []uint64, workers int) uint64 {
	var children, largest uint64
	for _, k := range kids {
		children += bitsetBytes(k)
		largest = max(largest, k)
	}
	shares := uint64(max(workers, 1)) * children
	closing := 2*bitsetBytes(size) + uint64(max(workers, 1))*bitsetBytes(size) + shares
	writing := bitsetBytes(size) + shares + min(storedSpill, bitsetBytes(max(size, largest)))
	return BaseBytes + max(closing, writing)
}

// storedSpill is how much of a level file being written is held in
// memory before it goes to a temporary file (levelfile's spillBytes).
const storedSpill = 64 << 20

// LoopyTierBytes estimates the peak memory of solving a loopy tier whole
// (SolveTier) on such a worker: the tier's set (size hashes), cells and
// longest wins elsewhere, and each child tier solved (kids: their hash
// spaces and reachable counts), as tierd plan counts a step; and
// BaseBytes.
func LoopyTierBytes(size, count uint64, kids [][2]uint64) uint64 {
	n := BaseBytes + solvedCellBytes(size, count) + winsBytes(cellsOf(size, count))
	for _, k := range kids {
		n += solvedCellBytes(k[0], k[1])
	}
	return n
}

// solvedCellBytes is the memory of a solved tier of size hashes and count
// positions, or of a loopy tier being solved: its set and its cells.
func solvedCellBytes(size, count uint64) uint64 {
	return bitsetBytes(size) + cellsOf(size, count)*cellBytes
}

// cellsOf is how many cells a solved tier of size hashes and count
// positions holds: one a hash when dense, else one a position.
func cellsOf(size, count uint64) uint64 {
	if denseBy(size, count) {
		return size
	}
	return count
}
