package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/loopy"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The units of a loopy tier solved in parts, as solver's solveLoopyParts
// runs them in one process: a range of a child tier's records into notes
// files for the parts (api.KidNotes: loopy.ChildNotes), and a part's
// rounds (api.Part) with the solver's Part. The worker keeps a part in
// memory after its round, for its next round (the leader grants it to
// this worker while it is present); a worker without it restores it from
// the part's last checkpoint and replays the rounds since, from the
// notes they read.

// A part writes a checkpoint after its first pass, after rounds it
// replayed, and otherwise once the rounds since its last one have cost
// checkpointSeconds of its worker's time, or after checkpointRounds
// rounds whatever they cost. A checkpoint costs about the part's cells
// compressed, written, uploaded and copied to every coordinator (about 2
// CPU-s a checkpoint of 146 MiB of cells, K+R+N v K+R+A's top tier in 3
// parts); a round lost with its worker costs the rounds since the
// checkpoint again, replayed by the worker that takes the part over. At
// every 8th round, as before, the checkpoints were 60 to 90 times the
// bytes of the notes (K+R+N v K+R+A: 2.1 GiB against 23 to 34 MiB) and
// kept the leader busy for a seventh of the run's CPU; most
// rounds of a part take a fraction of a second. A round that replayed
// rounds writes one whatever the count: a worker that runs more parts
// than its memory keeps (the others busy) restores them round after
// round, and without it each replayed every round since the last
// checkpoint (K+R+N v K+A+A+B at 139 MiB: one worker ran three parts of
// a tier, each restored from its first pass with 1, 2, ... 7 rounds to
// replay).
const (
	checkpointSeconds = 20
	checkpointRounds  = 64
)

// partKey names a part of a run's tier, in its cut: a tier cut again
// (into more parts, while their first round waited) has parts of the
// same index over other hashes, which no part held from before may
// stand for.
type partKey struct {
	run    string
	tier   uint64
	part   int
	lo, hi uint64
}

// keyOf is the key of the part a unit of run's tier works on.
func keyOf(run string, tier uint64, pw *api.PartWork) partKey {
	k := partKey{run: run, tier: tier, part: pw.Part}
	if pw.Part >= 0 && pw.Part+1 < len(pw.Bounds) {
		k.lo, k.hi = pw.Bounds[pw.Part], pw.Bounds[pw.Part+1]
	}
	return k
}

// heldPart is a part kept in memory after a round.
type heldPart struct {
	part  *loopy.Part
	round int
	// since is the time the part's rounds since its last checkpoint took
	// on this worker.
	since time.Duration
	// set pins the memory's entry of the part's set (its window of the
	// tier's, or the tier's), which the part reads:
	// its memory is in use as long as the part is, and dropped from its
	// shelf alone it would be counted free, and the part's next round
	// would load the set again beside it (K+R+N v K+R+A's top tier: 57 MB
	// twice, workers 15% over their budget).
	set *item
	// key names the part, and spills keep it on the worker's disk when
	// the memory drops it for room (Evict).
	key    partKey
	spills *spills
}

// Evict keeps the part on the worker's disk (spills.put) and frees it,
// when the memory drops it to make room (its lock held).
func (h *heldPart) Evict() {
	if h.part != nil && h.spills != nil {
		h.spills.put(h.key, h)
	}
	h.Free()
}

// Free frees the part, when the memory drops it (its lock held), and
// lets its set go.
func (h *heldPart) Free() {
	if h.part != nil {
		h.part.Free()
	}
	unpinLocked(h.set)
}

// part runs a round of a part (api.PartWork): from the part held in
// memory, its checkpoint or its first pass, through the rounds since;
// the outputs are those of the last round.
func (w *Worker) part(ctx context.Context, u *unit) (uint64, error) {
	return w.runPart(ctx, u, true)
}

// firstRange makes the first pass of a sub-part (api.FirstRange): round
// 0 of a part of the finer cut, whose checkpoint is the output; the
// sub-part is not kept, its part's first round gathers it.
func (w *Worker) firstRange(ctx context.Context, u *unit) (uint64, error) {
	if pw := u.Part; pw == nil || len(pw.Steps) != 1 || pw.Steps[0].Round != 0 || len(pw.Steps[0].Gather) > 0 || pw.Checkpoint != nil {
		return 0, errors.New("a sub-part's first pass that is not one")
	}
	return w.runPart(ctx, u, false)
}

