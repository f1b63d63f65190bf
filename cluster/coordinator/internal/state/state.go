// Package state is the coordinators' replicated state (State) and the
// state machine that applies the raft log to it (FSM): the runs, their
// tiers and units of work, leases with fencing tokens, completions, and
// the rules that decide what may be leased and what the leader merges
// next. Its JSON is the raft snapshot's format, and its commands' JSON
// the raft log's: both are kept as they were written (the golden files
// of cluster/testdata/golden/raft).
//
// Only the coordinator sees it: it answers clients with the views of
// cluster/api (Run.View, Run.Summary, State.Assignment), so that the
// state's shape can change without changing the API. The types the rules
// hang no methods on and read as the API shows them (a tier's Level and
// DB, a unit's Completion, a Part's progress) are the API's own.
package state

import (
	"slices"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// State is everything the coordinators replicate: small metadata only.
// Level files, value databases and partial results live in the artifact
// store and are named here by their SHA-256. State changes only through
// the commands of the FSM, applied in raft log order, so every
// coordinator holds the same State.
type State struct {
	Members []api.Member `json:"members"`
	Runs    []*Run       `json:"runs"` // in the order they were submitted
}

// Format is the version of the rules (apply, Free, Tasks) that take a
// run from its creation to its end. A run keeps the Format of the
// coordinator that created it (Run.Format, in its create command); a
// leader of another Format fails it, saying why (Outdated), rather than
// take it on by rules it was not made for: an upgrade in mid-run ends
// that run clearly, where it could have stalled or gone wrong. Raise it
// when a change makes the rules treat a run created before differently
// (a new phase of units, a unit's meaning). 1 is the first so marked,
// with the children's notes of loopy tiers in parts; runs from before
// carry none (0). 2: the loopy tiers of an exhaustive game are not
// closed (no reach units).
const Format = 2

// Run is one solving run: a game variant taken through reachability and
// solving, tier by tier.
type Run struct {
	ID       string       `json:"id"`
	Format   int          `json:"format,omitempty"`
	Game     string       `json:"game"`
	Option   string       `json:"option"`
	Settings api.Settings `json:"settings"`
	Created  time.Time    `json:"created"`
	State    api.RunState `json:"state"`
	Error    string       `json:"error,omitempty"`
	Finished time.Time    `json:"finished,omitzero"`
	// Chance is set for a game with dice (tiergame.Chance): its tiers are
	// solved to probabilities (chance.SolveRange). Exhaustive is
	// set for a game whose every position is reachable
	// (tiergame.Exhaustive): its level files are whole tiers
	// (reach.FullTier), with no expansion.
	Chance     bool `json:"chance,omitempty"`
	Exhaustive bool `json:"exhaustive,omitempty"`
	// Tiers are in reachability order (parents first): the first is the
	// start tier.
	Tiers []*Tier                `json:"tiers"`
	Start *runfolder.StartRecord `json:"start,omitempty"`
	// RequestID is the submitter's idempotency key (api.SubmitRequest).
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
	// Parts is the solve of a loopy tier in parts (parts.go), if it is
	// cut so (Level.Parts): its last round's units become Solve.
	Parts *Parts `json:"parts,omitempty"`
	// DB is the value database, merged by the leader.
	DB *DB `json:"db,omitempty"`
}

// Level, DB and Completion are the API's own: the state holds a tier's
// merged set, its database and a unit's accepted result as the API shows
// them, and its raft bytes are theirs (TestRaftGolden holds both to the
// golden files).
type (
	Level      = api.Level
	DB         = api.DB
	Completion = api.Completion
)

// Unit is a unit of work: a kind and a range of a tier.
type Unit struct {
	Kind api.Kind `json:"kind"`
	Lo   uint64   `json:"lo"`
	Hi   uint64   `json:"hi"`
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
// the current lease can complete the unit. Deadlines are not replicated:
// each leader keeps its own.
type Lease struct {
	Worker string `json:"worker"`
	Token  uint64 `json:"token"`
	// Request is the worker's name for the lease request the lease was
	// granted for (api.LeaseRequest.Request), if it named one.
	Request string `json:"request,omitempty"`
}

// Run returns the run with the given id, or nil.
func (s *State) Run(id string) *Run {
	for _, r := range s.Runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Tier returns tier t of the run, or nil.
func (r *Run) Tier(t uint64) *Tier {
	for _, x := range r.Tiers {
		if x.Tier == t {
			return x
		}
	}
	return nil
}

// Unit returns the unit ref names, with its run and tier; nil for those
// that do not exist.
func (s *State) Unit(ref api.UnitRef) (*Run, *Tier, *Unit) {
	r := s.Run(ref.Run)
	if r == nil {
		return nil, nil, nil
	}
	t := r.Tier(ref.Tier)
	if t == nil {
		return r, nil, nil
	}
	us := t.Reach
	switch ref.Phase {
	case api.PhaseSolve:
		us = t.Solve
	case api.PhaseParts:
		return r, t, t.partsUnit(ref.Index)
	}
	if ref.Index < 0 || ref.Index >= len(us) {
		return r, t, nil
	}
	return r, t, us[ref.Index]
}

// Leased reports whether unit ref is leased with token.
func (s *State) Leased(ref api.UnitRef, token uint64) bool {
	_, _, u := s.Unit(ref)
	return u != nil && u.Lease != nil && u.Lease.Token == token
}

// Accepted reports whether a report of unit ref under lease token was
// accepted: the unit's result, or the last round of the part ref names
// (its tier's next round has replaced the unit since): a report sent
// again because its answer was lost is answered as accepted, not as
// stale.
func (s *State) Accepted(ref api.UnitRef, token uint64) bool {
	_, t, u := s.Unit(ref)
	switch {
	case u != nil && u.Done != nil && u.Done.Token == token:
		return true
	case ref.Phase == api.PhaseParts && t != nil && t.Parts != nil && ref.Index >= 0 && ref.Index < len(t.Parts.Parts):
		return t.Parts.Parts[ref.Index].Token == token
	}
	return false
}

// AcceptedToken reports whether a report under lease token was accepted,
// for any unit of the running runs (Accepted): a heartbeat that names it
// (its worker has not had the answer yet) is not told the lease is lost.
func (s *State) AcceptedToken(token uint64) bool {
	done := func(us []*Unit) bool {
		return slices.ContainsFunc(us, func(u *Unit) bool { return u.Done != nil && u.Done.Token == token })
	}
	for _, r := range s.Runs {
		if r.State != api.Running {
			continue
		}
		for _, t := range r.Tiers {
			if done(t.Reach) || done(t.Solve) {
				return true
			}
			if t.Parts != nil && (done(t.Parts.Units) || slices.ContainsFunc(t.Parts.Parts, func(p *Part) bool { return p.Token == token })) {
				return true
			}
		}
	}
	return false
}

// Granted finds the lease granted to worker for its lease request named
// request, if there is one: a request the worker sends again because it
// had no answer (the leader that granted it failed before answering).
func (s *State) Granted(worker, request string) (api.UnitRef, uint64, bool) {
	if request == "" {
		return api.UnitRef{}, 0, false
	}
	for _, r := range s.Runs {
		if r.State != api.Running {
			continue
		}
		for ref, le := range r.Leases {
			if le.Worker == worker && le.Request == request {
				return ref, le.Token, true
			}
		}
	}
	return api.UnitRef{}, 0, false
}

// Holders are the workers the running runs name: the holders of their
// leases, and the workers that ran their parts' last rounds (which hold
// the parts in memory).
func (s *State) Holders() []string {
	var out []string
	add := func(w string) {
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, r := range s.Runs {
		if r.State != api.Running {
			continue
		}
		for _, le := range r.Leases {
			add(le.Worker)
		}
		for _, t := range r.Tiers {
			if t.Parts != nil && t.Parts.Phase != api.PartsDone {
				for _, p := range t.Parts.Parts {
					add(p.Worker)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Leases yields every active lease of the run, with its unit.
func (r *Run) Leases(yield func(api.UnitRef, *Lease) bool) {
	for _, t := range r.Tiers {
		for i, u := range t.Reach {
			if u.Lease != nil && !yield(api.UnitRef{Run: r.ID, Tier: t.Tier, Phase: api.PhaseReach, Index: i}, u.Lease) {
				return
			}
		}
		for i, u := range t.Solve {
			if u.Lease != nil && !yield(api.UnitRef{Run: r.ID, Tier: t.Tier, Phase: api.PhaseSolve, Index: i}, u.Lease) {
				return
			}
		}
		if t.Parts != nil {
			for i, u := range t.Parts.Units {
				if u.Lease != nil && !yield(api.UnitRef{Run: r.ID, Tier: t.Tier, Phase: api.PhaseParts, Index: i}, u.Lease) {
					return
				}
			}
		}
	}
}

// Written reports whether the tier's full level file is written.
func (t *Tier) Written() bool { return t.Level != nil && t.Level.Blob.SHA256 != "" }

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

// View is the run as the API shows it (GET /v1/runs/{id}, the status
// page): a copy, which the caller may keep and read without the FSM's
// lock. It shares with the state only what the state never changes in
// place (a tier's parents and children, a level's ranges, a database's
// planes, a completion's outputs, the start record).
func (r *Run) View() *api.Run {
	v := &api.Run{ID: r.ID, Format: r.Format, Game: r.Game, Option: r.Option, Settings: r.Settings, Created: r.Created, State: r.State,
		Error: r.Error, Finished: r.Finished, Chance: r.Chance, Exhaustive: r.Exhaustive, Start: r.Start,
		RequestID: r.RequestID, LogBytes: r.LogBytes, Commands: r.Commands}
	if r.Tiers != nil {
		v.Tiers = make([]*api.Tier, len(r.Tiers))
	}
	for i, t := range r.Tiers {
		vt := &api.Tier{Tier: t.Tier, Name: t.Name, Size: t.Size, Loopy: t.Loopy, Parents: t.Parents, Children: t.Children,
			Reach: viewUnits(t.Reach), Expanded: t.Expanded, Solve: viewUnits(t.Solve)}
		if t.Level != nil {
			lv := *t.Level
			vt.Level = &lv
		}
		if t.Parts != nil {
			vt.Parts = t.Parts.view()
		}
		if t.DB != nil {
			db := *t.DB
			vt.DB = &db
		}
		v.Tiers[i] = vt
	}
	return v
}

// viewUnits is the API's view of units.
func viewUnits(us []*Unit) []*api.Unit {
	if us == nil {
		return nil
	}
	out := make([]*api.Unit, len(us))
	for i, u := range us {
		vu := &api.Unit{Kind: u.Kind, Lo: u.Lo, Hi: u.Hi, Child: u.Child, Failures: u.Failures}
		if u.Lease != nil {
			vu.Lease = &api.Lease{Worker: u.Lease.Worker, Token: u.Lease.Token}
		}
		if u.Done != nil {
			done := *u.Done
			vu.Done = &done
		}
		out[i] = vu
	}
	return out
}

// Summary counts the run's progress.
func (r *Run) Summary() api.RunSummary {
	s := api.RunSummary{ID: r.ID, Game: r.Game, Option: r.Option, State: r.State, Error: r.Error, TiersTotal: len(r.Tiers),
		Created: r.Created, Start: r.Start, LogBytes: r.LogBytes, Commands: r.Commands}
	for _, t := range r.Tiers {
		if t.DB != nil {
			s.TiersDone++
		}
		if t.Level != nil {
			s.Reached++
			s.Positions += t.Level.Reachable
		}
		for _, u := range append(t.Reach[:len(t.Reach):len(t.Reach)], t.Solve...) {
			s.UnitsTotal++
			if u.Done != nil {
				s.UnitsDone++
			}
			if u.Lease != nil {
				s.Leased++
			}
		}
		if t.Parts != nil {
			for _, u := range t.Parts.Units {
				if u.Lease != nil {
					s.Leased++
				}
			}
		}
	}
	end := time.Now()
	if !r.Finished.IsZero() {
		end = r.Finished
	}
	s.Seconds = end.Sub(r.Created).Seconds()
	return s
}
