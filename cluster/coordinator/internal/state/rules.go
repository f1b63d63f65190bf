package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// The rules of a run: what follows from its state alone, and what its
// tiers read. The rules of each kind of unit are in kinds.go.

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

// advance makes the changes that follow from the run's state alone: units
// are created when their inputs exist, and tiers whose units are all done
// are marked expanded. It repeats until nothing changes. Work that needs
// files (merges, the start value) is the leader's: see State.Tasks.
func (r *Run) advance() {
	if r.State != api.Running {
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
	case t.Reach == nil && t.Loopy && r.ParentsExpanded(t):
		t.Reach = r.reachUnits(t)
		return true
	case t.Reach == nil && !t.Loopy && t.Level != nil:
		t.Reach = r.reachUnits(t)
		return true
	case !t.Expanded && r.nextRound(t):
		return true
	case !t.Expanded && allDone(t.Reach):
		t.Expanded = true
		return true
	case t.partitioned() && t.Parts == nil && t.Written() && t.Expanded && r.ChildrenWritten(t):
		t.Parts = r.newParts(t)
		return true
	case t.partitioned():
		return r.advanceParts(t)
	case t.Solve == nil && t.Written() && t.Expanded && (r.ChildrenSolved(t) || r.heldBy(t) != ""):
		t.Solve = solveUnits(t)
		return true
	}
	return false
}

// ParentsExpanded reports whether every parent of t has been expanded, so
// all the partial level files of t exist.
func (r *Run) ParentsExpanded(t *Tier) bool {
	for _, p := range t.Parents {
		if !r.Tier(p).Expanded {
			return false
		}
	}
	return true
}

// ChildrenSolved reports whether every child tier of t has its records:
// its solve units are done. Its value database need not be written yet: a
// parent's units read the units' records until it is, so the leader's
// merge is not on the way from one tier to the next.
func (r *Run) ChildrenSolved(t *Tier) bool {
	for _, c := range t.Children {
		if !allDone(r.Tier(c).Solve) {
			return false
		}
	}
	return true
}

