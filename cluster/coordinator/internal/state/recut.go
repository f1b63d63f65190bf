package state

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// A loopy tier's parts are chosen when its level is merged, before its
// child tiers are reached (reachability runs parents first), so the
// leader's estimate then counts no child; once they are solved, the tier's
// whole-tier unit may need more than any worker present has. Rather than
// wait for a larger worker for ever, the leader cuts the tier then, with
// the children counted (Oversized, Recut).

// Likewise a tier in parts whose first round waits for a worker larger
// than any present: the workers' budgets fall as their fixed parts grow,
// past the room the cut left them (plan.CutBudget), or its sub-parts
// reported holding more than estimated. Its parts are cut again, finer,
// and their work so far is dropped (a first pass, at most a third of the
// tier's): a run that finer parts would let finish never waits.

// Oversized lists the loopy tiers whose whole-tier solve unit waits,
// free, for a worker larger than largest (the largest budget of the
// workers present; 0, or a worker without one, lets every unit fit) while
// the tier in parts would fit one (plan.LoopyParts), and those in parts
// whose first round waits so (recuttable): tasks of kind TaskRecut. Runs
// whose settings fix the parts (LoopyRanges) or that have chance are
// left as they are.
func (s *State) Oversized(largest int64) []Task {
	if largest <= 0 {
		return nil
	}
	var out []Task
	for _, r := range s.Runs {
		if r.State != api.Running || r.Format != Format || r.Chance || r.Settings.LoopyRanges != 0 {
			continue
		}
		for _, t := range r.Tiers {
			if t.Loopy && r.recuttable(t) {
				if t.Parts.waiting(r, t, largest) && len(t.Parts.Parts) < api.MaxLoopyRanges {
					out = append(out, Task{TaskRecut, r.ID, t.Tier})
				}
				continue
			}
			if !t.Loopy || !t.Written() || t.partitioned() || len(t.Solve) != 1 {
				continue
			}
			u := t.Solve[0]
			if u.Kind != api.SolveTier || u.Lease != nil || u.Done != nil || r.UnitBytes(t, u) <= uint64(largest) {
				continue
			}
			if parts, fits := plan.LoopyParts(t.Size, t.Level.Reachable, r.kids(t), uint64(largest), api.MaxLoopyRanges); parts >= 2 && fits {
				out = append(out, Task{TaskRecut, r.ID, t.Tier})
			}
		}
	}
	return out
}

// recuttable reports whether loopy tier t is in parts still in their
// first round (the child tiers' notes, the sub-parts' first passes, or
// the parts' first passes or gatherings), none of whose units is leased:
// what Recut may cut again.
func (r *Run) recuttable(t *Tier) bool {
	p := t.Parts
	if !t.partitioned() || p == nil || (p.Phase != api.PartsKids && p.Phase != api.PartsSubs && p.Phase != api.PartsFirst) {
		return false
	}
	for _, u := range p.Units {
		if u.Lease != nil {
			return false
		}
	}
	return true
}

// waiting reports whether a free unit of the parts' first round (a
// sub-part's first pass, or a part's) waits for a worker larger than
// any present, its estimate past largest.
func (p *Parts) waiting(r *Run, t *Tier, largest int64) bool {
	return slices.ContainsFunc(p.Units, func(u *Unit) bool {
		return u.Done == nil && (u.Kind == api.FirstRange || u.Kind == api.Part) && r.UnitBytes(t, u) > uint64(largest)
	})
}

// Recut cuts a loopy tier into parts at bounds (plan.Cut.Bounds; their
// first passes in the sub-parts of fine, if it is finer:
// Level.FirstParts): a tier solved whole so far while its whole-tier unit
// is free (the unit is dropped), or a tier in parts, into more of them,
// while it is recuttable (its parts so far are dropped). The parts'
// units follow once the child tiers are written.
func Recut(run string, tier uint64, bounds, fine []uint64) *Command {
	return &Command{Op: opRecut, Level: &levelCmd{Run: run, Tier: tier, Level: Level{Parts: bounds, FirstParts: fine}}}
}

// recut applies Recut.
func (r *Run) recut(c *levelCmd) error {
	t := r.Tier(c.Tier)
	switch {
	case t == nil:
		return fmt.Errorf("run %s tier %d: %w", r.ID, c.Tier, ErrNoUnit)
	case t.partitioned() && r.recuttable(t) && len(c.Level.Parts) > len(t.Level.Parts):
		// Finer parts: the coarser ones' first round is dropped.
	case !t.Loopy || !t.Written() || t.partitioned() || t.Parts != nil || len(c.Level.Parts) <= 2:
		return fmt.Errorf("run %s tier %d: %w: not a loopy tier solved whole or in parts not yet under way, or not a finer cut in parts", r.ID, c.Tier, ErrUnavailable)
	}
	for _, u := range t.Solve {
		if u.Lease != nil || u.Done != nil {
			return fmt.Errorf("run %s tier %d: %w: its solve unit is under way", r.ID, c.Tier, ErrUnavailable)
		}
	}
	// A new Level, not a change in place: the leader's merges read the
	// old one without the lock.
	lv := *t.Level
	lv.Parts, lv.FirstParts = c.Level.Parts, c.Level.FirstParts
	t.Level, t.Solve, t.Parts = &lv, nil, nil
	return nil
}
