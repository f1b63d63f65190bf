package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// The rounds of a loopy tier solved in parts (api.Part): the worker runs
// a part's round with the solver's Part, as solver's solveLoopyParts does
// in one process. It keeps the part in memory after its round, for its
// next round (the leader grants it to this worker while it is present);
// a worker without it restores it from the part's last checkpoint and
// replays the rounds since, from the notes they read.

// checkpointEvery is how many rounds a part runs between checkpoints:
// a checkpoint costs about the part's cells compressed (written,
// uploaded, copied), a round lost with its worker costs the rounds since
// the checkpoint again, replayed by the worker that takes the part over.
// A round that replayed rounds writes one too, whatever the count: a
// worker that runs more parts than its memory keeps (the others busy)
// restores them round after round, and without it each replayed every
// round since the last checkpoint (K+R+N v K+A+A+B at 139 MiB: one
// worker ran three parts of a tier, each restored from its first pass
// with 1, 2, ... 7 rounds to replay).
const checkpointEvery = 8

// partKey names a part of a run's tier.
type partKey struct {
	run  string
	tier uint64
	part int
}

// heldPart is a part kept in memory after a round.
type heldPart struct {
	part  *solver.Part
	round int
}

// Free frees the part, when the memory drops it.
func (h *heldPart) Free() { h.part.Free() }

// part runs a round of a part (api.PartWork): from the part held in
// memory, its checkpoint or its first pass, through the rounds since;
// the outputs are those of the last round.
func (w *Worker) part(ctx context.Context, u *unit) (uint64, error) {
	pw := u.Part
	if pw == nil || len(pw.Steps) == 0 {
		return 0, errors.New("a part unit without its rounds")
	}
	set, release, err := w.tierSet(ctx, u.g, u.own, setSource{name: u.Set, level: u.Level})
	if err != nil {
		return 0, err
	}
	defer release()
	cut := solver.Cut{Bounds: pw.Bounds}
	e := solver.Effort{Workers: w.cfg.Threads}
	key := partKey{u.Ref.Run, u.Ref.Tier, pw.Part}
	last := pw.Steps[len(pw.Steps)-1]
	var p *solver.Part
	at := -1
	if h, ok := w.mem.parts.take(key); ok {
		p, at = h.part, h.round
		if at+1 < pw.Steps[0].Round || at >= last.Round {
			p.Free() // not on the way to this round
			p = nil
		}
	}
	// The round's cells and what it reads beside the shelves: the leader's
	// estimate, for which the memory makes room (the tier's set is on
	// its shelf).
	releaseRound, err := w.reserveUnit(ctx, u, u.Bytes, setBytes(u.g, u.tier))
	if err != nil {
		if p != nil {
			p.Free()
		}
		return 0, err
	}
	defer releaseRound()
	// What a first pass holds past its estimate (partGrowth).
	growth := &partGrowth{mem: w.mem.memory, own: u.own, counted: int64(u.Hi - u.Lo)}
	defer growth.release()
	replayed := 0
	if p == nil && pw.Checkpoint != nil {
		if p, err = w.restorePart(ctx, u, set, cut, pw, e); err != nil {
			return 0, err
		}
		at = pw.CheckpointRound
		replayed = last.Round - at - 1
		w.unitLog(u.Assignment).Info("took a part over from its checkpoint", "part", pw.Part, "checkpoint_round", at,
			"replayed_rounds", replayed)
	}
	keep := false
	defer func() {
		if !keep && p != nil {
			p.Free()
		}
	}()
	res := &api.PartResult{Next: -1}
	var positions uint64
	for _, step := range pw.Steps {
		if step.Round <= at {
			continue
		}
		mine := step.Round == last.Round // only its outputs are new
		switch {
		case step.Round == 0:
			if p != nil {
				return 0, fmt.Errorf("part %d: a first pass of a part under way", pw.Part)
			}
			var tied solver.Notes
			if p, tied, err = w.firstPass(ctx, u, set, cut, pw.Part, e, growth.update); err != nil {
				return 0, err
			}
			if mine && len(tied) > 0 {
				if err := u.out.notes(u.tier, tied, api.RoleTied, 0); err != nil {
					return 0, err
				}
			}
		case p == nil:
			return 0, fmt.Errorf("part %d: round %d without the part's checkpoint", pw.Part, step.Round)
		case step.Records:
			st := p.Solved()
			positions = st.Len()
			u.computed()
			if err := u.out.add(u.tier, func(path string) error {
				_, err := solver.WriteSolvedDB(path, u.g, st, &valuedb.WriteOptions{Workers: outputWorkers, NoSync: true})
				return err
			}); err != nil {
				return 0, err
			}
			u.out.outs[len(u.out.outs)-1].Role = api.RoleRecords
			res.Bytes = p.Bytes()
			u.out.part = res
			return positions, nil
		default:
			// The notes it reads are applied a section at a time, not
			// held whole.
			paths, err := w.disk.paths(ctx, step.In)
			if err != nil {
				return 0, err
			}
			receive := func(ns solver.Notes) error { return p.Receive(ctx, step.Level, ns) }
			if step.Ties {
				err = p.StartTies(ctx, nil)
				receive = func(ns solver.Notes) error { return p.Apply(ctx, ns) }
			}
			for _, path := range paths {
				if err == nil {
					err = eachNotes(path, receive)
				}
			}
			if err == nil && !step.Ties {
				// The notes for the other parts go to their files as
				// they are made; a replayed round's were sent already.
				sent := &sentNotes{out: u.out, t: u.tier, from: pw.Part, mine: mine}
				err = p.StepTo(ctx, step.Level, nil, sent.add)
				if cerr := sent.close(err == nil); err == nil {
					err = cerr
				}
				res.Notes += sent.count
			}
			if err != nil {
				return 0, err
			}
		}
		at = step.Round
	}
	res.Next, res.Bytes = p.Next(last.Level), p.Bytes()
	u.out.part = res
	u.computed()
	if last.Round == 0 || len(pw.Steps) >= checkpointEvery || replayed > 0 {
		if err := u.out.add(u.tier, func(path string) error { return writeCheckpoint(path, p) }); err != nil {
			return 0, err
		}
		u.out.outs[len(u.out.outs)-1].Role = api.RoleCheckpoint
	}
	// The part is counted on its shelf from now on, not in the round's
	// room too: counted twice, it would drop the other parts held.
	growth.release()
	releaseRound()
	w.mem.parts.put(key, u.own, &heldPart{p, last.Round}, int64(p.Bytes()))
	keep = true
	return positions, nil
}

