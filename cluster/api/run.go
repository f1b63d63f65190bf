package api

import (
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"time"
)

// Member is a coordinator: its raft identity and where its HTTP API is.
type Member struct {
	ID       string `json:"id"`
	RaftAddr string `json:"raft_addr"`
	HTTPAddr string `json:"http_addr"`
}

// RunState is the state of a run.
type RunState string

// The states of a run.
const (
	Running RunState = "running"
	Done    RunState = "done"
	Failed  RunState = "failed"
)

// Settings are a run's choices. Only Symmetry and Level change its
// results.
type Settings struct {
	// A tier is cut into RangesPerThread ranges per worker thread the
	// leader knows when it cuts (so a lost or slow worker costs little),
	// but at most MaxRanges, and into ranges of at least MinRange
	// positions (below that a unit's overhead outweighs its work). The
	// results do not depend on the cut.
	RangesPerThread int    `json:"ranges_per_thread"`
	MaxRanges       int    `json:"max_ranges"`
	MinRange        uint64 `json:"min_range"`
	// ExpandRangesPerThread is how many expand units a tier is cut into
	// per worker thread, apart from its solve units (MaxRanges and
	// MinRange apply too): with 1, of equal sizes, else shrinking; 0 cuts
	// them as the solve units (runs from before it). An expand unit
	// writes a partial level file over each child tier's whole hash
	// space whatever its range, so more of them cost more bytes to move
	// and merge; a solve unit's records are as large as its range, and a
	// small last unit keeps the path to the next tier short.
	ExpandRangesPerThread int `json:"expand_ranges_per_thread,omitempty"`
	// Level is the gzip level of bitmaps in full level files (it changes
	// their bytes, as in tierd solve --level).
	Level int `json:"level"`
	// Symmetry keeps one canonical position per symmetry class, as tierd
	// solve --symmetry: workers and the leader's merges run on the
	// quotient game (quotient.Reduce).
	Symmetry bool `json:"symmetry,omitempty"`
	// LoopyRanges, above 1, solves each loopy tier in that many parts
	// (ranges of its hashes, plan.Cut) on different workers, in
	// lockstep by levels of remoteness (Parts); 0 or 1: a loopy tier is
	// one unit. The results do not depend on it.
	LoopyRanges int `json:"loopy_ranges,omitempty"`
	// CloseRanges is how many ranges of its hashes a loopy tier's closing
	// is cut into, each a unit on its own worker, in rounds (CloseRange;
	// at most plan.MaxCloseRanges): 1 is one unit (Close); 0 leaves it to
	// the cluster, one range per plan.CloseRangeHashes (one unit for a
	// tier below two of them). The results do not depend on it.
	CloseRanges int `json:"close_ranges,omitempty"`
}

// MaxLoopyRanges bounds Settings.LoopyRanges: every part may send notes
// to every other at each level.
const MaxLoopyRanges = 256

// DefaultSettings are a run's settings unless the submitter chose.
// MinRange: a unit costs the cluster 14-17 ms of CPU beyond its work
// (its grant and completion through raft, its outputs uploaded, copied
// and read back), about the work of 200,000 Connect Four positions; at
// 1<<20 positions, rather than 1<<16, Connect Four 5x5 runs in 103 units
// instead of 140 and the cluster uses 5-7% less CPU
// (docs/cluster-measurements.md).
var DefaultSettings = Settings{RangesPerThread: 2, ExpandRangesPerThread: 1, MaxRanges: 256, MinRange: 1 << 20, Level: 6}

// Kind is what a unit of work does.
type Kind string

