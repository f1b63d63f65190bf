package state

import (
	"cmp"
	"slices"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// A loopy tier solved in parts (api.Settings.LoopyRanges) runs as
// solver's solveLoopyParts does in one process: first its child tiers'
// records, a range a unit (api.KidNotes, plan.ChildRanges), into notes
// files for each part, so that each child position's un-moves are
// computed once, not once a part; then in rounds: every part's first
// pass, levels of wins and losses in lockstep, the start of ties and
// their levels, then every part's records. A round is a unit per part
// (api.Part); every unit is of phase api.PhaseParts. When every unit of
// the phase or round is done, advanceParts folds their results into the
// parts and makes the next round, so the round in progress, each part's
// last checkpoint and the rounds since are all in the replicated state:
// a part whose worker is lost is taken over from its checkpoint, its
// rounds since replayed from the notes they read (kept until the tier
// is solved, or its next checkpoint). A KidNotes unit lost is run again:
// its outputs are recorded only with its completion.
//
// A tier whose level says a finer cut (Level.FirstParts) makes its parts'
// first passes a sub-part a unit (api.FirstRange, phase api.PartsSubs),
// so that a first pass, the longest round of a part, is spread over as
// many workers as there are sub-parts; each part's first round then
// gathers its sub-parts' checkpoints (PartStep.Gather). A FirstRange
// unit lost is run again, as a KidNotes unit is.

// Parts is a loopy tier's solve in parts.
type Parts struct {
	Phase string `json:"phase"` // api.PartsKids, api.PartsFirst, ...
	// Level is the level the round runs (-1: the children's notes, a
	// first pass, the start of ties, the records).
	Level int `json:"level"`
	Round int `json:"round"`
	// Units are the phase's: the KidNotes units over the child tiers'
	// ranges, then the round's, one per part.
	Units []*Unit `json:"units"`
	Parts []*Part `json:"parts"`
	// Subs are the sub-parts' first passes while they run (phase
	// api.PartsSubs): the child tiers' held and won notes for each,
	// which the KidNotes units made for the sub-parts.
	Subs []api.PartStep `json:"subs,omitempty"`
	// KidRem and KidTie are the child tiers' longest remoteness and
	// longest tie (-1: none), as the KidNotes units reported them (their
	// databases' headers), for the first pass (api.PartWork).
	KidRem int `json:"kid_rem,omitempty"`
	KidTie int `json:"kid_tie,omitempty"`
	// KidNotes and KidNotesBytes count the notes the KidNotes units made
	// and their files' bytes.
	KidNotes      uint64 `json:"kid_notes,omitempty"`
	KidNotesBytes uint64 `json:"kid_notes_bytes,omitempty"`
	// Notes, NotesBytes and Checkpoints count what the parts sent each
	// other and the bytes of their checkpoints; Bytes is the largest
	// memory a part reported.
	Notes       uint64 `json:"notes,omitempty"`
	NotesBytes  uint64 `json:"notes_bytes,omitempty"`
	Checkpoints uint64 `json:"checkpoint_bytes,omitempty"`
	Bytes       uint64 `json:"bytes,omitempty"`
	// Moves counts the rounds a part ran on another worker than its
	// round before (a worker lost, paused or busy).
	Moves int `json:"moves,omitempty"`
}

// Part is one part's progress, as the API shows it (its raft bytes are
// the API's).
type Part = api.PartProgress

// partitioned reports whether tier t is solved in parts.
func (t *Tier) partitioned() bool { return t.Level != nil && len(t.Level.Parts) > 2 }

// ChildrenWritten reports whether every child tier of t has its value
// database: the KidNotes units read them range by range.
func (r *Run) ChildrenWritten(t *Tier) bool {
	for _, c := range t.Children {
		if r.Tier(c).DB == nil {
			return false
		}
	}
	return true
}

// newParts starts tier t's solve in parts: a KidNotes unit per range of
// each child tier's records (plan.ChildRanges: about as many as the
// parts, of at least the run's MinRange records, at whole chunks), or,
// if the children hold no record, every part's first pass.
func (r *Run) newParts(t *Tier) *Parts {
	n := len(t.Level.Parts) - 1
	p := &Parts{Phase: api.PartsKids, Level: -1, KidTie: -1, Parts: make([]*Part, n)}
	for k := range p.Parts {
		p.Parts[k] = &Part{Next: -1}
	}
	notesFor := len(t.kidCut()) - 1
	least := max(r.Settings.MinRange, plan.ChildChunk)
	for _, c := range t.Children {
		if ct := r.Tier(c); ct.Level != nil {
			for _, rg := range plan.ChildRanges(ct.Level.Reachable, n, least, plan.ChildChunk) {
				p.Units = append(p.Units, &Unit{Kind: api.KidNotes, Lo: rg.Lo, Hi: rg.Hi, Child: c})
			}
		}
	}
	if p.Units == nil {
		p.startFirst(t, make([][]api.Blob, notesFor), make([][]api.Blob, notesFor))
	}
	return p
}

// kidCut is the cut whose parts t's KidNotes units make notes files for:
// the sub-parts' when the first passes are made by sub-part
// (Level.FirstParts), so that each reads only its own; else the parts'.
func (t *Tier) kidCut() []uint64 {
	if t.bySubs() {
		return t.Level.FirstParts
	}
	return t.Level.Parts
}

// bySubs reports whether t's parts make their first passes a sub-part a
// unit (Level.FirstParts cuts finer).
func (t *Tier) bySubs() bool { return len(t.Level.FirstParts) > len(t.Level.Parts) }

// endKids folds the KidNotes units' results into the parts, and starts
// their first pass: its step for each part (or sub-part) carries the held
// files for it, then the won ones, in the units' order; the tied ones are
// kept for ties, by part.
func (p *Parts) endKids(t *Tier) {
	kc := plan.Cut{Bounds: t.kidCut()}
	held, won := make([][]api.Blob, kc.Parts()), make([][]api.Blob, kc.Parts())
	part := func(j int) int { return plan.Cut{Bounds: t.Level.Parts}.Of(kc.Bounds[j]) }
	for _, u := range p.Units {
		d := u.Done
		if d.Part != nil {
			p.KidNotes += d.Part.Notes
			p.KidRem = max(p.KidRem, d.Part.Rem)
			if d.Part.Ties {
				p.KidTie = max(p.KidTie, d.Part.Rem)
			}
		}
		for _, o := range d.Outputs {
			p.KidNotesBytes += uint64(o.Blob.Size)
			switch o.Role {
			case api.RoleHeld:
				held[o.Part] = append(held[o.Part], o.Blob)
			case api.RoleWon:
				won[o.Part] = append(won[o.Part], o.Blob)
			case api.RoleTied:
				k := part(o.Part)
				p.Parts[k].Tied = append(p.Parts[k].Tied, o.Blob)
			}
		}
	}
	p.startFirst(t, held, won)
}

// startFirst starts the parts' first pass (round 0) with, for part k,
// the child tiers' held notes held[k] and won notes won[k]: a unit a
// part, or first a unit a sub-part if the tier is cut finer for it (then
// held and won are by sub-part).
func (p *Parts) startFirst(t *Tier, held, won [][]api.Blob) {
	p.Phase, p.Level, p.Round = api.PartsFirst, -1, 0
	if t.bySubs() {
		fine := t.Level.FirstParts
		p.Phase, p.Units, p.Subs = api.PartsSubs, make([]*Unit, len(fine)-1), make([]api.PartStep, len(fine)-1)
		for j := range p.Units {
			p.Units[j] = &Unit{Kind: api.FirstRange, Lo: fine[j], Hi: fine[j+1]}
			p.Subs[j] = api.PartStep{Round: 0, Level: -1, In: held[j], Won: won[j]}
		}
		return
	}
	for k, part := range p.Parts {
		part.Steps = []api.PartStep{{Round: 0, Level: -1, In: held[k], Won: won[k]}}
	}
	p.Units = p.roundUnits(t)
}

// endSubs starts the parts' first round from their sub-parts' first
// passes: part k's step gathers the checkpoints of its sub-parts, in
// order; the child tiers' notes are no longer read. A part holds what its
// sub-parts reported holding together.
func (p *Parts) endSubs(t *Tier) {
	cut := plan.Cut{Bounds: t.Level.Parts}
	held := make([]uint64, len(p.Parts))
	for _, part := range p.Parts {
		part.Steps = []api.PartStep{{Round: 0, Level: -1}}
	}
	for _, u := range p.Units {
		k := cut.Of(u.Lo)
		step := &p.Parts[k].Steps[0]
		for _, o := range u.Done.Outputs {
			step.Gather = append(step.Gather, o.Blob)
			p.Checkpoints += uint64(o.Blob.Size)
		}
		if u.Done.Part != nil {
			held[k] += u.Done.Part.Bytes
		}
	}
	p.Bytes = max(p.Bytes, slices.Max(held))
	p.Phase, p.Subs = api.PartsFirst, nil
	p.Units = p.roundUnits(t)
}

// roundUnits are the units of a round: one per part, over its range.
func (p *Parts) roundUnits(t *Tier) []*Unit {
	us := make([]*Unit, len(p.Parts))
	for k := range us {
		us[k] = &Unit{Kind: api.Part, Lo: t.Level.Parts[k], Hi: t.Level.Parts[k+1]}
	}
	return us
}

// advanceParts makes tier t's next round once every unit of the phase
// or round in progress is done: after the KidNotes units, the first
// pass; then as solver's lockstep does: the next level is the least of
// the parts' next levels, or the level after this one if a part sent
// notes; with none, the phase ends (wins and losses: ties start; ties:
// the records are written); once the records are, they are the tier's
// solve units.
func (r *Run) advanceParts(t *Tier) bool {
	p := t.Parts
	if p == nil || p.Phase == api.PartsDone || !allDone(p.Units) {
		return false
	}
	switch p.Phase {
	case api.PartsKids:
		p.endKids(t)
		return true
	case api.PartsSubs:
		p.endSubs(t)
		return true
	}
	inbox := make([][]api.Blob, len(p.Parts))
	sent := false
	for k, u := range p.Units {
		part, d := p.Parts[k], u.Done
		if part.Worker != "" && part.Worker != d.Worker {
			p.Moves++
		}
		part.Worker, part.Token, part.Next = d.Worker, d.Token, -1
		if d.Part != nil {
			part.Next = d.Part.Next
			p.Notes += d.Part.Notes
			p.Bytes = max(p.Bytes, d.Part.Bytes)
		}
		for _, o := range d.Outputs {
			switch o.Role {
			case api.RoleNotes:
				inbox[o.Part] = append(inbox[o.Part], o.Blob)
				p.NotesBytes += uint64(o.Blob.Size)
				sent = true
			case api.RoleCheckpoint:
				b := o.Blob
				part.Checkpoint, part.CheckpointRound, part.Steps = &b, p.Round, nil
				p.Checkpoints += uint64(o.Blob.Size)
			}
		}
	}
	if p.Phase == api.PartsRecords {
		t.Solve, p.Units, p.Phase = p.Units, nil, api.PartsDone
		return true
	}
	next := -1
	for _, part := range p.Parts {
		if part.Next >= 0 && (next < 0 || part.Next < next) {
			next = part.Next
		}
	}
	if sent {
		next = p.Level + 1 // the notes give codes of that level or later
	}
	p.Round++
	for k, part := range p.Parts {
		step := api.PartStep{Round: p.Round, Level: -1}
		switch {
		case next >= 0:
			step.Level, step.In = next, inbox[k]
		case p.Phase == api.PartsTies:
			step.Records = true
		default:
			step.Ties, step.In = true, part.Tied
		}
		part.Steps = append(part.Steps, step)
	}
	switch {
	case next >= 0:
		p.Level = next
		if p.Phase == api.PartsFirst {
			p.Phase = api.PartsWins
		}
	case p.Phase == api.PartsTies:
		p.Phase, p.Level = api.PartsRecords, -1
	default:
		p.Phase, p.Level = api.PartsTies, -1
	}
	p.Units = p.roundUnits(t)
	return true
}

// holder is the worker that ran the last round of the part whose round u
// is, if u is a unit of tier t's round in progress.
func (t *Tier) holder(u *Unit) string {
	if t.Parts == nil || !t.Parts.byPart() {
		return ""
	}
	for k, pu := range t.Parts.Units {
		if pu == u {
			return t.Parts.Parts[k].Worker
		}
	}
	return ""
}

// order is the order in which worker w is offered the units of the
// phase in progress: in a round, first those of the parts it ran the
// last round of, the one it ran last first, then the others. A worker
// that runs more parts than its memory keeps holds the one it ran last:
// run first, it is dropped from memory once in the round, for the
// next, where in the parts' order each dropped the next one's (K+R+N v
// K+R+A's top tier in 5 parts on 4 workers at a quarter: 164 parts kept
// on disk and read back, for 33 rounds).
func (p *Parts) order(w string) []int {
	idx := make([]int, len(p.Units))
	for i := range idx {
		idx[i] = i
	}
	if w == "" || !p.byPart() {
		return idx
	}
	mine := func(k int) bool { return p.Parts[k].Worker == w }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case mine(a) && mine(b):
			return cmp.Compare(p.Parts[b].Token, p.Parts[a].Token)
		case mine(a):
			return -1
		case mine(b):
			return 1
		}
		return 0
	})
	return idx
}

