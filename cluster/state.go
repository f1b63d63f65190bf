package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/solver"
)

// State is everything the coordinators replicate: small metadata only.
// Level files, value databases and partial results live in the blob store
// and are named here by their SHA-256. State changes only through the
// commands of fsm.go, applied in raft log order, so every coordinator holds
// the same State.
type State struct {
	Members []Member `json:"members"`
	Runs    []*Run   `json:"runs"` // in the order they were submitted
}

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

// Run is one solving run: a game variant taken through reachability and
// solving, tier by tier.
type Run struct {
	ID       string    `json:"id"`
	Game     string    `json:"game"`
	Option   string    `json:"option"`
	Settings Settings  `json:"settings"`
	Created  time.Time `json:"created"`
	State    RunState  `json:"state"`
	Error    string    `json:"error,omitempty"`
	Finished time.Time `json:"finished,omitzero"`
	// Chance is set for a game with dice (tiergame.Chance): its tiers are
	// solved to probabilities (solver.SolveChanceRange). Exhaustive is
	// set for a game whose every position is reachable
	// (tiergame.Exhaustive): its level files are whole tiers
	// (solver.FullTier), with no expansion.
	Chance     bool `json:"chance,omitempty"`
	Exhaustive bool `json:"exhaustive,omitempty"`
	// Tiers are in reachability order (parents first): the first is the
	// start tier.
	Tiers []*Tier             `json:"tiers"`
	Start *solver.StartRecord `json:"start,omitempty"`
	// RequestID is the submitter's idempotency key (SubmitRequest).
	RequestID string `json:"request_id,omitempty"`
	// LogBytes counts the raft log bytes of the run's commands.
	LogBytes uint64 `json:"log_bytes"`
	// Commands counts them.
	Commands uint64 `json:"commands"`
}

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
	// quotient game (solver.Reduce).
	Symmetry bool `json:"symmetry,omitempty"`
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
	// DB is the value database, merged by the leader.
	DB *DB `json:"db,omitempty"`
}

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
	case t.Expanded && t.written():
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

// Level is a tier's merged set: how many positions it holds and how the
// units cut it, known as soon as the leader has merged the partial level
// files, and the full level file (Blob, Type), set once it is written and
// on a majority of the coordinators.
type Level struct {
	Blob      Blob           `json:"blob"` // empty until written
	Reachable uint64         `json:"reachable"`
	Type      int            `json:"type"`
	Ranges    []solver.Range `json:"ranges"` // how the tier's units cut it
	// Expand, if set, is how its expand units cut it instead.
	Expand []solver.Range `json:"expand,omitempty"`
}

// expandRanges is how the tier's expand units cut it.
func (lv *Level) expandRanges() []solver.Range {
	if lv.Expand != nil {
		return lv.Expand
	}
	return lv.Ranges
}

// DB is a tier's merged value database, and for a chance game with planes
// (tiergame.Planes) its database of planes.
type DB struct {
	Blob   Blob   `json:"blob"`
	Planes *Blob  `json:"planes,omitempty"`
	Win    uint64 `json:"win"`
	Lose   uint64 `json:"lose"`
	Tie    uint64 `json:"tie"`
	Draw   uint64 `json:"draw"`
}

// Blob names an immutable file of the blob store.
type Blob struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Kind is what a unit of work does.
type Kind string

// The kinds of units.
const (
	// Expand: solver.ExpandRange over a range of a loop-free tier; outputs
	// one partial level file per child tier that it reaches.
	Expand Kind = "expand"
	// Close: the whole of a loopy tier: solver.MergeTier of its partials
	// then solver.CloseTier; outputs the closed tier as a partial level
	// file of the tier itself, and partial level files of its children.
	Close Kind = "close"
	// SolveRange: solver.SolveRange over a range of a loop-free tier;
	// outputs a value database of the range's records.
	SolveRange Kind = "solve"
	// SolveTier: solver.SolveTier over the whole of a loopy tier; outputs
	// a value database of the tier's records.
	SolveTier Kind = "solve-tier"
)

// Unit is a unit of work: a kind and a range of a tier.
type Unit struct {
	Kind Kind   `json:"kind"`
	Lo   uint64 `json:"lo"`
	Hi   uint64 `json:"hi"`
	// Lease is the worker holding the unit, if any.
	Lease *Lease `json:"lease,omitempty"`
	// Done is the accepted result.
	Done *Completion `json:"done,omitempty"`
	// Failures counts the attempts that failed.
	Failures int `json:"failures,omitempty"`
}

// Lease gives a unit to a worker. Its token is the raft index of the
// command that granted it: it fences completions, so only the holder of
// the current lease can complete the unit. Deadlines are not replicated:
// each leader keeps its own (see leaseClock).
type Lease struct {
	Worker string `json:"worker"`
	Token  uint64 `json:"token"`
}

