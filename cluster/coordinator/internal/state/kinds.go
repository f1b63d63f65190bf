package state

import (
	"slices"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
)

// Everything the state knows of each kind of unit is here: which units a
// tier's two phases are made of (reachUnits, solveUnits) and, in kinds,
// which outputs a completion may name, whether a parent tier may be
// leased on its worker's word before it is recorded, and what a worker is
// given to run it. A new kind is an entry of kinds, its place in
// reachUnits or solveUnits, and an executor of the worker's
// (cluster/worker).

// kindRules are the rules of one kind of unit.
type kindRules struct {
	// outputFor reports whether a completion of a unit of tier t may name
	// an output for tier out.
	outputFor func(t *Tier, out uint64) bool
	// single: a completion names exactly one output.
	single bool
	// provisional: its worker keeps its results in memory, so a unit of
	// the parent tier may be leased to that worker before the unit is
	// recorded done (readyFor).
	provisional bool
	// inputs sets what the worker reads to run a unit of tier t.
	inputs func(r *Run, t *Tier, a *api.Assignment)
}

var kinds = map[api.Kind]kindRules{
	// Expand reads the tier's level file, or before it is written the
	// partial level files it is merged from, and writes partial level
	// files of the children.
	api.Expand: {
		outputFor: func(t *Tier, out uint64) bool { return slices.Contains(t.Children, out) },
		inputs: func(r *Run, t *Tier, a *api.Assignment) {
			if t.Written() {
				a.Level = &t.Level.Blob
			} else {
				a.Partials = r.LevelInputs(t)
			}
		},
	},
	// Close reads the parents' partial level files of a loopy tier and
	// writes the closed tier's, and its children's.
	api.Close: {
		outputFor: func(t *Tier, out uint64) bool { return out == t.Tier || slices.Contains(t.Children, out) },
		inputs:    func(r *Run, t *Tier, a *api.Assignment) { a.Partials = r.CloseInputs(t) },
	},
	// CloseRange is a round of a range of a loopy tier's closing by
	// ranges (closing.go).
	api.CloseRange: {
		outputFor: func(t *Tier, out uint64) bool { return out == t.Tier || slices.Contains(t.Children, out) },
		inputs:    closeRangeInputs,
	},
	// SolveRange and SolveTier read the tier's level file and its solved
	// children, and write the records of their range.
	api.SolveRange: {outputFor: ownTier, single: true, provisional: true, inputs: solveInputs},
	api.SolveTier:  {outputFor: ownTier, single: true, inputs: solveInputs},
	// KidNotes turns a range of a child tier of a loopy tier solved in
	// parts (parts.go) into notes files for the parts (partOutputs): it
	// reads the child's level file and database.
	api.KidNotes: {outputFor: ownTier, inputs: kidInputs},
	// Part is a round of a part of a loopy tier solved in parts: it
	// reads the tier's level file and the part's checkpoint and notes,
	// and writes notes, checkpoints and at the end the part's records
	// (partOutputs).
	api.Part: {outputFor: ownTier, inputs: partInputs},
	// FirstRange is the first pass of a sub-part of a part (parts.go):
	// it reads the tier's level file and its part's child notes, and
	// writes the sub-part's checkpoint.
	api.FirstRange: {outputFor: ownTier, single: true, inputs: subInputs},
}

// reachUnits are the units that take tier t through reachability: for a
// loopy tier, one Close unit over the whole tier, or the first round of
// its closing by ranges (closing.go; none for one that got no partials
// and holds no start position: it is empty); else an Expand
// unit per range of the expansion's cut, unless the tier has no
// children. An exhaustive game has none at all: its level files are
// every legal hash (reach.FullTier), whatever a closing would find.
func (r *Run) reachUnits(t *Tier) []*Unit {
	us := []*Unit{}
	switch {
	case r.Exhaustive:
	case t.Loopy:
		if t == r.Tiers[0] || len(r.CloseInputs(t)) > 0 {
			us = r.closingUnits(t)
		}
	case len(t.Children) > 0:
		for _, rg := range t.Level.ExpandRanges() {
			us = append(us, &Unit{Kind: api.Expand, Lo: rg.Lo, Hi: rg.Hi})
		}
	}
	return us
}