// The kinds of units.
const (
	// Expand: reach.ExpandRange over a range of a loop-free tier; outputs
	// one partial level file per child tier that it reaches.
	Expand Kind = "expand"
	// Close: the whole of a loopy tier: reach.MergeTier of its partials
	// then reach.CloseTier; outputs the closed tier as a partial level
	// file of the tier itself, and partial level files of its children.
	Close Kind = "close"
	// CloseRange: a round of a range (Lo, Hi) of a loopy tier's closing
	// by ranges (Settings.CloseRanges): the range's set so far (Level,
	// none in the first round) and what comes to it (Partials: its
	// parents' partial level files in the first round, the notes the
	// other ranges sent in the last one), closed in the range by
	// reach.CloseRound; outputs the range's set (RoleCheckpoint), what it
	// found in other ranges (RoleNotes), both partial level files of the
	// tier, and partial level files of its children. The rounds go on
	// until one sends no notes.
	CloseRange Kind = "close-range"
	// SolveRange: solved.SolveRange over a range of a loop-free tier;
	// outputs a value database of the range's records.
	SolveRange Kind = "solve"
	// SolveTier: solver.SolveTier over the whole of a loopy tier; outputs
	// a value database of the tier's records.
	SolveTier Kind = "solve-tier"
	// KidNotes: a range of the records of a child tier (Unit.Child;
	// Lo, Hi: their ranks) of a loopy tier solved in parts, turned into
	// notes to the parts of their parents (loopy.ChildNotes), once for
	// every part; outputs a notes file a role (RoleHeld, RoleWon,
	// RoleTied) and part, for the parts' first passes and ties.
	KidNotes Kind = "kid-notes"
	// Part: a round of one part of a loopy tier solved in parts
	// (Settings.LoopyRanges): its first pass (loopy.NewPart and the
	// child tiers' notes the KidNotes units made), a level (Part.Step),
	// the start of ties (Part.StartTies) or, last, its records; outputs
	// notes for the other parts, checkpoints of the part, and at the end
	// a value database of its range's records (PartWork).
	Part Kind = "part"
	// FirstRange: the first pass of a sub-part (Lo, Hi) of a part of a
	// loopy tier solved in parts (Level.FirstParts): the part's first
	// pass in pieces, on as many workers (loopy.NewPart under the finer
	// cut, with the child tiers' notes the KidNotes units made for the
	// sub-part); outputs the sub-part's checkpoint, which the part's
	// first round gathers (loopy.GatherPart, PartStep.Gather).
	FirstRange Kind = "first-range"
)

// Phase names the two halves of a run, which own a tier's units.
type Phase string

// The phases.
const (
	PhaseReach Phase = "reach"
	PhaseSolve Phase = "solve"
	// PhaseParts owns the units of a loopy tier solved in parts: its
	// child tiers' ranges (KidNotes), then a unit per part for the round
	// in progress (Tier.Parts).
	PhaseParts Phase = "parts"
)

// UnitRef names a unit: its run, tier, phase and index.
type UnitRef struct {
	Run   string `json:"run"`
	Tier  uint64 `json:"tier"`
	Phase Phase  `json:"phase"`
	Index int    `json:"index"`
}

// Blob names an immutable file of the artifact store: its SHA-256
// (lower-case hex) and size.
type Blob struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Output is a blob a unit produced for a tier: a partial level file of
// that tier (Expand, Close) or the records of a range (SolveRange,
// SolveTier).
type Output struct {
	Tier uint64 `json:"tier"`
	Blob Blob   `json:"blob"`
	// Role says what an output of a Part unit is (Role*), and Part, for
	// notes, the part they are for.
	Role string `json:"role,omitempty"`
	Part int    `json:"part,omitempty"`
}

// The roles of the outputs of the units of a tier in parts: a KidNotes
// unit's (held, won, tied), a Part unit's (notes, checkpoint, records).
const (
	RoleHeld       = "held"       // child positions lost, tied or drawn: notes for part Output.Part's first pass, applied first
	RoleWon        = "won"        // child positions won: notes for its first pass, applied after every held file
	RoleTied       = "tied"       // child positions tied: notes for the part, read when ties start
	RoleNotes      = "notes"      // notes for part Output.Part, read at the next level
	RoleCheckpoint = "checkpoint" // the part's state after the round (loopy.Part.Checkpoint)
	RoleRecords    = "records"    // the value database of the part's records (the last round)
)

// Run is a run as GET /v1/runs/{id} shows it: a game variant taken
// through reachability and solving, tier by tier, with every unit of
// work. It is a copy, made for the answer: changing it changes nothing.
type Run struct {
	ID string `json:"id"`
	// Format is the version of the coordinators' rules that the run was
	// created under; a leader of another fails it (its Error says why).
	Format   int       `json:"format,omitempty"`
	Game     string    `json:"game"`
	Option   string    `json:"option"`
	Settings Settings  `json:"settings"`
	Created  time.Time `json:"created"`
	State    RunState  `json:"state"`
	Error    string    `json:"error,omitempty"`
	Finished time.Time `json:"finished,omitzero"`
	// Chance is set for a game with dice (tiergame.Chance): its tiers are
	// solved to probabilities. Exhaustive is set for a game whose every
	// position is reachable (tiergame.Exhaustive): its level files are
	// whole tiers, with no expansion.
	Chance     bool `json:"chance,omitempty"`
	Exhaustive bool `json:"exhaustive,omitempty"`
	// Tiers are in reachability order (parents first): the first is the
	// start tier.
	Tiers []*Tier                `json:"tiers"`
	Start *runfolder.StartRecord `json:"start,omitempty"`
	// RequestID is the submitter's idempotency key (SubmitRequest).
	RequestID string `json:"request_id,omitempty"`
	// LogBytes counts the raft log bytes of the run's commands.
	LogBytes uint64 `json:"log_bytes"`
	// Commands counts them.
	Commands uint64 `json:"commands"`
}

