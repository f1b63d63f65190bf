package state

import (
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// A loopy tier's closing by ranges (api.CloseRange, reach.CloseRound):
// its reach units are rounds of plan.CloseRanges' ranges, appended to
// t.Reach one round at a time, so unit i is range i%n of round i/n. A
// round's units read their range's checkpoint of the last round and the
// notes the other ranges sent in it (the first round: the parents'
// partial level files); a round after which no range sent a note ends
// the closing, and the last round's checkpoints are the tier's level
// inputs.

// closeRanges is how many ranges loopy tier t is closed in
// (plan.CloseRangeCount): 1 is one Close unit.
func (r *Run) closeRanges(t *Tier) int {
	return len(plan.CloseRanges(t.Size, plan.CloseRangeCount(t.Size, r.Settings.CloseRanges)))
}

// closingUnits are the first round's units of loopy tier t: one Close
// unit, or one CloseRange unit a range.
func (r *Run) closingUnits(t *Tier) []*Unit {
	n := r.closeRanges(t)
	if n < 2 {
		return []*Unit{{Kind: api.Close, Lo: 0, Hi: t.Size}}
	}
	us := make([]*Unit, 0, n)
	for _, rg := range plan.CloseRanges(t.Size, n) {
		us = append(us, &Unit{Kind: api.CloseRange, Lo: rg.Lo, Hi: rg.Hi})
	}
	return us
}

// closingByRanges reports whether t's reach units are a closing by
// ranges.
func closingByRanges(t *Tier) bool {
	return len(t.Reach) > 0 && t.Reach[0].Kind == api.CloseRange
}

// lastRound is the units of the last round of t's closing by ranges, n of
// them.
func (r *Run) lastRound(t *Tier) []*Unit {
	n := r.closeRanges(t)
	return t.Reach[len(t.Reach)-n:]
}

// nextRound appends the next round of t's closing by ranges, when every
// unit of the last one is done and one of them sent notes; it reports
// whether it did.
func (r *Run) nextRound(t *Tier) bool {
	if !closingByRanges(t) || !allDone(t.Reach) {
		return false
	}
	last := r.lastRound(t)
	sent := false
	for _, u := range last {
		for _, o := range u.Done.Outputs {
			sent = sent || o.Role == api.RoleNotes
		}
	}
	if !sent {
		return false
	}
	for _, u := range last {
		t.Reach = append(t.Reach, &Unit{Kind: api.CloseRange, Lo: u.Lo, Hi: u.Hi})
	}
	return true
}

// closeRangeInputs are a CloseRange unit's inputs: its range's checkpoint
// of the last round and the notes the other ranges sent in it; in the
// first round, the parents' partial level files.
func closeRangeInputs(r *Run, t *Tier, a *api.Assignment) {
	n := r.closeRanges(t)
	round, i := a.Ref.Index/n, a.Ref.Index%n
	if round == 0 {
		a.Partials = r.CloseInputs(t)
		return
	}
	prev := t.Reach[(round-1)*n : round*n]
	for j, u := range prev {
		for _, o := range u.Done.Outputs {
			switch {
			case o.Tier != t.Tier:
			case j == i && o.Role == api.RoleCheckpoint:
				a.Level = &o.Blob
			case j != i && o.Role == api.RoleNotes:
				a.Partials = append(a.Partials, o.Blob)
			}
		}
	}
}

// closeRangeOutputs reports whether outs fit a CloseRange unit of t: at
// most one checkpoint and one notes file of the tier, and partial level
// files of its children.
func closeRangeOutputs(t *Tier, outs []api.Output) bool {
	var ckpt, notes int
	for _, o := range outs {
		switch {
		case o.Tier != t.Tier && o.Role == "":
		case o.Tier == t.Tier && o.Role == api.RoleCheckpoint:
			ckpt++
		case o.Tier == t.Tier && o.Role == api.RoleNotes:
			notes++
		default:
			return false
		}
	}
	return ckpt <= 1 && notes <= 1
}

// closedRanges is the level inputs of a tier closed by ranges: the last
// round's checkpoints (those done, while the round is under way).
func (r *Run) closedRanges(t *Tier) []api.Blob {
	var out []api.Blob
	for _, u := range r.lastRound(t) {
		if u.Done == nil {
			continue
		}
		for _, o := range u.Done.Outputs {
			if o.Tier == t.Tier && o.Role == api.RoleCheckpoint {
				out = append(out, o.Blob)
			}
		}
	}
	return out
}