// byPart reports whether the units of the phase in progress are a part's
// each (its rounds), not the child tiers' ranges or the sub-parts.
func (p *Parts) byPart() bool { return p.Phase != api.PartsKids && p.Phase != api.PartsSubs }

// partsUnit returns unit i of tier t's round in progress, or nil.
func (t *Tier) partsUnit(i int) *Unit {
	if t.Parts == nil || i < 0 || i >= len(t.Parts.Units) {
		return nil
	}
	return t.Parts.Units[i]
}

// partInputs sets what a Part unit reads: the tier's level file (the
// part's window of it), and the part's checkpoint and rounds since (a
// first pass's with the child tiers' notes for it, and their longest
// remoteness).
func partInputs(r *Run, t *Tier, a *api.Assignment) {
	a.Level = &t.Level.Blob
	k := a.Ref.Index
	part := t.Parts.Parts[k]
	a.Part = &api.PartWork{Part: k, Bounds: t.Level.Parts, Checkpoint: part.Checkpoint, CheckpointRound: part.CheckpointRound,
		Steps: part.Steps, KidRem: t.Parts.KidRem, KidTie: t.Parts.KidTie, Window: t.window(t.Level.Parts[k])}
	if len(part.Steps) > 0 && len(part.Steps[0].Gather) > 0 {
		a.Part.SubBounds = t.Level.FirstParts
	}
}