// solveUnits are the units that solve tier t: one SolveTier unit over a
// loopy tier, else a SolveRange unit per range of the cut; none for an
// empty tier.
func solveUnits(t *Tier) []*Unit {
	us := []*Unit{}
	switch {
	case t.Level.Reachable == 0:
	case t.Loopy:
		us = append(us, &Unit{Kind: api.SolveTier, Lo: 0, Hi: t.Size})
	default:
		for _, rg := range t.Level.Ranges {
			us = append(us, &Unit{Kind: api.SolveRange, Lo: rg.Lo, Hi: rg.Hi})
		}
	}
	return us
}

// inParts reports whether u is a unit of a tier in parts (phase
// api.PhaseParts), which reports its results (api.PartResult).
func inParts(u *Unit) bool {
	return u.Kind == api.Part || u.Kind == api.KidNotes || u.Kind == api.FirstRange
}

// ownTier: the only outputs are the unit's tier's.
func ownTier(t *Tier, out uint64) bool { return out == t.Tier }

// solveInputs sets the inputs of a unit that solves tier t: its level
// file, and each child tier solved, with its records: its value database
// once written (and its database of planes, if it has one), else its
// units' records; for a unit leased
// provisionally, a place for each unit not done yet, which its worker
// computes (api.KidInput.Mine).
func solveInputs(r *Run, t *Tier, a *api.Assignment) {
	a.Level = &t.Level.Blob
	for _, c := range t.Children {
		ct := r.Tier(c)
		k := api.KidInput{Tier: c, Level: ct.Level.Blob, Set: r.setKey(ct)}
		if allDone(ct.Solve) {
			k.DB, k.Records = ct.records()
			if ct.DB != nil {
				k.Planes = ct.DB.Planes
			}
		} else { // leased provisionally: one place per unit
			for i, cu := range ct.Solve {
				if cu.Done != nil {
					k.Records = append(k.Records, outputsFor([]*Unit{cu}, c)...)
					continue
				}
				k.Records = append(k.Records, api.Blob{})
				k.Mine = append(k.Mine, api.MineUnit{Ref: api.UnitRef{Run: r.ID, Tier: c, Phase: api.PhaseSolve, Index: i},
					Token: cu.Lease.Token, Lo: cu.Lo, Hi: cu.Hi})
			}
		}
		a.Kids = append(a.Kids, k)
	}
}

// Fits reports whether a completion's outputs fit unit u of tier t:
// partial level files for the tier's children (Close: also for the tier
// itself), or the records of the unit's own tier.
func Fits(t *Tier, u *Unit, outs []api.Output) bool {
	rules, ok := kinds[u.Kind]
	if !ok || inParts(u) && !partOutputs(t, outs) || u.Kind == api.CloseRange && !closeRangeOutputs(t, outs) {
		return false
	}
	for _, o := range outs {
		if !blobstore.ValidName(o.Blob.SHA256) || o.Blob.Size < 0 || !rules.outputFor(t, o.Tier) {
			return false
		}
	}
	return !rules.single || len(outs) == 1
}

// Assignment describes unit ref, leased with token, to its worker, with
// everything it reads; nil if the unit is not (or no longer) leased so.
func (s *State) Assignment(ref api.UnitRef, token uint64) *api.Assignment {
	r, t, u := s.Unit(ref)
	if u == nil || u.Lease == nil || u.Lease.Token != token {
		return nil
	}
	a := &api.Assignment{Ref: ref, Token: token, Kind: u.Kind, Lo: u.Lo, Hi: u.Hi, Game: r.Game, Option: r.Option,
		Loopy: t.Loopy, Symmetry: r.Settings.Symmetry, Children: t.Children, Set: r.setKey(t), Live: r.liveTiers()}
	if rules, ok := kinds[u.Kind]; ok {
		rules.inputs(r, t, a)
	}
	a.Bytes = int64(r.UnitBytes(t, u))
	return a
}