// Tier is a tier of a run and how far it has come.
type Tier struct {
	Tier     uint64   `json:"tier"`
	Name     string   `json:"name"`
	Size     uint64   `json:"size"`
	Loopy    bool     `json:"loopy,omitempty"`
	Parents  []uint64 `json:"parents,omitempty"`
	Children []uint64 `json:"children,omitempty"` // other than the tier itself

	// Reach holds the units that expand the tier into partial level files
	// of its children: ranges of its level file, or for a loopy tier the
	// one unit that also closes it. Nil until they can start.
	Reach []*Unit `json:"reach,omitempty"`
	// Expanded is set when every unit of Reach is done.
	Expanded bool `json:"expanded,omitempty"`
	// Level is the tier's merged set: first its count and ranges (the
	// tier is cut, and its units start from the partial level files),
	// then its full level file (written).
	Level *Level `json:"level,omitempty"`
	// Solve holds the units that solve the tier: ranges of its level
	// file, or one unit for a loopy tier. Nil until they can start.
	Solve []*Unit `json:"solve,omitempty"`
	// Parts is the progress of a loopy tier solved in parts.
	Parts *Parts `json:"parts,omitempty"`
	// DB is the value database, merged by the leader.
	DB *DB `json:"db,omitempty"`
}

// Parts is how far a loopy tier solved in parts has come: the phase and
// level its round runs, the phase's units (the child tiers' ranges, then
// one per part), each part's progress, and the notes exchanged so far.
type Parts struct {
	Phase string `json:"phase"` // PartsKids, PartsFirst, ...
	// Level is the level the round runs (-1: the children's notes, a
	// first pass, the start of ties, the records).
	Level int             `json:"level"`
	Round int             `json:"round"`
	Units []*Unit         `json:"units"`
	Parts []*PartProgress `json:"parts"`
	// Subs are the sub-parts' first passes while they run (phase
	// PartsSubs): the child tiers' held and won notes for each.
	Subs []PartStep `json:"subs,omitempty"`
	// KidRem and KidTie are the child tiers' longest remoteness and
	// longest tie (-1: none), as the KidNotes units reported them.
	KidRem int `json:"kid_rem,omitempty"`
	KidTie int `json:"kid_tie,omitempty"`
	// KidNotes and KidNotesBytes count the notes the KidNotes units made
	// of the child tiers' records for the parts, and their files' bytes.
	KidNotes      uint64 `json:"kid_notes,omitempty"`
	KidNotesBytes uint64 `json:"kid_notes_bytes,omitempty"`
	// Notes and NotesBytes count the notes the parts sent each other, and
	// their files' bytes; Checkpoints the bytes of the parts'
	// checkpoints; Bytes is the largest memory a part reported holding.
	Notes       uint64 `json:"notes,omitempty"`
	NotesBytes  uint64 `json:"notes_bytes,omitempty"`
	Checkpoints uint64 `json:"checkpoint_bytes,omitempty"`
	Bytes       uint64 `json:"bytes,omitempty"`
	// Moves counts the rounds a part ran on another worker than its
	// round before (its worker lost, paused or busy): each restored the
	// part from its checkpoint.
	Moves int `json:"moves,omitempty"`
}

// PartProgress is one part's progress: its last checkpoint, the child
// tiers' tied notes for it, the rounds since the checkpoint, its next
// level, and the worker that ran its last round. The coordinators'
// replicated state holds it as it is (its raft bytes are these).
type PartProgress struct {
	// Checkpoint is the part after round CheckpointRound; nil before its
	// first pass is done.
	Checkpoint      *Blob `json:"checkpoint,omitempty"`
	CheckpointRound int   `json:"checkpoint_round,omitempty"`
	// Tied are the child tiers' tied notes for the part (files of the
	// KidNotes units), read when ties start.
	Tied []Blob `json:"tied,omitempty"`
	// Steps are the rounds since the checkpoint, the last one the round
	// in progress; the first pass's (round 0) holds the KidNotes units'
	// held and won files for the part.
	Steps []PartStep `json:"steps"`
	// Next is the part's next level, as its last round reported.
	Next int `json:"next"`
	// Worker did its last round: the leader grants it the next one if it
	// is present (its memory holds the part).
	Worker string `json:"worker,omitempty"`
	// Token is the lease token of its last round: a report of that round
	// sent again (its answer lost) is known as accepted.
	Token uint64 `json:"token,omitempty"`
}