// subInputs sets what a FirstRange unit reads: the tier's level file (its
// part's window) and the child tiers' notes for its sub-part, as a part
// of the finer cut.
func subInputs(r *Run, t *Tier, a *api.Assignment) {
	a.Level = &t.Level.Blob
	a.Part = &api.PartWork{Part: a.Ref.Index, Bounds: t.Level.FirstParts, Steps: []api.PartStep{t.Parts.Subs[a.Ref.Index]},
		KidRem: t.Parts.KidRem, KidTie: t.Parts.KidTie, Window: t.window(t.Level.FirstParts[a.Ref.Index])}
}

// window is the hashes [lo, hi) of the part of tier t that holds hash p:
// the window of the tier's set its units read (api.PartWork.Window), a
// sub-part's first pass its part's, so that the part gathers cells laid
// out as its own (by position or by rank: loopy.Part).
func (t *Tier) window(p uint64) []uint64 {
	c := plan.Cut{Bounds: t.Level.Parts}
	k := c.Of(p)
	return []uint64{c.Bounds[k], c.Bounds[k+1]}
}

// kidInputs sets what a KidNotes unit reads: its child tier's level file
// and database, and where the tier is cut.
func kidInputs(r *Run, t *Tier, a *api.Assignment) {
	u := t.partsUnit(a.Ref.Index)
	ct := r.Tier(u.Child)
	a.Kids = []api.KidInput{{Tier: ct.Tier, Level: ct.Level.Blob, Set: r.setKey(ct), DB: &ct.DB.Blob}}
	a.Part = &api.PartWork{Bounds: t.kidCut()}
}