// Completion is a unit's accepted result.
type Completion struct {
	Worker    string   `json:"worker"`
	Token     uint64   `json:"token"`
	Outputs   []Output `json:"outputs"`
	Positions uint64   `json:"positions"`
	Seconds   float64  `json:"seconds"`
}

// Output is a blob a unit produced for a tier: a partial level file of
// that tier (Expand, Close) or the records of a range (SolveRange,
// SolveTier).
type Output struct {
	Tier uint64 `json:"tier"`
	Blob Blob   `json:"blob"`
}

// Phase names the two halves of a run, which own a tier's units.
type Phase string

// The phases.
const (
	PhaseReach Phase = "reach"
	PhaseSolve Phase = "solve"
)

// UnitRef names a unit: its run, tier, phase and index.
type UnitRef struct {
	Run   string `json:"run"`
	Tier  uint64 `json:"tier"`
	Phase Phase  `json:"phase"`
	Index int    `json:"index"`
}

// written reports whether the tier's full level file is written.
func (t *Tier) written() bool { return t.Level != nil && t.Level.Blob.SHA256 != "" }

// check refuses a new run whose tiers are not a graph of its own tiers.
func (r *Run) check() error {
	if r == nil || len(r.Tiers) == 0 {
		return errors.New("cluster: a run needs tiers")
	}
	known := map[uint64]bool{}
	for _, t := range r.Tiers {
		if t == nil || known[t.Tier] {
			return errors.New("cluster: a run's tiers must be distinct")
		}
		known[t.Tier] = true
	}
	for _, t := range r.Tiers {
		for _, x := range append(slices.Clone(t.Parents), t.Children...) {
			if !known[x] {
				return fmt.Errorf("cluster: tier %d refers to tier %d, which the run does not have", t.Tier, x)
			}
		}
		if t.Reach != nil || t.Solve != nil || t.Level != nil || t.DB != nil || t.Expanded {
			return fmt.Errorf("cluster: tier %d of a new run has progress", t.Tier)
		}
	}
	return nil
}

