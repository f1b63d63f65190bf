// Package plan sizes and cuts a run's work before it is done: the ranges
// and parts a tier is cut into, and the memory each step and each
// cluster unit holds, which tierd plan, the run and the coordinator's
// grants all count the same way.
package plan

import (
	"github.com/tiersolve/tiersolve/internal/memsize"
)

// DefaultMemory is 80% of the machine's memory (MemTotal in /proc/meminfo),
// or 4 GiB where that cannot be read.
func DefaultMemory() uint64 { return memsize.DefaultBudget() }

// writerSlack is what writing a level file may hold besides the set: up to
// four candidates in memory (64 MiB each before they spill to disk).
const writerSlack = 256 << 20

// BitsetBytes is what a plan counts for a set over n positions: its
// words and a 64th. A ranked set holds a quarter more than its words
// (bitarray.RankedBytes, which a worker's cache counts); the plans count
// less and count the sets on the heap twice (solveSteps), which together
// came within 10% of every peak measured (K+R+N v K+A+A+B+B 2.7% under,
// K+R+N+A and K+R+N+B 9.3% and 9.7% over, Quixo 4x4 6-8% under): with the
// exact size the two largest plans were 14% over, since a step whose
// cells are outside the heap leaves the collector little garbage.
func BitsetBytes(n uint64) uint64 { return n/8 + n/8/64 + 64 }

// WriterBytes is what writing the level file of a tier of size hashes
// may hold besides its set: its four candidates, each in memory up to
// 64 MiB (then it spills to disk), and compressed: about a bitmap's size
// at most for the smallest of them, which is all that matters once a
// candidate has lost. Level files of the sparse or structured tiers games
// have are far smaller.
func WriterBytes(size uint64) uint64 { return min(writerSlack, 4*min(64<<20, BitsetBytes(size))) }

// BaseBytes is what a run holds whatever its game, counted in every
// step's estimate: the program, the Go runtime, goroutine stacks,
// compression tables (measured: 27-35 MiB for tic-tac-toe, Quixo 3x3 and
// Connect Four 4x4 with 2 workers).
const BaseBytes = 32 << 20

// BytesString prints a byte count in GiB, MiB or bytes.
func BytesString(n uint64) string { return memsize.Format(n) }

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
	solve := m / (2*(1.0/8*65/64) + RecordBytes + 2*CellBytes)
	return uint64(min(reach, solve))
}

// ChildChunk is how many records of a child tier a KidNotes unit (the
// cluster's, over a range of the child: ChildRanges) turns into notes at
// a time (solved.Reader.Range, ChildNotes): a chunk's records and their
// notes to every part are what it holds of the child beside the child's
// set: about 8 MiB in the estimate (KidNotesBytes).
const ChildChunk = 1 << 16

// NoteBytes is a note's memory, and notesPerRecord a bound on the notes
// a child position gives (its parents in the tier, Connect Four's and
// xiangqi's un-moves and un-captures).
const (
	NoteBytes      = 8
	notesPerRecord = 8
)

// notesFileBytes is what a notes file being written holds beside its
// notes: its buffer (bufio's 4 KiB) and its open file.
const notesFileBytes = 8 << 10

// PartFirstPassBytes estimates the peak memory of a part's first pass
// (NewPart from the part's own moves, then Part.Apply of the notes files
// of its child tiers a section at a time, Part.EndFirstPass) of a loopy
// tier solved in parts on a worker whose Go heap is held to its budget
// (debug.SetMemoryLimit, as tierd worker --memory does): the window of
// the tier's set it reads (window hashes: its part's), the part's cells
// over its hashes with the tables beside them (PartHeldBytes) and a
// section of notes read (readNotesBytes); and BaseBytes. It reads no
// child tier: KidNotes units made its notes (KidNotesBytes).
func PartFirstPassBytes(window, hashes uint64) uint64 {
	return BaseBytes + BitsetBytes(window) + PartHeldBytes(hashes) + readNotesBytes
}

// PartHeldBytes estimates what a part over hashes positions holds: its
// cells, a byte each, and the tables beside them (PartSideBytes).
func PartHeldBytes(hashes uint64) uint64 { return hashes*CellBytes + PartSideBytes(hashes) }

// PartSideBytes estimates the tables beside the cells of a part over
// hashes positions, of the positions whose count of children does not
// fit their cell and of those that can lose with a win elsewhere
// (loopy.Part.Bytes): a quarter of a byte a hash, as measured after the
// first passes of K+R+N v K+R+A's top tier in 3 parts (34 MiB beside 146
// MiB of cells). Uncounted, parts cut to fill a budget overran it by
// their tables.
func PartSideBytes(hashes uint64) uint64 { return hashes / 4 }