// partOutputs reports whether outs fit a unit of t's phase in progress:
// a KidNotes unit's held, won and tied notes for the parts; a Part
// unit's notes for the other parts and a checkpoint (always, after a
// first pass: it no longer reads the child tiers' notes; a gathering
// need not, its sub-parts' checkpoints stand for it until the part's
// next), or in the records' round the part's records alone.
func partOutputs(t *Tier, outs []api.Output) bool {
	p := t.Parts
	if p == nil {
		return false
	}
	switch p.Phase {
	case api.PartsRecords:
		return len(outs) == 1 && outs[0].Role == api.RoleRecords
	case api.PartsSubs:
		return len(outs) == 1 && outs[0].Role == api.RoleCheckpoint
	}
	kids, most := p.Phase == api.PartsKids, len(p.Parts)
	if kids {
		most = len(t.kidCut()) - 1 // notes for the sub-parts, if by sub-parts
	}
	for _, o := range outs {
		switch {
		case o.Part < 0 || o.Part >= most:
			return false
		case kids && (o.Role == api.RoleHeld || o.Role == api.RoleWon || o.Role == api.RoleTied):
		case !kids && (o.Role == api.RoleNotes || o.Role == api.RoleCheckpoint):
		default:
			return false
		}
	}
	return p.Phase != api.PartsFirst || t.bySubs() || slices.ContainsFunc(outs, func(o api.Output) bool { return o.Role == api.RoleCheckpoint })
}