// runPart runs a part's rounds (part), keeping the part in memory after
// them if keep is set.
func (w *Worker) runPart(ctx context.Context, u *unit, keep bool) (uint64, error) {
	pw := u.Part
	if pw == nil || len(pw.Steps) == 0 {
		return 0, errors.New("a part unit without its rounds")
	}
	src, err := partSetSource(u)
	if err != nil {
		return 0, err
	}
	set, release, err := w.tierSet(ctx, u.g, u.own, src)
	if err != nil {
		return 0, err
	}
	defer release()
	key := keyOf(u.Ref.Run, u.Ref.Tier, pw)
	last := pw.Steps[len(pw.Steps)-1]
	r := &partRound{w: w, u: u, pw: pw, set: set, cut: plan.Cut{Bounds: pw.Bounds}, e: work.Effort{Workers: w.cfg.Threads},
		res: &api.PartResult{Next: -1}}
	r.p, r.at = nil, -1
	if keep {
		r.p, r.at, r.since = w.heldPart(key, pw)
	}
	// The round's cells and what it reads beside the shelves: the leader's
	// estimate, for which the memory makes room (the tier's set is on
	// its shelf).
	releaseRound, err := w.reserveUnit(ctx, u, u.Bytes, src.bytes(u.g, u.tier))
	if err != nil {
		r.free()
		return 0, err
	}
	defer releaseRound()
	if r.p == nil && keep {
		if err := r.unspill(ctx, key); err != nil {
			return 0, err
		}
	}
	// What a first pass holds past its estimate (partGrowth).
	r.growth = &partGrowth{mem: w.mem.memory, own: u.own, counted: int64(plan.PartHeldBytes(u.Hi - u.Lo))}
	defer r.growth.release()
	replayed := 0
	switch {
	case r.p == nil && pw.Checkpoint != nil:
		if replayed, err = r.restore(ctx, last); err != nil {
			return 0, err
		}
	case r.p == nil:
		replayed = len(pw.Steps) - 1 // from its first pass, or its gathering
		if replayed > 0 && len(pw.Steps[0].Gather) > 0 {
			w.unitLog(u.Assignment).Info("took a part over from its sub-parts' checkpoints", "part", pw.Part, "replayed_rounds", replayed)
		}
	}
	defer r.free() // unless kept
	start := time.Now()
	for _, step := range pw.Steps {
		if step.Round <= r.at {
			continue
		}
		switch {
		case step.Round == 0:
			err = r.firstPass(ctx, step)
		case r.p == nil:
			err = fmt.Errorf("part %d: round %d without the part's checkpoint", pw.Part, step.Round)
		case step.Records:
			return r.records()
		default:
			err = r.level(ctx, step, step.Round == last.Round) // only the last round's outputs are new
		}
		if err != nil {
			return 0, err
		}
		r.at = step.Round
	}
	r.since += time.Since(start)
	wrote, err := r.end(last, replayed)
	if err != nil {
		return 0, err
	}
	if wrote {
		r.since = 0
	}
	if !keep {
		return 0, nil
	}
	// The part is counted on its shelf from now on, not in the round's
	// room too: counted twice, it would drop the other parts held.
	r.growth.release()
	releaseRound()
	h := &heldPart{part: r.p, round: last.Round, since: r.since, set: w.mem.sets.pin(src.name), key: key, spills: w.spills}
	if !w.mem.parts.put(key, u.own, h, int64(r.p.Bytes())) {
		w.mem.memory.unpin(h.set)
		return 0, nil // another unit's part is held under its key: r.free drops this one
	}
	r.p = nil // kept
	return 0, nil
}

// heldPart takes the part out of the memory, with the round it is after
// and the time of its rounds since its last checkpoint, if it is held
// there and on the way to the unit's rounds; else nil and -1.
func (w *Worker) heldPart(key partKey, pw *api.PartWork) (*loopy.Part, int, time.Duration) {
	h, ok := w.mem.parts.take(key)
	if !ok {
		return nil, -1, 0
	}
	// The unit holds the set now (tierSet, before this).
	w.mem.memory.unpin(h.set)
	if h.round+1 < pw.Steps[0].Round || h.round >= pw.Steps[len(pw.Steps)-1].Round {
		h.part.Free() // not on the way to this round
		return nil, -1, 0
	}
	return h.part, h.round, h.since
}

