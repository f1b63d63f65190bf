package solver

import (
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
)

// A cluster plan says how a run spreads over workers of one memory
// budget: each loopy tier whole on one worker when its step fits the
// budget, else in the fewest parts whose units fit (LoopyParts: the
// parts' rounds and the child tiers' notes, plan.PartBytes), and
// what that costs in notes exchanged and time. Its rates are measured
// (cluster/README.md): xiangqi's 1.13 million hashes a core-second for
// tierd solve, and on the tiers of xiangqi K+R+N v K+A+A+B+B in 4 parts
// (3.5 to 24 million positions each), 0.82 to 0.85 notes a position to
// parents in other parts (1.13 times (P-1)/P for P parts), 0.29 to 0.47
// bytes a note in the notes files, and 32 to 48 rounds a tier; in parts
// on 4 one-thread workers, at a third or a quarter of tierd solve's
// memory each, the cluster's processes took 1.13 to 1.35 times tierd
// solve's CPU in the same bench run (bench groups
// cluster/parts/xiangqi-{KRNvKRA,KRNvKAABB}, 2026-11-30): the children's
// notes (KidNotes units), the first passes, checkpoints, notes files and
// the coordinators. A round's grants, completions and transfers are a
// guess.
const (
	planHashRate      = 1.13e6 // hashes a core-second
	planNotesPerPos   = 1.13
	planNoteFileBytes = 0.45
	planRoundSeconds  = 0.25
	planLevelsPerTier = 45
	// planPartsRounds are the rounds of a tier in parts beside its
	// levels: its children's notes (KidNotes units) and its first pass.
	planPartsRounds = 2
	// planPartsCPU is the CPU of a tier in parts against solving it
	// whole.
	planPartsCPU        = 1.3
	planMostLoopyRanges = 256
	// planCloseRate is the positions a thread-second of a loopy tier's
	// closing (reach.CloseTier, one unit on one worker in its reachability):
	// the top tier of xiangqi K+R+N v K+R+A, 269.8 million positions in
	// 693 s on one thread (2026-11-28).
	planCloseRate = 0.39e6
)

// ClusterTier is one tier of a cluster plan.
type ClusterTier struct {
	Tier   tiergame.Tier
	Name   string
	Loopy  bool
	Hashes uint64
	// Parts is how many parts a loopy tier is solved in (0: whole, one
	// unit); Bytes the memory of its largest unit on a worker, Fits
	// whether that is within the budget.
	Parts int
	Bytes uint64
	Fits  bool
	// NotesBytes is the estimated bytes of notes its parts exchange, in
	// all, and NotesPerLevel over planLevelsPerTier levels.
	NotesBytes, NotesPerLevel uint64
	// Seconds is the estimated time of its solving on the cluster.
	Seconds float64
	// CloseSeconds is the estimated time of a loopy tier's closing in
	// its reachability, before it is solved: one unit on one worker of
	// threads threads, or by CloseRanges ranges (plan.CloseRangeCount,
	// above 1) on as many workers as there are, however many parts it is
	// solved in. Both are 0 for a game that is exhaustive
	// (tiergame.Exhaustive), whose tiers are not closed.
	CloseSeconds float64
	CloseRanges  int
}

// ClusterPlan plans the run's solving on workers machines of threads
// threads and memory bytes each, tier by tier in solving order.
func (r *Run) ClusterPlan(workers, threads int, memory uint64) []ClusterTier {
	workers, threads = max(workers, 1), max(threads, 1)
	var out []ClusterTier
	for _, t := range r.Graph.SolveOrder() {
		size, count := r.Game.TierSize(t), r.count(t)
		ct := ClusterTier{Tier: t, Name: r.Game.TierName(t), Loopy: r.Graph.Loopy[t], Hashes: size, Fits: true}
		cores := float64(workers * threads) // loop-free tiers are cut into ranges for every thread
		if ct.Loopy {
			var kids [][2]uint64
			for _, c := range r.Graph.Children[t] {
				kids = append(kids, [2]uint64{r.Game.TierSize(c), r.count(c)})
			}
			ct.Parts, ct.Fits = plan.LoopyParts(size, count, kids, memory, planMostLoopyRanges)
			if j, ok := quotient.Base(r.Game).(tiergame.Judge); ok && j.Judges(t) {
				// The game's rules of play read the whole tier (the
				// cluster never cuts such a tier: coordinator's cutParts).
				ct.Parts = 0
				ct.Fits = plan.LoopyTierBytes(size, count, kids) <= memory
			}
			if e, ok := r.Game.(tiergame.Exhaustive); !ok || !e.Exhaustive() {
				// An exhaustive game's tiers are every legal hash: not closed.
				ct.CloseRanges = len(plan.CloseRanges(size, plan.CloseRangeCount(size, 0)))
				ct.CloseSeconds = float64(count) / (planCloseRate * float64(threads)) / float64(min(ct.CloseRanges, workers))
			}
			cores = float64(threads)
			if ct.Parts == 0 {
				ct.Bytes = plan.LoopyTierBytes(size, count, kids)
			} else {
				var kid uint64
				for _, k := range kids {
					kid = max(kid, k[0])
				}
				ct.Bytes = plan.PartBytes(size, size/uint64(ct.Parts)+1, kid)
				p := float64(ct.Parts)
				notes := planNotesPerPos * float64(count) * (p - 1) / p
				ct.NotesBytes = uint64(notes * planNoteFileBytes)
				ct.NotesPerLevel = ct.NotesBytes / planLevelsPerTier
				// The parts' extra CPU, as fewer cores at tierd solve's rate.
				cores = float64(min(ct.Parts, workers)*threads) / planPartsCPU
				ct.Seconds = (planLevelsPerTier + planPartsRounds) * planRoundSeconds
			}
		} else {
			ct.Bytes = plan.BaseBytes + r.solveBytes(t, false)
			ct.Fits = ct.Bytes <= memory
		}
		ct.Seconds += float64(size) / (planHashRate * cores)
		out = append(out, ct)
	}
	return out
}