// partsBlobs adds the blobs tier t's parts still read: their
// checkpoints, tied notes and the notes of their rounds since (a first
// pass's held and won files until its checkpoint: a part replayed from
// none reads them again), and the outputs of the phase or round in
// progress (the KidNotes units').
func (t *Tier) partsBlobs(add func(api.Blob)) {
	p := t.Parts
	if p == nil || p.Phase == api.PartsDone {
		return
	}
	for _, part := range p.Parts {
		if part.Checkpoint != nil {
			add(*part.Checkpoint)
		}
		for _, b := range part.Tied {
			add(b)
		}
		for _, s := range part.Steps {
			for _, b := range slices.Concat(s.In, s.Won, s.Gather) {
				add(b)
			}
		}
	}
	for _, s := range p.Subs {
		for _, b := range slices.Concat(s.In, s.Won) {
			add(b)
		}
	}
	for _, u := range p.Units {
		if u.Done != nil {
			for _, o := range u.Done.Outputs {
				add(o.Blob)
			}
		}
	}
}

// affine reports whether unit i of tier t's round should wait for another
// worker than tk's. A part stays in its worker's memory between rounds,
// so its round goes to the present worker that holds it, while that one
// has room for it (room); else (its first round: a first pass or a
// gathering; its holder lost, or short of room) it waits
//   - for a worker that has no part of the run's tiers in rounds while tk's
//     has one (crowded);
//   - for another worker with room for it while tk's has none;
//   - while no worker has room for it, for the tiers in rounds ahead of t
//     (whose units Free offers first) to end.
//
// Only the tier ahead of the others in rounds takes a worker without room
// for its part, when none has any (its rounds wait for no other tier's):
// a part beside one it does not fit with is restored from its checkpoint,
// and the other too, round after round (K+R+N v K+R+A at a quarter, two
// tiers in 7 parts on 4 workers: one worker ran 316 CPU-s, the others 83
// to 100, and the checkpoints grew from 0.65 to 3.1 GB).
func (r *Run) affine(t *Tier, i int, tk Taker) bool {
	if !t.Parts.byPart() || tk.Worker == "" {
		return false
	}
	need := r.UnitBytes(t, t.Parts.Units[i])
	// A worker with no other part has room for what fits its budget
	// (Taker.fits), or for the part it holds.
	room := func(w string, memory int64) bool {
		others := r.partsOn(w, t, i)
		return memory <= 0 || others == 0 || others+need <= uint64(memory)
	}
	holder := t.Parts.Parts[i].Worker
	if !slices.Contains(tk.Present, holder) {
		holder = ""
	}
	switch {
	case holder != "" && room(holder, tk.memoryOf(holder)):
		return holder != tk.Worker
	case r.crowded(tk, need):
		return true
	case room(tk.Worker, tk.Memory):
		return false
	case slices.ContainsFunc(tk.Peers, func(w api.WorkerInfo) bool {
		return w.ID != tk.Worker && r.takes(w, need) && room(w.ID, w.Memory)
	}):
		return true
	case slices.ContainsFunc(r.ahead(t), (*Tier).inRounds):
		return true
	}
	return holder != "" && holder != tk.Worker
}

