package coordinator

import (
	"context"
	"sync"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/levelfile"
	"github.com/tiersolve/tiersolve/solver/reach"
	"github.com/tiersolve/tiersolve/tiergame"
)

// premerger merges a tier's partial level files on the leader while its
// parents are still being expanded, as their units' results are accepted,
// so that when the last one arrives only its partials are left to merge
// before the tier is cut. It only saves time: mergeLevel merges whatever
// it did not, and a new leader starts with none.
type premerger struct {
	n   *Node
	ctx context.Context
	wg  sync.WaitGroup

	mu   sync.Mutex
	sets map[premergeKey]*premerged
	done bool // wait was called: no more merges start
}

type premergeKey struct {
	run  string
	tier uint64
}

// premerged is a tier's set so far: the union of the partials named in
// merged (and the start position in the start tier).
type premerged struct {
	mu     sync.Mutex // held while merging into set
	set    *bitarray.Set
	merged map[string]bool
	busy   bool // a goroutine is merging
}

// maxPremerged bounds the tiers merged ahead at once (each holds a bit
// per position of its hash space): the oldest tiers first.
const maxPremerged = 2

func newPremerger(ctx context.Context, n *Node) *premerger {
	return &premerger{n: n, ctx: ctx, sets: map[premergeKey]*premerged{}}
}

// update starts merging the accepted partials of the loop-free tiers that
// are not cut yet; s is the state (read under the FSM's lock).
func (p *premerger) update(s *state.State) {
	type work struct {
		key    premergeKey
		run    *state.Run
		tier   tiergame.Tier
		inputs []api.Blob
	}
	var todo []work
	for _, r := range s.Runs {
		if r.State != api.Running || r.Exhaustive {
			continue
		}
		for _, t := range r.Tiers {
			if len(todo) == maxPremerged {
				break
			}
			// Once the parents are expanded, the tier's merge (mergeLevel)
			// takes over.
			if t.Loopy || t.Level != nil || r.ParentsExpanded(t) {
				continue
			}
			if in := r.CloseInputs(t); len(in) > 0 {
				todo = append(todo, work{premergeKey{r.ID, t.Tier}, r, tiergame.Tier(t.Tier), in})
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	for _, w := range todo {
		pm := p.entry(w.key)
		if pm == nil {
			continue
		}
		if pm.busy {
			continue // it looks again when it is done
		}
		pm.busy = true
		g, err := p.n.games.Get(w.run.Game, w.run.Option, w.run.Settings.Symmetry)
		if err != nil {
			pm.busy = false
			continue
		}
		p.start(pm, g, w.tier, w.inputs)
	}
}

// entry returns a tier's premerged set, new if it has none and fewer
// than maxPremerged tiers have one, else nil; p.mu is held.
func (p *premerger) entry(key premergeKey) *premerged {
	pm := p.sets[key]
	if pm == nil && len(p.sets) < maxPremerged {
		pm = &premerged{merged: map[string]bool{}}
		p.sets[key] = pm
	}
	return pm
}

// early starts merging the partial level files of a unit whose
// completion the leader is about to propose (s is the state, read under
// the FSM's lock), while it replicates them and proposes: when the unit is
// the last of a tier's parents, the tier's cut then finds its partials
// merged. Should the completion fail after all, mergeLevel drops the set,
// which holds a partial the state does not name.
func (p *premerger) early(s *state.State, ref api.UnitRef, outs []api.Output) {
	r := s.Run(ref.Run)
	if r == nil || r.State != api.Running || r.Exhaustive || p.ctx.Err() != nil {
		return
	}
	g, err := p.n.games.Get(r.Game, r.Option, r.Settings.Symmetry)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	for _, o := range outs {
		t := r.Tier(o.Tier)
		if t == nil || t.Loopy || t.Level != nil {
			continue
		}
		pm := p.entry(premergeKey{r.ID, t.Tier})
		if pm == nil {
			continue
		}
		p.start(pm, g, tiergame.Tier(t.Tier), []api.Blob{o.Blob})
	}
}

// start merges inputs into pm on a goroutine that wait waits for; p.mu
// is held.
func (p *premerger) start(pm *premerged, g tiergame.Game, t tiergame.Tier, inputs []api.Blob) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.merge(pm, g, t, inputs)
	}()
}

// merge merges into pm the inputs it does not hold yet.
func (p *premerger) merge(pm *premerged, g tiergame.Game, t tiergame.Tier, inputs []api.Blob) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	defer func() {
		p.mu.Lock()
		pm.busy = false
		p.mu.Unlock()
	}()
	if pm.set == nil {
		set, err := reach.MergeTier(p.ctx, g, t, nil, 1)
		if err != nil {
			return
		}
		pm.set = set
	}
	var todo []api.Blob
	for _, b := range inputs {
		if !pm.merged[b.SHA256] {
			todo = append(todo, b)
		}
	}
	paths, err := p.n.localPaths(p.ctx, todo)
	if err != nil {
		return
	}
	if err := levelfile.MergeInto(p.ctx, pm.set, paths, &levelfile.MergeOptions{Workers: 1}); err != nil {
		pm.set, pm.merged = nil, map[string]bool{} // half merged: start again
		return
	}
	for _, b := range todo {
		pm.merged[b.SHA256] = true
	}
}

// take removes and returns the set merged so far for a tier, and the
// names of the partials in it, waiting for a merge under way; it returns
// nil if there is none.
func (p *premerger) take(run string, tier uint64) (*bitarray.Set, map[string]bool) {
	p.mu.Lock()
	pm := p.sets[premergeKey{run, tier}]
	delete(p.sets, premergeKey{run, tier})
	p.mu.Unlock()
	if pm == nil {
		return nil, nil
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	return pm.set, pm.merged
}

// forget drops the sets of tiers that are cut (or of runs that ended)
// without their merge having taken them.
func (p *premerger) forget(s *state.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.sets {
		r := s.Run(k.run)
		if r == nil || r.State != api.Running || r.Tier(k.tier) == nil || r.Tier(k.tier).Level != nil {
			delete(p.sets, k)
		}
	}
}

// wait waits for the merges under way (they stop early once ctx is
// done); none starts after it.
func (p *premerger) wait() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	p.wg.Wait()
}