// KidNotesBytes estimates the peak memory of turning a range of a child
// tier of kidSize hashes into notes to the parts of a loopy tier in
// parts parts (a cluster's KidNotes unit: solved.Open, solved.Reader.Range
// and ChildNotes a chunk at a time, the notes written to a file per role
// and part as they are made), on such a worker: the child's set (its
// database's reader), a chunk of its records (ChildChunk) with their
// notes, the notes files' encoding of a chunk's notes (their varints and
// zstd frames, a note's bytes each at most) and a buffer per file (three
// roles a part); and BaseBytes. It holds nothing of the tier itself.
func KidNotesBytes(kidSize uint64, parts int) uint64 {
	chunk := min(ChildChunk, kidSize) * (RecordBytes + 2*notesPerRecord*NoteBytes)
	return BaseBytes + BitsetBytes(kidSize) + chunk + 3*uint64(max(parts, 1))*notesFileBytes
}

// PartBytes estimates the peak memory of the units of a loopy tier of
// size hashes solved in parts of hashes each, whose largest child tier
// has kidSize hashes: a part's first pass or a round of its levels, with
// a byte a cell (tierd plan --cluster and the leader's cut know no
// remoteness yet), each over its part's window of the tier's set, or a
// KidNotes unit over a range of the largest child.
func PartBytes(size, hashes, kidSize uint64) uint64 {
	parts := int((size + max(hashes, 1) - 1) / max(hashes, 1))
	return max(PartFirstPassBytes(hashes, hashes), PartRoundBytes(hashes, PartHeldBytes(hashes)), KidNotesBytes(kidSize, parts))
}

// PartRoundBytes estimates the peak memory of a part's later round
// (Part.Receive and Part.StepTo, Part.StartTies, or its records:
// Part.Solved and solved.WriteTierDB), on such a worker: what it holds,
// its window of the tier's set (window hashes) and the part's cells
// (held bytes, with the tables beside them: PartCellBytes and
// PartHeldBytes, or what the part reported: Part.Bytes), and a section
// of notes read and those made before they go to their files
// (partNotesBytes); and BaseBytes. A round reads no child tier.
func PartRoundBytes(window, held uint64) uint64 {
	return BaseBytes + BitsetBytes(window) + held + partNotesBytes
}

// partNotesBytes is what a round holds of notes beside the cells: a
// section read (readNotesBytes) and the notes its goroutines make for
// the other parts (FlushNotes) with their encoding on the way to their
// files.
const partNotesBytes = readNotesBytes + 2*FlushNotes*NoteBytes

// readNotesBytes is a section of notes read (EachNotes: up to
// noteSection notes decoded, 8 MiB, its varints and frame).
const readNotesBytes = NoteSection*NoteBytes + 2<<20

// PartCellBytes estimates the cells of a part over hashes positions in a
// round at level (of ties, if ties): a byte a position, and two from the
// level on whose remoteness a byte's codes do not hold (the cells widen
// to 16 bits then, in place: Part never holds both layouts). A part whose
// child tiers' remoteness a byte does not hold is wide from its first
// pass: Part.Bytes says so after it.
func PartCellBytes(hashes uint64, level int, ties bool) uint64 {
	limit := NarrowRem
	if ties {
		limit = NarrowTieRem
	}
	if level+1 >= int(limit) {
		return 2 * hashes * CellBytes
	}
	return hashes * CellBytes
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
		children += BitsetBytes(k)
		largest = max(largest, k)
	}
	shares := uint64(max(workers, 1)) * children
	closing := 2*BitsetBytes(size) + uint64(max(workers, 1))*BitsetBytes(size) + shares
	writing := BitsetBytes(size) + shares + min(storedSpill, BitsetBytes(max(size, largest)))
	return BaseBytes + max(closing, writing)
}

// storedSpill is how much of a level file being written is held in
// memory before it goes to a temporary file (levelfile's spillBytes).
const storedSpill = 64 << 20

// LoopyTierBytes estimates the peak memory of solving a loopy tier whole
// (SolveTier) on such a worker: the tier's set (size hashes), cells and
// longest wins elsewhere, each child tier solved (kids: their hash
// spaces and reachable counts), as tierd plan counts a step, and the
// tier's records (RecordBytes a position), which the worker makes from
// the cells before it frees them, and keeps for the tier's parents (they
// held a worker 30 MiB over its budget when this left them out: K+R+N v
// K+A+B, 24 million positions); and BaseBytes.
func LoopyTierBytes(size, count uint64, kids [][2]uint64) uint64 {
	n := BaseBytes + SolvedCellBytes(size, count) + WinsBytes(CellsOf(size, count)) + RecordBytes*count
	for _, k := range kids {
		n += SolvedCellBytes(k[0], k[1])
	}
	return n
}

