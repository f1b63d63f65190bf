package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/tiergame"
)

// leadership is this node's term as leader: the merges it runs, stopped
// when it loses the lead.
type leadership struct {
	n      *Node
	term   uint64 // the raft term it leads
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	running  map[state.Task]bool // merges under way
	failures map[state.Task]int
	retryAt  map[state.Task]time.Time

	pre *premerger // tiers merged ahead of their cut
}

// maxMerges is how many merges run at once; each uses all the node's
// merge goroutines, so more would only compete.
const maxMerges = 2

// elected starts a term: it waits until the state holds every entry of
// earlier terms (until then the API answers 503), records the members if
// they are not yet, restarts the timer of every lease it inherits, and
// presumes present, for a lease's time to live, the workers the state
// names (workerTable.presume). It returns nil if the wait failed; the
// next tick tries again.
func (n *Node) elected() *leadership {
	if err := n.raft.Barrier(10 * time.Second).Error(); err != nil {
		n.log.Warn("barrier after election failed", "error", err)
		return nil
	}
	l := &leadership{n: n, term: n.raft.CurrentTerm(), running: map[state.Task]bool{}, failures: map[state.Task]int{}, retryAt: map[state.Task]time.Time{}}
	l.ctx, l.cancel = context.WithCancel(n.ctx)
	l.pre = newPremerger(l.ctx, n)
	n.premerge.Store(l.pre)
	var tokens []uint64
	var members []api.Member
	var holders []string
	n.fsm.View(func(s *state.State, _ uint64) {
		members = s.Members
		for _, r := range s.Runs {
			for _, le := range r.Leases {
				tokens = append(tokens, le.Token)
			}
		}
		holders = s.Holders()
	})
	now := time.Now()
	n.leases.reset(now, tokens)
	n.workers.presume(holders, now.Add(n.cfg.LeaseTTL))
	if len(members) == 0 && len(n.known) > 0 {
		if _, err := n.propose(state.SetMembers(n.known)); err != nil {
			n.log.Warn("recording the members", "error", err)
		}
	}
	n.metrics.elections.Inc()
	n.ready.Store(true)
	n.log.Info("elected leader", "leases", len(tokens))
	return l
}

// stop ends the term and waits for its merges to stop.
func (l *leadership) stop() {
	l.n.ready.Store(false)
	l.n.premerge.Store(nil)
	l.cancel()
	l.wg.Wait()
	l.pre.wait()
}

