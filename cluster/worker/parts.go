package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	// estimate, for which the memory makes room.
	defer w.mem.reserve(u.own, u.Bytes)()
	if p == nil && pw.Checkpoint != nil {
		if p, err = w.restorePart(ctx, u, set, cut, pw, e); err != nil {
			return 0, err
		}
		at = pw.CheckpointRound
		w.unitLog(u.Assignment).Info("took a part over from its checkpoint", "part", pw.Part, "checkpoint_round", at,
			"replayed_rounds", last.Round-at-1)
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
			if p, tied, err = w.firstPass(ctx, u, set, cut, pw.Part, e); err != nil {
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
			in, err := w.readNotes(ctx, step.In)
			if err != nil {
				return 0, err
			}
			if step.Ties {
				err = p.StartTies(ctx, in)
			} else {
				var outs []solver.Notes
				outs, err = p.Step(ctx, step.Level, in)
				for k, ns := range outs {
					if err == nil && mine && k != pw.Part && len(ns) > 0 {
						res.Notes += uint64(len(ns))
						err = u.out.notes(u.tier, ns, api.RoleNotes, k)
					}
				}
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
	if last.Round == 0 || len(pw.Steps) >= checkpointEvery {
		if err := u.out.add(u.tier, func(path string) error { return writeCheckpoint(path, p) }); err != nil {
			return 0, err
		}
		u.out.outs[len(u.out.outs)-1].Role = api.RoleCheckpoint
	}
	w.mem.parts.put(key, u.own, &heldPart{p, last.Round}, int64(p.Bytes()))
	keep = true
	return positions, nil
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

// readNotes reads notes files.
func (w *Worker) readNotes(ctx context.Context, blobs []api.Blob) (solver.Notes, error) {
	paths, err := w.disk.paths(ctx, blobs)
	if err != nil {
		return nil, err
	}
	var ns solver.Notes
	for _, path := range paths {
		if ns, err = readNotesFile(path, ns); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

func readNotesFile(path string, ns solver.Notes) (solver.Notes, error) {
	f, err := os.Open(path)
	if err != nil {
		return ns, err
	}
	defer f.Close()
	if ns, err = solver.ReadNotes(f, ns); err != nil {
		return ns, fmt.Errorf("%s: %w", path, err)
	}
	return ns, nil
}

// firstPass makes part k (solver.NewPart) and applies its child tiers'
// notes, made from their databases a range at a time
// (solver.LoadSolvedRange, solver.ChildNotes): every child's held notes,
// then their won notes (kept in files meanwhile); it returns the part
// and its tied notes, read again when ties start.
func (w *Worker) firstPass(ctx context.Context, u *unit, set *bitarray.Ranked, cut solver.Cut, k int, e solver.Effort) (*solver.Part, solver.Notes, error) {
	kids := make([]*solver.SolvedReader, 0, len(u.Kids))
	defer func() {
		for _, r := range kids {
			r.Close()
		}
	}()
	maxRem, maxTie := 0, -1
	for _, ki := range u.Kids {
		if ki.DB == nil {
			return nil, nil, fmt.Errorf("child tier %d has no database yet", ki.Tier)
		}
		paths, err := w.disk.paths(ctx, []api.Blob{ki.Level, *ki.DB})
		if err != nil {
			return nil, nil, err
		}
		r, err := solver.OpenSolved(u.g, tiergame.Tier(ki.Tier), paths[0], paths[1])
		if err != nil {
			return nil, nil, err
		}
		kids = append(kids, r)
		h := r.Header()
		maxRem = max(maxRem, h.MaxRemoteness)
		if h.Tie > 0 {
			maxTie = max(maxTie, h.MaxRemoteness)
		}
	}
	p, err := solver.NewPart(ctx, u.g, u.tier, set, cut, k, maxRem, maxTie, e)
	if err != nil {
		return nil, nil, err
	}
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
	for _, c := range kids {
		count := c.Header().Count
		for lo := uint64(0); lo < count; lo += solver.ChildChunk {
			st, err := c.Range(lo, min(lo+solver.ChildChunk, count), w.cfg.Threads)
			if err != nil {
				return nil, nil, err
			}
			h, wn, ti, err := solver.ChildNotes(ctx, u.g, u.tier, cut, st)
			st.Free()
			if err != nil {
				return nil, nil, err
			}
			if err := p.Apply(ctx, h[k]); err != nil {
				return nil, nil, err
			}
			tied = append(tied, ti[k]...)
			if len(wn[k]) == 0 {
				continue
			}
			path := filepath.Join(dir, fmt.Sprintf("%d", len(won)))
			if err := writeNotesFile(path, wn[k]); err != nil {
				return nil, nil, err
			}
			won = append(won, path)
		}
	}
	for _, path := range won {
		ns, err := readNotesFile(path, nil)
		if err != nil {
			return nil, nil, err
		}
		if err := p.Apply(ctx, ns); err != nil {
			return nil, nil, err
		}
	}
	if err := p.EndFirstPass(); err != nil {
		return nil, nil, err
	}
	ok = true
	return p, tied, nil
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

// notes writes notes for part (role RoleNotes) or the part's tied notes
// (RoleTied) as an output.
func (o *outputs) notes(t tiergame.Tier, ns solver.Notes, role string, part int) error {
	if err := o.add(t, func(path string) error { return writeNotesFile(path, ns) }); err != nil {
		return err
	}
	o.outs[len(o.outs)-1].Role, o.outs[len(o.outs)-1].Part = role, part
	return nil
}
