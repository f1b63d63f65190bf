package worker

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/solver/loopy"
)

// spills are the parts this worker kept on its own disk when its memory
// dropped them for room (heldPart.Evict): a worker that runs more parts
// than its memory keeps (a tier in more parts than the workers present,
// at a budget where two of its parts do not fit together) reads a part
// back from there for its next round, rather than restoring its last
// checkpoint, replaying the rounds since and writing a new checkpoint
// for the coordinators to store (K+R+N v K+R+A's top tier in 5 parts on 4
// workers at a quarter: 146 of that worker's 322 CPU-s, and 3.1 GB of
// checkpoints). A spill is the worker's alone, never uploaded nor synced:
// lost with the worker, its part is taken over from its checkpoint as
// before.
type spills struct {
	dir   string
	log   *slog.Logger
	mu    sync.Mutex
	parts map[partKey]spilled
}

// spilled is a part on the worker's disk: its file, the round it is
// after, and the time its rounds since its last checkpoint took here.
type spilled struct {
	path  string
	round int
	since time.Duration
}

// newSpills keeps spilled parts in dir, emptied first: what a worker
// before this one spilled there is no part of this one's.
func newSpills(dir string, log *slog.Logger) (*spills, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &spills{dir: dir, log: log, parts: map[partKey]spilled{}}, nil
}

// put writes h's part to the disk under key. The memory calls it as it
// drops the part for room, its lock held: the part's memory counts as
// free only once it is written, so the worker never holds it beside what
// the room is for. A spill that fails is logged and dropped: the part's
// checkpoint stands for it.
func (s *spills) put(key partKey, h *heldPart) {
	start := time.Now()
	path := filepath.Join(s.dir, fmt.Sprintf("%s-%d-%d-%d-%d.part", url.PathEscape(key.run), key.tier, key.part, key.lo, key.hi))
	err := writePart(path, h.part.Spill)
	if err != nil {
		os.Remove(path)
		s.log.Warn("could not keep a part on disk: its next round here restores its checkpoint", "run", key.run, "tier", key.tier,
			"part", key.part, "err", err)
		return
	}
	s.mu.Lock()
	s.parts[key] = spilled{path: path, round: h.round, since: h.since}
	s.mu.Unlock()
	s.log.Info("kept a part on disk: no room for it in memory beside the next unit", "run", key.run, "tier", key.tier,
		"part", key.part, "round", h.round, "bytes", h.part.Bytes(), "seconds", time.Since(start).Seconds())
}

// take removes the part spilled under key from the spills and returns
// it; the caller removes its file once read.
func (s *spills) take(key partKey) (spilled, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.parts[key]
	delete(s.parts, key)
	return sp, ok
}

// retire removes the parts of run's tiers not in live.
func (s *spills) retire(run string, live []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, sp := range s.parts {
		if key.run == run && !slices.Contains(live, key.tier) {
			os.Remove(sp.path)
			delete(s.parts, key)
		}
	}
}

// unspill reads the part back from the worker's disk if the worker
// spilled it there after a round on the way to the unit's (as a part
// held in memory: heldPart), with no round replayed; else it leaves r
// as it is, for the part's checkpoint.
func (r *partRound) unspill(ctx context.Context, key partKey) error {
	sp, ok := r.w.spills.take(key)
	if !ok {
		return nil
	}
	defer os.Remove(sp.path)
	if sp.round+1 < r.pw.Steps[0].Round || sp.round >= r.pw.Steps[len(r.pw.Steps)-1].Round {
		return nil // not on the way to this round
	}
	f, err := os.Open(sp.path)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := loopy.RestorePart(ctx, f, r.u.g, r.u.tier, r.set, r.cut, r.pw.Part, r.e)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.w.unitLog(r.u.Assignment).Warn("a part kept on disk does not read back: restoring its checkpoint", "part", r.pw.Part, "err", err)
		return nil
	}
	r.p, r.at, r.since = p, sp.round, sp.since
	return nil
}