// crowded reports whether tk's worker has a part of the run's tiers in
// rounds (its round leased or done, or held since the round before) while
// another worker heard from lately (Taker.Peers) has none and could take
// a unit of need bytes of the run's game: a part placed on tk's would
// share its memory with the other, and a worker at a small budget then
// takes each of them back from its checkpoint every round (a gathering
// takes a second, so one worker took both parts of a tier in turn before
// the others were free). A worker that could not take it is not waited
// for, nor one the leader only presumes present.
func (r *Run) crowded(tk Taker, need uint64) bool {
	has := map[string]bool{}
	for _, t := range r.Tiers {
		if !t.inRounds() {
			continue
		}
		for k := range t.Parts.Parts {
			has[t.Parts.on(k)] = true
		}
	}
	return has[tk.Worker] && slices.ContainsFunc(tk.Peers, func(w api.WorkerInfo) bool {
		return !has[w.ID] && w.ID != tk.Worker && r.takes(w, need)
	})
}

// takes reports whether worker w could take a unit of need bytes of the
// run's game.
func (r *Run) takes(w api.WorkerInfo, need uint64) bool {
	return (w.Memory <= 0 || need <= uint64(w.Memory)) && (len(w.Games) == 0 || slices.Contains(w.Games, r.Game))
}

// partsOn estimates what worker w keeps in memory of the parts of tier t
// but part i and of the tiers in rounds ahead of t (partKept), those
// whose round it runs or ran, or whose last round it ran: a tier behind
// t gives way to it.
func (r *Run) partsOn(w string, t *Tier, i int) uint64 {
	var n uint64
	for _, o := range append(r.ahead(t), t) {
		if !o.inRounds() {
			continue
		}
		for k := range o.Parts.Parts {
			if (o != t || k != i) && o.Parts.on(k) == w {
				n += o.partKept(k)
			}
		}
	}
	return n
}

// ahead are the tiers whose units Free offers before t's: children
// first, those after t in the run's tiers.
func (r *Run) ahead(t *Tier) []*Tier {
	return slices.Clone(r.Tiers[slices.Index(r.Tiers, t)+1:])
}

// inRounds reports whether t's parts run their rounds: a unit a part,
// held by its worker between them.
func (t *Tier) inRounds() bool {
	return t.Parts != nil && t.Parts.byPart() && t.Parts.Phase != api.PartsDone
}