// readyFor reports whether the solve units of t may be leased to worker
// ("" for any worker): once its child tiers are solved, or,
// provisionally, while the only units of theirs not done are units of a
// kind whose results their worker keeps (kindRules.provisional) leased
// to this worker. Its results are the same whoever computes them, and
// the worker has them in memory, so it need not wait for them to be
// recorded: it starts the next tier at once, and its completion is
// accepted once theirs are (ChildrenSolved). Not for games with chance,
// whose results the worker does not solve in place.
func (r *Run) readyFor(t *Tier, worker string) bool {
	for _, c := range t.Children {
		ct := r.Tier(c)
		if ct.Solve == nil {
			return false
		}
		for _, u := range ct.Solve {
			if u.Done != nil {
				continue
			}
			if worker == "" || r.Chance || !kinds[u.Kind].provisional || u.Lease == nil || u.Lease.Worker != worker {
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
		for _, u := range r.Tier(c).Solve {
			if u.Done == nil && (u.Lease == nil || !slices.Contains(tokens, u.Lease.Token)) {
				return false
			}
		}
	}
	return true
}

// heldBy is the worker that holds every unit of t's child tiers not done
// yet, all of them range units, if one does (readyFor): t's solve units
// are then created before its children are solved. Only the holder of
// the first such unit can be that worker.
func (r *Run) heldBy(t *Tier) string {
	for _, c := range t.Children {
		for _, u := range r.Tier(c).Solve {
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
// it keeps in memory of the others (api.Assignment.Live).
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
func (t *Tier) records() (db *api.Blob, units []api.Blob) {
	if t.DB != nil {
		return &t.DB.Blob, nil
	}
	return nil, outputsFor(t.Solve, t.Tier)
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
	return r.ParentsExpanded(t)
}

// LevelInputs lists the partial level files merged into t's full level
// file (for a loopy tier: the closed tier); for a loopy tier's Close unit
// the parents' partials are its inputs instead (CloseInputs).
func (r *Run) LevelInputs(t *Tier) []api.Blob {
	if t.Loopy && closingByRanges(t) {
		return r.closedRanges(t)
	}
	if t.Loopy {
		return outputsFor(t.Reach, t.Tier)
	}
	return r.CloseInputs(t)
}

// setKey names tier t's set for workers' memory: a digest of the run's
// game and the partial level files merged into it, so the set a worker
// merged from the partials and the level file written from them share a
// name.
func (r *Run) setKey(t *Tier) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%d", r.Game, r.Option, r.Settings.Symmetry, t.Tier)
	for _, b := range r.LevelInputs(t) {
		fmt.Fprintf(h, "\x00%s", b.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CloseInputs lists the partial level files t's parents produced for it.
func (r *Run) CloseInputs(t *Tier) []api.Blob {
	var out []api.Blob
	for _, p := range t.Parents {
		out = append(out, outputsFor(r.Tier(p).Reach, t.Tier)...)
	}
	return out
}

// outputsFor lists the outputs for tier t of the done units us.
func outputsFor(us []*Unit, t uint64) []api.Blob {
	var out []api.Blob
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

// LiveBlobs is the set of blobs the state still needs, with their sizes:
// every level file and database, the partial level files of tiers not
// yet merged, and the records of tiers whose database is not yet written.
// Every coordinator keeps these (fetching what it misses) and may delete
// the rest.
func (s *State) LiveBlobs() map[string]int64 {
	live := map[string]int64{}
	add := func(b api.Blob) { live[b.SHA256] = b.Size }
	for _, r := range s.Runs {
		for _, t := range r.Tiers {
			if t.Written() {
				add(t.Level.Blob)
			}
			if t.DB != nil {
				add(t.DB.Blob)
				if t.DB.Planes != nil {
					add(*t.DB.Planes)
				}
			}
			if r.State != api.Running {
				continue
			}
			for _, u := range t.Reach {
				if u.Done == nil {
					continue
				}
				for _, o := range u.Done.Outputs {
					if !r.Tier(o.Tier).Written() {
						add(o.Blob)
					}
				}
			}
			if t.DB == nil {
				t.partsBlobs(add)
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

// A Task is work on files that only the leader does: merging a tier's
// partial level files into its full level file, its range records into
// its value database, and finding the start position's value.
type Task struct {
	Kind TaskKind
	Run  string
	Tier uint64
}

// TaskKind is what a leader's task does.
type TaskKind string

// The kinds of tasks.
const (
	TaskLevel  TaskKind = "level"  // merge partials into the full level file
	TaskDB     TaskKind = "db"     // merge range records into the value database
	TaskFinish TaskKind = "finish" // the start position's value; the run is done
	TaskRecut  TaskKind = "recut"  // cut a loopy tier too large for the workers present (Oversized)
)

// Tasks lists the leader's work that the state calls for. It is derived
// from the state alone, so a new leader finds (and redoes) the merges
// its predecessor did not finish.
func (s *State) Tasks() []Task {
	var out []Task
	for _, r := range s.Runs {
		if r.State != api.Running || r.Format != Format {
			continue
		}
		solved := true
		for _, t := range r.Tiers {
			if !t.Written() && r.levelInputsReady(t) {
				out = append(out, Task{TaskLevel, r.ID, t.Tier})
			}
			if t.DB == nil && allDone(t.Solve) {
				out = append(out, Task{TaskDB, r.ID, t.Tier})
			}
			solved = solved && t.DB != nil
		}
		if solved {
			out = append(out, Task{TaskFinish, r.ID, 0})
		}
	}
	return out
}

// Outdated lists the running runs created by a coordinator of another
// Format, which the leader fails (Free and Tasks pass them by), each
// with the reason it gives.
func (s *State) Outdated() (runs, reasons []string) {
	for _, r := range s.Runs {
		if r.State == api.Running && r.Format != Format {
			runs = append(runs, r.ID)
			reasons = append(reasons, fmt.Sprintf("created by a coordinator of state format %d; this one runs format %d, whose rules may not resume it: submit the run again", r.Format, Format))
		}
	}
	return runs, reasons
}