// partRound is a part unit under way: what its rounds read, the part as
// far as they have taken it, and what it reports.
type partRound struct {
	w      *Worker
	u      *unit
	pw     *api.PartWork
	set    *bitarray.Ranked
	cut    plan.Cut
	e      work.Effort
	growth *partGrowth
	// p is the part after round at (-1: none yet); nil before its first
	// pass, or once it is kept in memory.
	p   *loopy.Part
	at  int
	res *api.PartResult
	// since is the time the part's rounds since its last checkpoint took
	// on this worker (those it held it for).
	since time.Duration
}

// free frees the part, unless there is none or it is kept.
func (r *partRound) free() {
	if r.p != nil {
		r.p.Free()
		r.p = nil
	}
}

// restore reads the part from its checkpoint (loopy.RestorePart); it
// returns how many rounds before last it replays.
func (r *partRound) restore(ctx context.Context, last api.PartStep) (int, error) {
	paths, err := r.w.disk.paths(ctx, []api.Blob{*r.pw.Checkpoint})
	if err != nil {
		return 0, err
	}
	f, err := os.Open(paths[0])
	if err != nil {
		return 0, err
	}
	defer f.Close()
	p, err := loopy.RestorePart(ctx, f, r.u.g, r.u.tier, r.set, r.cut, r.pw.Part, r.e)
	if err != nil {
		return 0, err
	}
	r.p, r.at = p, r.pw.CheckpointRound
	replayed := last.Round - r.at - 1
	r.w.unitLog(r.u.Assignment).Info("took a part over from its checkpoint", "part", r.pw.Part, "checkpoint_round", r.at,
		"replayed_rounds", replayed)
	return replayed, nil
}

// firstPass makes the part (loopy.NewPart: its own moves) and applies
// its child tiers' notes, which the tier's KidNotes units made (the
// round's step): every held file, then every won file, each a section
// at a time. The memory makes room for the part as it grows (its side
// tables: partGrowth).
func (r *partRound) firstPass(ctx context.Context, step api.PartStep) error {
	if r.p != nil {
		return fmt.Errorf("part %d: a first pass of a part under way", r.pw.Part)
	}
	if len(step.Gather) > 0 {
		return r.gather(ctx, step.Gather)
	}
	// The held notes go first: a position they leave unable to lose
	// needs no look at its moves (loopy.NewPart).
	held, err := r.w.disk.paths(ctx, step.In)
	if err != nil {
		return err
	}
	early := func(apply func(loopy.Notes) error) error {
		for _, path := range held {
			if err := eachNotes(path, apply); err != nil {
				return err
			}
		}
		return nil
	}
	p, err := loopy.NewPart(ctx, r.u.g, r.u.tier, r.set, r.cut, r.pw.Part, r.pw.KidRem, r.pw.KidTie, r.e, early)
	if err != nil {
		return err
	}
	r.growth.update(p)
	ok := false
	defer func() {
		if !ok {
			p.Free()
		}
	}()
	won, err := r.w.disk.paths(ctx, step.Won)
	if err != nil {
		return err
	}
	for _, path := range won {
		if err := eachNotes(path, func(ns loopy.Notes) error { return p.Apply(ctx, ns) }); err != nil {
			return err
		}
		r.growth.update(p)
	}
	if err := p.EndFirstPass(); err != nil {
		return err
	}
	ok = true
	r.p = p
	return nil
}

// gather makes the part after its first pass from its sub-parts' (their
// checkpoints, files: loopy.GatherPart).
func (r *partRound) gather(ctx context.Context, files []api.Blob) error {
	paths, err := r.w.disk.paths(ctx, files)
	if err != nil {
		return err
	}
	subs := make([]io.Reader, len(paths))
	for i, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		subs[i] = f
	}
	// The memory makes room for the tables beside the cells as they are
	// read, a sub-part's at a time (partGrowth).
	p, err := loopy.GatherPart(ctx, subs, r.u.g, r.u.tier, r.set, r.cut, plan.Cut{Bounds: r.pw.SubBounds}, r.pw.Part, r.e, r.growth.update)
	if err != nil {
		return err
	}
	r.p = p
	return nil
}