// run returns the run with the given id, or nil.
func (s *State) run(id string) *Run {
	for _, r := range s.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
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

// unit returns the unit ref names, or nil.
func (s *State) unit(ref UnitRef) (*Run, *Tier, *Unit) {
	r := s.run(ref.Run)
	if r == nil {
		return nil, nil, nil
	}
	t := r.tier(ref.Tier)
	if t == nil {
		return r, nil, nil
	}
	us := t.Reach
	if ref.Phase == PhaseSolve {
		us = t.Solve
	}
	if ref.Index < 0 || ref.Index >= len(us) {
		return r, t, nil
	}
	return r, t, us[ref.Index]
}

// allDone reports whether units were created and every one is done.
func allDone(us []*Unit) bool {
	if us == nil {
		return false
	}
	for _, u := range us {
		if u.Done == nil {
			return false
		}
	}
	return true
}

// countDone counts the units done.
func countDone(us []*Unit) int {
	n := 0
	for _, u := range us {
		if u.Done != nil {
			n++
		}
	}
	return n
}

// parentsExpanded reports whether every parent of t has been expanded, so
// all the partial level files of t exist.
func (r *Run) parentsExpanded(t *Tier) bool {
	for _, p := range t.Parents {
		if !r.tier(p).Expanded {
			return false
		}
	}
	return true
}

// childrenSolved reports whether every child tier of t has its records:
// its solve units are done. Its value database need not be written yet: a
// parent's units read the units' records until it is, so the leader's
// merge is not on the way from one tier to the next.
func (r *Run) childrenSolved(t *Tier) bool {
	for _, c := range t.Children {
		if !allDone(r.tier(c).Solve) {
			return false
		}
	}
	return true
}

// readyFor reports whether the solve units of t may be leased to worker
// ("" for any worker): once its child tiers are solved, or,
// provisionally, while the only units of theirs not done are range units
// leased to this worker. Its results are the same whoever computes them,
// and the worker has them in memory, so it need not wait for them to be
// recorded: it starts the next tier at once, and its completion is
// accepted once theirs are (completable). Not for games with chance,
// whose results the worker does not solve in place.
func (r *Run) readyFor(t *Tier, worker string) bool {
	for _, c := range t.Children {
		ct := r.tier(c)
		if ct.Solve == nil {
			return false
		}
		for _, u := range ct.Solve {
			if u.Done != nil {
				continue
			}
			if worker == "" || r.Chance || u.Kind != SolveRange || u.Lease == nil || u.Lease.Worker != worker {
				return false
			}
		}
	}
	return true
}

// childUnitsIn reports whether every unit of t's child tiers not done
// yet is leased with one of tokens: units a worker says it holds in
// memory. The state says which worker holds a lease, not whether its
// process still has the results (it may have restarted under the same
// name), so the leader grants provisionally only on the worker's word.
func (r *Run) childUnitsIn(t *Tier, tokens []uint64) bool {
	for _, c := range t.Children {
		for _, u := range r.tier(c).Solve {
			if u.Done == nil && (u.Lease == nil || !slices.Contains(tokens, u.Lease.Token)) {
				return false
			}
		}
	}
	return true
}

// readyForAny reports whether unit ref may be leased to any worker (it is
// not a unit only one may take provisionally).
func (s *State) readyForAny(ref UnitRef) bool {
	r, t, u := s.unit(ref)
	return u == nil || ref.Phase != PhaseSolve || r.readyFor(t, "")
}

// heldBy is the worker that holds every unit of t's child tiers not done
// yet, all of them range units, if one does (readyFor): t's solve units
// are then created before its children are solved. Only the holder of
// the first such unit can be that worker.
func (r *Run) heldBy(t *Tier) string {
	for _, c := range t.Children {
		for _, u := range r.tier(c).Solve {
			if u.Done == nil {
				if u.Lease != nil && r.readyFor(t, u.Lease.Worker) {
					return u.Lease.Worker
				}
				return ""
			}
		}
	}
	return ""
}

// liveTiers lists the tiers a unit may still read the set or results of:
// those not solved yet, and those with a parent not solved yet. A tier
// that leaves the list never comes back to it, so a worker may drop what
// it keeps in memory of the others (Assignment.Live).
func (r *Run) liveTiers() []uint64 {
	solved := make(map[uint64]bool, len(r.Tiers)) // by tier, once: a grant computes this
	for _, t := range r.Tiers {
		solved[t.Tier] = t.DB != nil || allDone(t.Solve)
	}
	var live []uint64
	for _, t := range r.Tiers {
		needed := !solved[t.Tier]
		for _, p := range t.Parents {
			needed = needed || !solved[p]
		}
		if needed {
			live = append(live, t.Tier)
		}
	}
	return live
}

// records lists a solved tier's records: its value database once it is
// written, else its solve units' outputs in rank order.
func (t *Tier) records() (db *Blob, units []Blob) {
	if t.DB != nil {
		return &t.DB.Blob, nil
	}
	return nil, outputsFor(t.Solve, t.Tier)
}

// advance makes the changes that follow from the run's state alone: units
// are created when their inputs exist, and tiers whose units are all done
// are marked expanded. It repeats until nothing changes. Work that needs
// files (merges, the start value) is the leader's: see leaderTasks.
func (r *Run) advance() {
	if r.State != Running {
		return
	}
	for changed := true; changed; {
		changed = false
		for _, t := range r.Tiers {
			changed = r.advanceTier(t) || changed
		}
	}
}

func (r *Run) advanceTier(t *Tier) bool {
	switch {
	case t.Reach == nil && t.Loopy && r.parentsExpanded(t):
		// A loopy tier is closed as one unit, from its parents' partials;
		// one that got none (and holds no start position) is empty.
		t.Reach = []*Unit{}
		if t == r.Tiers[0] || len(r.closeInputs(t)) > 0 {
			t.Reach = append(t.Reach, &Unit{Kind: Close, Lo: 0, Hi: t.Size})
		}
		return true
	case t.Reach == nil && !t.Loopy && t.Level != nil:
		t.Reach = []*Unit{}
		if len(t.Children) > 0 && !r.Exhaustive {
			for _, rg := range t.Level.expandRanges() {
				t.Reach = append(t.Reach, &Unit{Kind: Expand, Lo: rg.Lo, Hi: rg.Hi})
			}
		}
		return true
	case !t.Expanded && allDone(t.Reach):
		t.Expanded = true
		return true
	case t.Solve == nil && t.written() && t.Expanded && (r.childrenSolved(t) || r.heldBy(t) != ""):
		t.Solve = []*Unit{}
		switch {
		case t.Level.Reachable == 0:
		case t.Loopy:
			t.Solve = append(t.Solve, &Unit{Kind: SolveTier, Lo: 0, Hi: t.Size})
		default:
			for _, rg := range t.Level.Ranges {
				t.Solve = append(t.Solve, &Unit{Kind: SolveRange, Lo: rg.Lo, Hi: rg.Hi})
			}
		}
		return true
	}
	return false
}

// A leader task is work on files that only the leader does: merging a
// tier's partial level files into its full level file, its range records
// into its value database, and finding the start position's value.
type leaderTask struct {
	Kind taskKind
	Run  string
	Tier uint64
}

type taskKind string

const (
	taskLevel  taskKind = "level"  // merge partials into the full level file
	taskDB     taskKind = "db"     // merge range records into the value database
	taskFinish taskKind = "finish" // the start position's value; the run is done
)

// leaderTasks lists the leader's work that the state calls for. It is
// derived from the state alone, so a new leader finds (and redoes) the
// merges its predecessor did not finish.
func (s *State) leaderTasks() []leaderTask {
	var out []leaderTask
	for _, r := range s.Runs {
		if r.State != Running {
			continue
		}
		solved := true
		for _, t := range r.Tiers {
			if !t.written() && r.levelInputsReady(t) {
				out = append(out, leaderTask{taskLevel, r.ID, t.Tier})
			}
			if t.DB == nil && allDone(t.Solve) {
				out = append(out, leaderTask{taskDB, r.ID, t.Tier})
			}
			solved = solved && t.DB != nil
		}
		if solved {
			out = append(out, leaderTask{taskFinish, r.ID, 0})
		}
	}
	return out
}

// levelInputsReady reports whether every partial level file of t exists:
// for a loop-free tier, once its parents are expanded; for a loopy one,
// once its closing unit is done; for an exhaustive game, at once.
func (r *Run) levelInputsReady(t *Tier) bool {
	if r.Exhaustive {
		return true // every position: no partials to wait for
	}
	if t.Loopy {
		return allDone(t.Reach)
	}
	return r.parentsExpanded(t)
}

// levelInputs lists the partial level files merged into t's full level
// file (for a loopy tier: the closed tier); for a loopy tier's Close unit
// the parents' partials are its inputs instead (closeInputs).
func (r *Run) levelInputs(t *Tier) []Blob {
	if t.Loopy {
		return outputsFor(t.Reach, t.Tier)
	}
	return r.closeInputs(t)
}

// setKey names tier t's set for workers' memory: a digest of the run's
// game and the partial level files merged into it, so the set a worker
// merged from the partials and the level file written from them share a
// name.
func (r *Run) setKey(t *Tier) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%d", r.Game, r.Option, r.Settings.Symmetry, t.Tier)
	for _, b := range r.levelInputs(t) {
		fmt.Fprintf(h, "\x00%s", b.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// closeInputs lists the partial level files t's parents produced for it.
func (r *Run) closeInputs(t *Tier) []Blob {
	var out []Blob
	for _, p := range t.Parents {
		out = append(out, outputsFor(r.tier(p).Reach, t.Tier)...)
	}
	return out
}

// outputsFor lists the outputs for tier t of the done units us.
func outputsFor(us []*Unit, t uint64) []Blob {
	var out []Blob
	for _, u := range us {
		if u.Done == nil {
			continue
		}
		for _, o := range u.Done.Outputs {
			if o.Tier == t {
				out = append(out, o.Blob)
			}
		}
	}
	return out
}

// liveBlobs is the set of blobs the state still needs: every level file
// and database, the partial level files of tiers not yet merged, and the
// records of tiers whose database is not yet written. Every coordinator
// keeps these (fetching what it misses) and may delete the rest.
func (s *State) liveBlobs() map[string]int64 {
	live := map[string]int64{}
	add := func(b Blob) { live[b.SHA256] = b.Size }
	for _, r := range s.Runs {
		for _, t := range r.Tiers {
			if t.written() {
				add(t.Level.Blob)
			}
			if t.DB != nil {
				add(t.DB.Blob)
				if t.DB.Planes != nil {
					add(*t.DB.Planes)
				}
			}
			if r.State != Running {
				continue
			}
			for _, u := range t.Reach {
				if u.Done == nil {
					continue
				}
				for _, o := range u.Done.Outputs {
					if !r.tier(o.Tier).written() {
						add(o.Blob)
					}
				}
			}
			if t.DB == nil {
				for _, u := range t.Solve {
					if u.Done != nil {
						for _, o := range u.Done.Outputs {
							add(o.Blob)
						}
					}
				}
			}
		}
	}
	return live
}

// validOutputs checks a completion's outputs against its unit: partial
// level files for the tier's children (Close: also for the tier itself),
// or the records of the unit's own tier.
func validOutputs(t *Tier, u *Unit, outs []Output) bool {
	for _, o := range outs {
		if !blobstore.ValidName(o.Blob.SHA256) || o.Blob.Size < 0 {
			return false
		}
		switch u.Kind {
		case Expand:
			if !slices.Contains(t.Children, o.Tier) {
				return false
			}
		case Close:
			if o.Tier != t.Tier && !slices.Contains(t.Children, o.Tier) {
				return false
			}
		case SolveRange, SolveTier:
			if o.Tier != t.Tier {
				return false
			}
		}
	}
	if u.Kind == SolveRange || u.Kind == SolveTier {
		return len(outs) == 1
	}
	return true
}