// partGrowth makes room in the memory, beside a first pass's
// reservation, for what the part holds past the cells the leader's
// estimate counts (solver.PartFirstPassBytes: a byte a hash): the tables
// beside its cells (solver.Part.Bytes), which its child tiers' notes grow
// (8 bytes an entry, some MiB beside 25 MiB of cells for K+R+N v K+A+B+B
// in 4 parts; 20 MiB when they were Go maps) and no estimate knows before
// a first pass reports them.
type partGrowth struct {
	mem      *memory
	own      owner
	counted  int64 // the estimate's cells
	held     int64
	releases []func()
}

// update holds what part p holds now past the estimate, if more than
// before.
func (g *partGrowth) update(p *solver.Part) {
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

// restorePart reads a part from its checkpoint.
func (w *Worker) restorePart(ctx context.Context, u *unit, set *bitarray.Ranked, cut solver.Cut, pw *api.PartWork, e solver.Effort) (*solver.Part, error) {
	paths, err := w.disk.paths(ctx, []api.Blob{*pw.Checkpoint})
	if err != nil {
		return nil, err
	}
	f, err := os.Open(paths[0])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return solver.RestorePart(ctx, f, u.g, u.tier, set, cut, pw.Part, e)
}

// eachNotes reads a notes file a section at a time (solver.EachNotes).
func eachNotes(path string, f func(solver.Notes) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := solver.EachNotes(file, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// firstPass makes part k (solver.NewPart) and applies its child tiers'
// notes, made from their databases a range at a time
// (solver.OpenSolved, solver.ChildNotes), one child tier open at a time:
// every child's held notes, then their won notes (kept in files
// meanwhile); it returns the part and its tied notes, read again when
// ties start. It calls grown with the part as it grows (its side tables).
func (w *Worker) firstPass(ctx context.Context, u *unit, set *bitarray.Ranked, cut solver.Cut, k int, e solver.Effort, grown func(*solver.Part)) (*solver.Part, solver.Notes, error) {
	paths := make([][]string, len(u.Kids))
	maxRem, maxTie := 0, -1
	for i, ki := range u.Kids {
		if ki.DB == nil {
			return nil, nil, fmt.Errorf("child tier %d has no database yet", ki.Tier)
		}
		var err error
		if paths[i], err = w.disk.paths(ctx, []api.Blob{ki.Level, *ki.DB}); err != nil {
			return nil, nil, err
		}
		// The headers first: the part's cells are laid out for the
		// children's longest remoteness.
		h, err := dbHeader(paths[i][1])
		if err != nil {
			return nil, nil, err
		}
		maxRem = max(maxRem, h.MaxRemoteness)
		if h.Tie > 0 {
			maxTie = max(maxTie, h.MaxRemoteness)
		}
	}
	p, err := solver.NewPart(ctx, u.g, u.tier, set, cut, k, maxRem, maxTie, e)
	if err != nil {
		return nil, nil, err
	}
	grown(p)
	ok := false
	defer func() {
		if !ok {
			p.Free()
		}
	}()
	dir, err := os.MkdirTemp(filepath.Join(w.cfg.Dir), "won-*")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	var won []string
	var tied solver.Notes
	// child applies the held notes of child tier i, keeping its won and
	// tied ones; its set is freed before the next is loaded.
	child := func(i int) error {
		c, err := solver.OpenSolved(u.g, tiergame.Tier(u.Kids[i].Tier), paths[i][0], paths[i][1])
		if err != nil {
			return err
		}
		defer c.Close()
		count := c.Header().Count
		for lo := uint64(0); lo < count; lo += solver.ChildChunk {
			st, err := c.Range(lo, min(lo+solver.ChildChunk, count), w.cfg.Threads)
			if err != nil {
				return err
			}
			h, wn, ti, err := solver.ChildNotes(ctx, u.g, u.tier, cut, st)
			st.Free()
			if err != nil {
				return err
			}
			if err := p.Apply(ctx, h[k]); err != nil {
				return err
			}
			grown(p)
			tied = append(tied, ti[k]...)
			if len(wn[k]) == 0 {
				continue
			}
			path := filepath.Join(dir, fmt.Sprintf("%d", len(won)))
			if err := writeNotesFile(path, wn[k]); err != nil {
				return err
			}
			won = append(won, path)
		}
		return nil
	}
	for i := range u.Kids {
		if err := child(i); err != nil {
			return nil, nil, err
		}
	}
	for _, path := range won {
		if err := eachNotes(path, func(ns solver.Notes) error { return p.Apply(ctx, ns) }); err != nil {
			return nil, nil, err
		}
		grown(p)
	}
	if err := p.EndFirstPass(); err != nil {
		return nil, nil, err
	}
	ok = true
	return p, tied, nil
}

// dbHeader reads the header of a value database.
func dbHeader(path string) (valuedb.Header, error) {
	db, err := valuedb.Open(path)
	if err != nil {
		return valuedb.Header{}, err
	}
	defer db.Close()
	return db.Header(), nil
}

func writeCheckpoint(path string, p *solver.Part) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.Checkpoint(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeNotesFile(path string, ns solver.Notes) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := solver.WriteNotes(f, ns); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sentNotes writes a round's notes for the other parts as the part
// makes them (solver.Part.StepTo): a notes file to each part it has
// notes for, outputs of the round (RoleNotes) once the level is done.
// Unless mine, the notes are dropped: a replayed round's were sent.
type sentNotes struct {
	out   *outputs
	t     tiergame.Tier
	from  int
	mine  bool
	files map[int]*notesFile
	count uint64
}

// notesFile is a notes file being written, in the worker's folder.
type notesFile struct {
	f  *os.File
	nw *solver.NotesWriter
}

// add writes notes for part k.
func (s *sentNotes) add(k int, ns solver.Notes) error {
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
		if nf.nw, err = solver.NewNotesWriter(f); err != nil {
			return err
		}
	}
	s.count += uint64(len(ns))
	return nf.nw.Write(ns)
}

// close ends the files and, if keep, makes them the round's outputs, by
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
				s.out.outs[len(s.out.outs)-1].Role, s.out.outs[len(s.out.outs)-1].Part = api.RoleNotes, k
			}
		}
		os.Remove(nf.f.Name())
	}
	return err
}

// notes writes notes for part (role RoleNotes) or the part's tied notes
// (RoleTied) as an output.
func (o *outputs) notes(t tiergame.Tier, ns solver.Notes, role string, part int) error {
	if err := o.add(t, func(path string) error { return writeNotesFile(path, ns) }); err != nil {
		return err
	}
	o.outs[len(o.outs)-1].Role, o.outs[len(o.outs)-1].Part = role, part
	return nil
}