// SolvedCellBytes is the memory of a solved tier of size hashes and count
// positions, or of a loopy tier being solved: its set and its cells.
func SolvedCellBytes(size, count uint64) uint64 {
	return BitsetBytes(size) + CellsOf(size, count)*CellBytes
}

// CellsOf is how many cells a solved tier of size hashes and count
// positions holds: one a hash when dense, else one a position.
func CellsOf(size, count uint64) uint64 {
	if Dense(size, count) {
		return size
	}
	return count
}

// LoopyParts is how many parts a loopy tier of size hashes and count
// positions, whose child tiers are kids (hash spaces, counts), is solved
// in on workers of memory bytes: 0 if it fits whole (LoopyTierBytes),
// else the fewest whose units fit (PartBytes), at most most; fits is
// false if even most parts do not (or a range of the largest child
// tier's notes does not: its set is held whole).
func LoopyParts(size, count uint64, kids [][2]uint64, memory uint64, most int) (parts int, fits bool) {
	if LoopyTierBytes(size, count, kids) <= memory {
		return 0, true
	}
	var kid uint64
	for _, k := range kids {
		kid = max(kid, k[0])
	}
	for p := 2; p <= most; p++ {
		if PartBytes(size, size/uint64(p)+1, kid) <= memory {
			return p, true
		}
	}
	return most, false
}

// CutBudget is the budget a loopy tier's parts are cut for on workers
// whose largest budget is budget: less a sixteenth, at least 8 MiB (at
// most half), for the growth of the workers' fixed parts. A worker's
// budget for units falls as its program runs code and goroutines it had
// not (its pages, stacks, the heap's metadata): by 5.2 MiB on workers of
// 135 MiB in a run of K+R+N v K+A+A+B+B at a quarter, whose top tier, cut
// to fit 128.7 MiB, then waited for ever for a part of 123.9 MiB.
func CutBudget(budget uint64) uint64 {
	return budget - min(max(budget/16, 8<<20), budget/2)
}

// WinsBytes is the memory of the nibbles of n positions.
func WinsBytes(n uint64) uint64 { return (n + 15) / 16 * 8 }

// FlushNotes is how many notes for other parts a part's level holds, in
// all its goroutines, before they go to its sink (Part.StepTo): 2 MiB.
// More were measured to hold a small worker over its budget (8 MiB: K+R+N
// v K+A+B in 4 parts at 64 MiB); fewer cut the files into more sections,
// each sorted on its own, which compress less.
const FlushNotes = 1 << 18

// denseLimit is the hash space up to which a tier's cells are indexed by
// position whatever its reachable count.
const denseLimit = 1 << 24

// Dense reports whether the cells of a tier with hash space size and n
// reachable positions are indexed by position (see worthDense).
func Dense(size, n uint64) bool { return size <= denseLimit || size/2 <= n }

// DenseWide is Dense for a loopy tier solved in 16-bit cells from the
// start (its children's remoteness outgrows a byte: the tiers above
// those xiangqi's rules judge, whose rule records reach 4096 and more):
// indexed by rank unless a quarter of the cells or less would be spent
// on hashes that are no position. On K+R+N v K+R (57% of its hashes
// reachable) by rank, its 16-bit cells take 120 MB rather than 210.
func DenseWide(size, n uint64) bool { return size <= denseLimit || size/4*3 <= n }

// RecordBytes is the memory per position of the records a loop-free
// tier's solving makes (by rank).
const RecordBytes = 2

// ProbBytes is the memory per position of a chance tier's values, by
// rank (and by position for most tiers: see NewChanceTier).
const ProbBytes = 8

// CellBytes is the memory of a cell: a position's state while a loopy
// tier is solved, and its record once solved (layout8; a tier whose
// remoteness outgrows a byte takes two).
const CellBytes = 1

// NarrowRem is how many remoteness values (0 to NarrowRem-1) of wins and
// losses the cells of a byte hold, and NarrowTieRem of ties: the codes of
// a byte left beside its two fixed ones and the wins' and losses'.
// Remoteness up to 92 is the longest in every bundled game but the
// largest xiangqi families.
const (
	NarrowRem    = 93
	NarrowTieRem = 256 - 2 - 2*NarrowRem
)

// NoteSection is the most notes a section of a notes file holds: what a
// reader decodes at a time.
const NoteSection = 1 << 20