// on is the worker that has part k of the round in progress: it runs or
// ran the round, or else ran the part's last one; "" if none.
func (p *Parts) on(k int) string {
	switch u := p.Units[k]; {
	case u.Lease != nil:
		return u.Lease.Worker
	case u.Done != nil:
		return u.Done.Worker
	}
	return p.Parts[k].Worker
}

// partKept estimates what a worker keeps of part k of tier t, in its
// rounds, after the round in progress: the part (partHeld) and its window
// of the tier's set.
func (t *Tier) partKept(k int) uint64 {
	u := t.Parts.Units[k]
	return plan.BitsetBytes(u.Hi-u.Lo) + t.partHeld(u.Hi-u.Lo)
}

// partHeld estimates what a part of tier t over hashes positions holds
// after the round in progress: after its first pass or its gathering,
// its cells and tables (plan.PartHeldBytes); after a later round, its
// cells, twice as wide from the level a byte does not hold, and tables;
// or what the largest part reported holding, if more.
func (t *Tier) partHeld(hashes uint64) uint64 {
	p := t.Parts
	held := plan.PartHeldBytes(hashes)
	if p.Phase != api.PartsFirst {
		held = plan.PartCellBytes(hashes, p.Level, p.Phase == api.PartsTies) + plan.PartSideBytes(hashes)
	}
	return max(held, p.Bytes)
}

// memoryOf is the budget of worker w, as tk tells it or its peers (0:
// unknown, or none).
func (tk Taker) memoryOf(w string) int64 {
	if w == tk.Worker {
		return tk.Memory
	}
	for _, p := range tk.Peers {
		if p.ID == w {
			return p.Memory
		}
	}
	return 0
}

// view is the API's view of the parts.
func (p *Parts) view() *api.Parts {
	v := &api.Parts{Phase: p.Phase, Level: p.Level, Round: p.Round, Units: viewUnits(p.Units), Parts: make([]*api.PartProgress, len(p.Parts)),
		Subs: p.Subs, KidRem: p.KidRem, KidTie: p.KidTie, KidNotes: p.KidNotes, KidNotesBytes: p.KidNotesBytes, Notes: p.Notes, NotesBytes: p.NotesBytes, Checkpoints: p.Checkpoints, Bytes: p.Bytes, Moves: p.Moves}
	for k, part := range p.Parts {
		pp := *part
		v.Parts[k] = &pp
	}
	return v
}

// UnitBytes is the leader's estimate of the peak memory of unit u of tier
// t on a worker, for the units of loopy tiers: a whole tier's closing
// (Close: plan.CloseBytes, on one thread; a worker closes on as many as
// its budget holds) or solving (SolveTier: plan.LoopyTierBytes), a
// range of a child tier turned into notes (KidNotes:
// plan.KidNotesBytes), or a part's first pass
// (plan.PartFirstPassBytes) or later round (plan.PartRoundBytes: its
// cells and tables, or more if a part of the tier reported holding
// more), each over its part's window of the tier's set; 0 for the
// others, which are not estimated.
func (r *Run) UnitBytes(t *Tier, u *Unit) uint64 {
	switch u.Kind {
	case api.Close:
		return plan.CloseBytes(t.Size, r.kidSizes(t), 1)
	case api.CloseRange:
		return plan.CloseRangeBytes(t.Size, u.Hi-u.Lo, r.kidSizes(t), 1)
	case api.Part:
		// A gathering holds the part as its sub-parts reported it; a
		// later round reads no child tier, only what the part holds.
		hashes := u.Hi - u.Lo
		if p := t.Parts; p == nil || p.Phase == api.PartsFirst && !t.bySubs() {
			return plan.PartFirstPassBytes(hashes, hashes)
		}
		return plan.PartRoundBytes(hashes, t.partHeld(hashes))
	case api.FirstRange:
		w := t.window(u.Lo)
		return plan.PartFirstPassBytes(w[1]-w[0], u.Hi-u.Lo)
	case api.KidNotes:
		return plan.KidNotesBytes(r.Tier(u.Child).Size, len(t.kidCut())-1)
	case api.SolveTier:
		var count uint64
		if t.Level != nil {
			count = t.Level.Reachable
		}
		return r.LoopyBytes(t, count)
	}
	return 0
}