// level runs a level of remoteness of the part, or the start of its
// ties: it applies the notes the round reads (the other parts' at the
// level before, or the child tiers' tied notes), a section at a time,
// not held whole; at a level it sends the notes for the other parts to
// their files as they are made, unless mine is false (a replayed
// round's were sent already).
func (r *partRound) level(ctx context.Context, step api.PartStep, mine bool) error {
	paths, err := r.w.disk.paths(ctx, step.In)
	if err != nil {
		return err
	}
	p := r.p
	receive := func(ns loopy.Notes) error { return p.Receive(ctx, step.Level, ns) }
	if step.Ties {
		if err := p.StartTies(ctx, nil); err != nil {
			return err
		}
		receive = func(ns loopy.Notes) error { return p.Apply(ctx, ns) }
	}
	for _, path := range paths {
		if err := eachNotes(path, receive); err != nil {
			return err
		}
	}
	if step.Ties {
		return nil
	}
	sent := &sentNotes{out: r.u.out, t: r.u.tier, role: api.RoleNotes, from: r.pw.Part, mine: mine}
	err = p.StepTo(ctx, step.Level, nil, sent.add)
	if cerr := sent.close(err == nil); err == nil {
		err = cerr
	}
	r.res.Notes += sent.count
	return err
}

// records writes the part's records, the unit's output of role
// RoleRecords, and returns how many it holds.
func (r *partRound) records() (uint64, error) {
	u, p := r.u, r.p
	st := p.Solved()
	positions := st.Len()
	u.computed()
	if err := u.out.add(u.tier, func(path string) error {
		_, err := solved.WriteTierDB(path, u.g, st, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true})
		return err
	}); err != nil {
		return 0, err
	}
	u.out.outs[len(u.out.outs)-1].Role = api.RoleRecords
	r.res.Bytes = p.Bytes()
	u.out.part = r.res
	return positions, nil
}

// end reports the part after its last round, and writes its checkpoint
// (an output of role RoleCheckpoint) after its first pass, after rounds
// replayed, and once the rounds since the last one cost enough (see
// checkpointSeconds, the gathering's time counted); it reports whether it
// wrote one. A gathering writes none of its own: its sub-parts'
// checkpoints are the part's until its next, and a worker that takes it
// over gathers them again.
func (r *partRound) end(last api.PartStep, replayed int) (bool, error) {
	u, p := r.u, r.p
	r.res.Next, r.res.Bytes = p.Next(last.Level), p.Bytes()
	u.out.part = r.res
	u.computed()
	first := last.Round == 0 && len(last.Gather) == 0
	due := r.since >= checkpointSeconds*time.Second || len(r.pw.Steps) >= checkpointRounds
	if !first && !due && replayed == 0 {
		return false, nil
	}
	if err := u.out.add(u.tier, func(path string) error { return writePart(path, p.Checkpoint) }); err != nil {
		return false, err
	}
	u.out.outs[len(u.out.outs)-1].Role = api.RoleCheckpoint
	return true, nil
}

// partGrowth makes room in the memory, beside a first pass's
// reservation, for what the part holds past the cells and tables the
// leader's estimate counts (plan.PartHeldBytes): the tables beside its
// cells (loopy.Part.Bytes) grow with its child tiers' notes (8 bytes an
// entry, some MiB beside 25 MiB of cells for K+R+N v K+A+B+B in 4 parts;
// 20 MiB when they were Go maps), by the game, past what any estimate
// knows before a first pass reports them.
type partGrowth struct {
	mem      *memory
	own      owner
	counted  int64 // the estimate's cells
	held     int64
	releases []func()
}

// update holds what part p holds now past the estimate, if more than
// before.
func (g *partGrowth) update(p *loopy.Part) {
	if extra := int64(p.Bytes()) - g.counted; extra > g.held {
		g.releases = append(g.releases, g.mem.hold(g.own, extra-g.held))
		g.held = extra
	}
}

// release gives back what update held (once).
func (g *partGrowth) release() {
	for _, r := range g.releases {
		r()
	}
	g.releases = nil
}