// The phases of a loopy tier solved in parts.
const (
	PartsKids    = "kids"    // the child tiers' records, a range a unit, into notes to the parts
	PartsSubs    = "subs"    // the first passes of the parts' sub-parts (Level.FirstParts), a unit each
	PartsFirst   = "first"   // each part's first pass: its moves and its child tiers' notes (or its sub-parts' gathered)
	PartsWins    = "wins"    // levels of wins and losses
	PartsTies    = "ties"    // levels of ties
	PartsRecords = "records" // each part writes its records
	PartsDone    = "done"    // the records are the tier's solve units
)

// Phase says how far the tier has come, for people: waiting, closing,
// expanding, merging, reached, solving, writing, solved.
func (t *Tier) Phase() string {
	switch {
	case t.DB != nil:
		return "solved"
	case t.Solve != nil && allDone(t.Solve):
		return "writing"
	case t.Solve != nil:
		return "solving"
	case t.Parts != nil:
		return "solving " + t.Parts.Phase
	case t.Expanded && t.Level != nil && t.Level.Blob.SHA256 != "":
		return "reached"
	case t.Expanded || (t.Loopy && allDone(t.Reach)):
		return "merging"
	case t.Loopy && t.Reach != nil:
		return "closing"
	case t.Reach != nil:
		return "expanding"
	}
	return "waiting"
}

// allDone reports whether units were created and every one is done.
func allDone(us []*Unit) bool {
	return us != nil && CountDone(us) == len(us)
}

// CountDone counts the units done.
func CountDone(us []*Unit) int {
	n := 0
	for _, u := range us {
		if u.Done != nil {
			n++
		}
	}
	return n
}

// Level is a tier's merged set: how many positions it holds and how the
// units cut it, known as soon as the leader has merged the partial level
// files, and the full level file (Blob, Type), set once it is written and
// durably stored. The coordinators' replicated state holds it as it is
// (its raft bytes are these).
type Level struct {
	Blob      Blob         `json:"blob"` // empty until written
	Reachable uint64       `json:"reachable"`
	Type      int          `json:"type"`
	Ranges    []plan.Range `json:"ranges"` // how the tier's units cut it
	// Expand, if set, is how its expand units cut it instead.
	Expand []plan.Range `json:"expand,omitempty"`
	// Parts, if set, is where a loopy tier solved in parts is cut
	// (plan.Cut.Bounds), by the leader when it merges the tier.
	Parts []uint64 `json:"parts,omitempty"`
	// FirstParts, if set, refines Parts (plan.Cut.Refine): the parts'
	// first passes are made a sub-part a unit (FirstRange), on as many
	// workers as there are sub-parts, then gathered.
	FirstParts []uint64 `json:"first_parts,omitempty"`
}

// ExpandRanges is how the tier's expand units cut it.
func (lv *Level) ExpandRanges() []plan.Range {
	if lv.Expand != nil {
		return lv.Expand
	}
	return lv.Ranges
}

// DB is a tier's merged value database, and for a chance game with planes
// (tiergame.Planes) its database of planes. The coordinators' replicated
// state holds it as it is (its raft bytes are these).
type DB struct {
	Blob   Blob   `json:"blob"`
	Planes *Blob  `json:"planes,omitempty"`
	Win    uint64 `json:"win"`
	Lose   uint64 `json:"lose"`
	Tie    uint64 `json:"tie"`
	Draw   uint64 `json:"draw"`
}

// Unit is a unit of work: a kind and a range of a tier.
type Unit struct {
	Kind Kind   `json:"kind"`
	Lo   uint64 `json:"lo"`
	Hi   uint64 `json:"hi"`
	// Child is the child tier a KidNotes unit reads (Lo, Hi: ranks of
	// its records).
	Child uint64 `json:"child,omitempty"`
	// Lease is the worker holding the unit, if any.
	Lease *Lease `json:"lease,omitempty"`
	// Done is the accepted result.
	Done *Completion `json:"done,omitempty"`
	// Failures counts the attempts that failed.
	Failures int `json:"failures,omitempty"`
}

// Lease gives a unit to a worker. Its token is the raft index of the
// command that granted it: it fences completions, so only the holder of
// the current lease can complete the unit.
type Lease struct {
	Worker string `json:"worker"`
	Token  uint64 `json:"token"`
}

// Completion is a unit's accepted result. The coordinators' replicated
// state holds it as it is (its raft bytes are these).
type Completion struct {
	Worker    string   `json:"worker"`
	Token     uint64   `json:"token"`
	Outputs   []Output `json:"outputs"`
	Positions uint64   `json:"positions"`
	Seconds   float64  `json:"seconds"`
	// Part is a Part or KidNotes unit's report.
	Part *PartResult `json:"part,omitempty"`
}

// tier returns tier t of the run, or nil.
func (r *Run) tier(t uint64) *Tier {
	for _, x := range r.Tiers {
		if x.Tier == t {
			return x
		}
	}
	return nil
}