// PartBytes is how the peak memory of the units of loopy tier t's parts
// is estimated from a part's window of hashes (plan.PartBytes, with t's
// largest child tier counted), as a function that holds no reference to
// the state: the leader cuts outside its lock.
func (r *Run) PartBytes(t *Tier) func(window uint64) uint64 {
	var kid uint64
	for _, k := range r.kids(t) {
		kid = max(kid, k[0])
	}
	size := t.Size
	return func(window uint64) uint64 { return plan.PartBytes(size, window, kid) }
}

// LoopyBytes estimates the peak memory of solving loopy tier t, of count
// reachable positions, whole on a worker (plan.LoopyTierBytes).
func (r *Run) LoopyBytes(t *Tier, count uint64) uint64 {
	return plan.LoopyTierBytes(t.Size, count, r.kids(t))
}

// kidSizes are the hash spaces of t's child tiers.
func (r *Run) kidSizes(t *Tier) []uint64 {
	sizes := make([]uint64, len(t.Children))
	for i, c := range t.Children {
		sizes[i] = r.Tier(c).Size
	}
	return sizes
}

// kids are the hash spaces and reachable counts of t's child tiers (those
// merged).
func (r *Run) kids(t *Tier) [][2]uint64 {
	var kids [][2]uint64
	for _, c := range t.Children {
		if ct := r.Tier(c); ct.Level != nil {
			kids = append(kids, [2]uint64{ct.Size, ct.Level.Reachable})
		}
	}
	return kids
}

// LongWhole reports whether loopy tier t, of count reachable positions,
// solved whole would be a long unit beside the run on workers of threads
// threads in all: its share of the run's hashes times threads past
// longShare, and at least two of the run's MinRange positions. Solved
// whole it is one unit on one thread while the run spreads over all of
// them: at K+R+N v K+A+A+B+B's 5.5% of the hashes on 4 threads, 31 to 35
// s, 8 to 11% of the run. The leader then solves it in two parts though
// it fits whole (their first passes by sub-part, as any part's).
func (r *Run) LongWhole(t *Tier, count uint64, threads int) bool {
	var total uint64
	for _, u := range r.Tiers {
		total += u.Size
	}
	return threads > 1 && count >= 2*max(r.Settings.MinRange, 1) && float64(t.Size)*float64(threads) > longShare*float64(total)
}

// longShare is a loopy tier's share of the run's hashes times the
// workers' threads past which LongWhole cuts it: a tenth of the run at
// about 1.5 times tierd solve's CPU.
const longShare = 0.15

// PartsFor is how loopy tier t, of count reachable positions, is cut for
// workers whose largest budget is largest (plan.LoopyParts): into parts
// parts, none (0) if it fits whole or no worker says, at most most; for
// a budget of budget, less than largest by the room for the workers'
// growth (plan.CutBudget) if some cut fits that, else largest. A tier
// that fits whole is left whole: if its unit outgrows the workers
// before it starts, the leader cuts it then (Oversized).
func (r *Run) PartsFor(t *Tier, count uint64, largest int64, most int) (parts int, budget uint64) {
	if largest <= 0 {
		return 0, 0
	}
	kids := r.kids(t)
	if plan.LoopyTierBytes(t.Size, count, kids) <= uint64(largest) {
		return 0, uint64(largest)
	}
	budget = plan.CutBudget(uint64(largest))
	parts, fits := plan.LoopyParts(t.Size, count, kids, budget, most)
	if !fits {
		budget = uint64(largest)
		parts, _ = plan.LoopyParts(t.Size, count, kids, budget, most)
	}
	return parts, budget
}