// eachNotes reads a notes file a section at a time (loopy.EachNotes).
func eachNotes(path string, f func(loopy.Notes) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := loopy.EachNotes(file, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// kidNotes turns the unit's range of a child tier's records (ranks
// [Lo, Hi) of Kids[0]) into notes to the parts of their parents, a chunk
// at a time (solved.OpenSet over the child's set from the memory
// cache, solved.Reader.Range, loopy.ChildNotes), as notes files a role
// and part, written as they are made: held, won and tied notes for each
// part it has any for. It reports the notes and the child's longest
// remoteness and ties (its database's header), which the parts' cells
// are laid out for.
func (w *Worker) kidNotes(ctx context.Context, u *unit) (uint64, error) {
	if len(u.Kids) != 1 || u.Kids[0].DB == nil || u.Part == nil {
		return 0, errors.New("a kid-notes unit without its child tier's database or the cut")
	}
	ki := u.Kids[0]
	// The child's set is often in memory: the worker's other units of
	// it (its ranges of notes, its solving) loaded it.
	kid := tiergame.Tier(ki.Tier)
	set, releaseSet, err := w.tierSet(ctx, u.g, owner{u.Ref.Run, ki.Tier}, setSource{name: ki.Set, level: &ki.Level})
	if err != nil {
		return 0, err
	}
	defer releaseSet()
	paths, err := w.disk.paths(ctx, []api.Blob{*ki.DB})
	if err != nil {
		return 0, err
	}
	release, err := w.reserveUnit(ctx, u, u.Bytes, setBytes(u.g, kid))
	if err != nil {
		return 0, err
	}
	defer release()
	c, err := solved.OpenSet(kid, set, paths[0])
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if u.Hi > c.Header().Count || u.Lo > u.Hi {
		return 0, fmt.Errorf("child tier %d: ranks [%d, %d) of %d", ki.Tier, u.Lo, u.Hi, c.Header().Count)
	}
	cut := plan.Cut{Bounds: u.Part.Bounds}
	roles := []string{api.RoleHeld, api.RoleWon, api.RoleTied} // as ChildNotes returns them
	files := make([]*sentNotes, len(roles))
	for i, role := range roles {
		files[i] = &sentNotes{out: u.out, t: u.tier, role: role, from: -1, mine: true}
	}
	err = func() error {
		for lo := u.Lo; lo < u.Hi; lo += plan.ChildChunk {
			st, err := c.Range(lo, min(lo+plan.ChildChunk, u.Hi), w.cfg.Threads)
			if err != nil {
				return err
			}
			held, won, tied, err := loopy.ChildNotes(ctx, u.g, u.tier, cut, st)
			st.Free()
			if err != nil {
				return err
			}
			for i, byPart := range [][]loopy.Notes{held, won, tied} {
				for k, ns := range byPart {
					if err := files[i].add(k, ns); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}()
	if err == nil {
		u.computed() // the files' ends and uploads overlap the next unit
	}
	res := &api.PartResult{Next: -1, Rem: c.Header().MaxRemoteness, Ties: c.Header().Tie > 0}
	for _, f := range files {
		if cerr := f.close(err == nil); err == nil {
			err = cerr
		}
		res.Notes += f.count
	}
	if err != nil {
		return 0, err
	}
	u.out.part = res
	return u.Hi - u.Lo, nil
}

// writePart writes a part to a new file at path with write: its
// checkpoint (loopy.Part.Checkpoint) or its spill (loopy.Part.Spill).
func writePart(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sentNotes writes notes for the parts as they are made: a round's for
// the other parts (loopy.Part.StepTo, role RoleNotes), or a KidNotes
// unit's of one role: a notes file to each part it has notes for,
// outputs of the unit (of role) once it is done. Notes for part from are
// dropped (a part's own), and all of them unless mine: a replayed
// round's were sent.
type sentNotes struct {
	out   *outputs
	t     tiergame.Tier
	role  string
	from  int
	mine  bool
	files map[int]*notesFile
	count uint64
}

// notesFile is a notes file being written, in the worker's folder.
type notesFile struct {
	f  *os.File
	nw *loopy.NotesWriter
}

// add writes notes for part k.
func (s *sentNotes) add(k int, ns loopy.Notes) error {
	if !s.mine || k == s.from || len(ns) == 0 {
		return nil
	}
	nf := s.files[k]
	if nf == nil {
		if s.files == nil {
			s.files = map[int]*notesFile{}
		}
		f, err := os.CreateTemp(filepath.Join(s.out.w.cfg.Dir), "notes-*")
		if err != nil {
			return err
		}
		nf = &notesFile{f: f}
		s.files[k] = nf
		if nf.nw, err = loopy.NewNotesWriter(f); err != nil {
			return err
		}
	}
	s.count += uint64(len(ns))
	return nf.nw.Write(ns)
}

// close ends the files and, if keep, makes them the unit's outputs, by
// part; it removes what is left.
func (s *sentNotes) close(keep bool) error {
	var err error
	for _, k := range slices.Sorted(maps.Keys(s.files)) {
		nf := s.files[k]
		if err == nil && keep {
			err = nf.nw.Close()
		}
		if cerr := nf.f.Close(); err == nil {
			err = cerr
		}
		if err == nil && keep {
			err = s.out.add(s.t, func(path string) error { return os.Rename(nf.f.Name(), path) })
			if err == nil {
				s.out.outs[len(s.out.outs)-1].Role, s.out.outs[len(s.out.outs)-1].Part = s.role, k
			}
		}
		os.Remove(nf.f.Name())
	}
	return err
}