// tick expires the leases past their deadline and starts the merges the
// state calls for.
func (l *leadership) tick() {
	n := l.n
	now := time.Now()
	if expired := n.leases.expired(now); len(expired) > 0 {
		refs := map[uint64]api.UnitRef{}
		n.fsm.View(func(s *state.State, _ uint64) {
			for _, r := range s.Runs {
				for ref, le := range r.Leases {
					refs[le.Token] = ref
				}
			}
		})
		for _, tok := range expired {
			n.leases.forget(tok)
			ref, ok := refs[tok]
			if !ok {
				continue // completed or released meanwhile
			}
			if _, err := n.propose(state.Release(ref, tok, "")); err != nil {
				n.log.Warn("expiring a lease", "ref", ref, "error", err)
				continue
			}
			n.metrics.leasesExpired.Inc()
			n.log.Info("lease expired", "run", ref.Run, "tier", ref.Tier, "phase", ref.Phase, "unit", ref.Index, "token", tok)
		}
	}
	var tasks []state.Task
	var outdated, reasons []string
	largest := largestBudget(n.workers.list(now, 2*n.cfg.LeaseTTL))
	n.fsm.View(func(s *state.State, _ uint64) {
		tasks = append(s.Tasks(), s.Oversized(largest)...)
		outdated, reasons = s.Outdated()
		l.pre.forget(s)
		l.pre.update(s)
	})
	for i, id := range outdated {
		if _, err := n.propose(state.Finish(id, now.UTC(), nil, reasons[i])); err != nil {
			n.log.Warn("failing a run of another state format", "run", id, "error", err)
			continue
		}
		n.log.Error("failed a run of another state format", "run", id, "reason", reasons[i])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, task := range tasks {
		if len(l.running) >= maxMerges {
			break
		}
		if l.running[task] || now.Before(l.retryAt[task]) {
			continue
		}
		l.running[task] = true
		l.wg.Add(1)
		go l.run(task)
	}
}

// run does one leader task, retrying later if it fails; a task that keeps
// failing fails its run.
func (l *leadership) run(task state.Task) {
	defer l.wg.Done()
	n := l.n
	t0 := time.Now()
	err := n.doTask(l.ctx, task, l.pre)
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, task)
	if task.Kind == state.TaskRecut {
		// Not a merge: the tier waits as before if it fails, and the
		// state asks for it again (if it still should) after a while.
		l.retryAt[task] = time.Now().Add(10 * time.Second)
		if err != nil && l.ctx.Err() == nil {
			n.log.Warn("cutting a loopy tier into parts", "run", task.Run, "tier", task.Tier, "error", err)
		}
		return
	}
	if err == nil {
		n.log.Info("merged", "run", task.Run, "task", task.Kind, "tier", task.Tier, "seconds", time.Since(t0).Seconds())
		return
	}
	if l.ctx.Err() != nil {
		return // lost the lead: the next leader redoes it
	}
	if errors.Is(err, blobstore.ErrUnavailable) {
		// The object store is away: not the merge's fault. Wait for it.
		l.retryAt[task] = time.Now().Add(2 * time.Second)
		n.log.Warn("merge waits for the object store", "run", task.Run, "task", task.Kind, "tier", task.Tier, "error", err)
		return
	}
	if diskFull(err) {
		// Not the task's failure: this node's disk. Another coordinator
		// leads and redoes it.
		n.diskIsFull(err)
		l.retryAt[task] = time.Now().Add(time.Second)
		return
	}
	l.failures[task]++
	l.retryAt[task] = time.Now().Add(time.Duration(l.failures[task]) * time.Second)
	n.log.Error("merge failed", "run", task.Run, "task", task.Kind, "tier", task.Tier, "attempt", l.failures[task], "error", err)
	if l.failures[task] >= state.MaxFailures {
		msg := fmt.Sprintf("%s of tier %d failed %d times: %v", task.Kind, task.Tier, l.failures[task], err)
		if _, err := n.propose(state.Finish(task.Run, time.Now().UTC(), nil, msg)); err != nil {
			n.log.Warn("failing the run", "run", task.Run, "error", err)
		}
	}
}

// taskInputs is what a leader task reads, copied out of the state.
type taskInputs struct {
	run   state.Run
	tier  state.Tier
	blobs []api.Blob
	solve []*state.Unit
	start *state.Tier // the start tier, for TaskFinish
}

// doTask does one leader task (merge.go).
func (n *Node) doTask(ctx context.Context, task state.Task, pre *premerger) error {
	var in taskInputs
	var g tiergame.Game
	var err error
	n.fsm.View(func(s *state.State, _ uint64) {
		r := s.Run(task.Run)
		if r == nil {
			err = fmt.Errorf("no run %s", task.Run)
			return
		}
		in.run = *r
		if t := r.Tier(task.Tier); t != nil {
			in.tier = *t
			in.blobs = r.LevelInputs(t)
			in.solve = slices.Clone(t.Solve)
		}
		g, err = n.games.Get(r.Game, r.Option, r.Settings.Symmetry)
		if err != nil {
			return
		}
		st, _ := g.Start()
		in.start = r.Tier(uint64(st))
	})
	if err != nil {
		return err
	}
	switch task.Kind {
	case state.TaskLevel:
		return n.mergeLevel(ctx, g, in, pre)
	case state.TaskDB:
		return n.mergeDB(ctx, g, in)
	case state.TaskFinish:
		return n.finishRun(ctx, g, in)
	case state.TaskRecut:
		return n.recut(ctx, g, in)
	}
	return fmt.Errorf("unknown task %q", task.Kind)
}
