package coordinator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// The leader's side of a unit's life: it is granted (with everything its
// worker reads: state.State.Assignment), completed (once its outputs are
// durably stored) or released. What differs by kind of unit is the
// state's (internal/state/kinds.go).

// grant leases the next unit to tk, or returns nil if there is no work
// now, or if granting it would leave fewer than keepFree units free. A
// request that was granted a unit already, whose answer was lost (the
// leader that granted it failed first), is answered that unit again.
func (n *Node) grant(tk state.Taker, keepFree int) (*api.Assignment, error) {
	n.grantMu.Lock()
	defer n.grantMu.Unlock()
	if a := n.grantedBefore(tk); a != nil {
		return a, nil
	}
	for {
		var ref api.UnitRef
		var ok bool
		n.fsm.View(func(s *state.State, _ uint64) {
			ref, ok = s.Pick(tk)
			// A unit only this worker may take (provisionally) leaves the
			// others' free units as they were.
			ok = ok && (keepFree == 0 || s.CountFree() > keepFree || !s.ReadyForAny(ref))
		})
		if !ok {
			return nil, nil
		}
		res, err := n.propose(state.Grant(ref, tk.Worker, tk.Request))
		if errors.Is(err, state.ErrUnavailable) || errors.Is(err, api.ErrNotRunning) {
			continue // the state moved on between the pick and the grant
		}
		if err != nil {
			return nil, err
		}
		token := res.(uint64)
		n.leases.start(time.Now(), token)
		n.metrics.leasesGranted.Inc()
		var a *api.Assignment
		n.fsm.View(func(s *state.State, _ uint64) { a = s.Assignment(ref, token) })
		if a == nil {
			continue
		}
		a.LeaseTTL = n.cfg.LeaseTTL.Seconds()
		a.Direct = n.artifacts.direct()
		return a, nil
	}
}

// grantedBefore returns the unit leased to tk's request already, if it
// was: the worker did not have the answer, and asks again. Its lease's
// time to live starts afresh, as for a grant.
func (n *Node) grantedBefore(tk state.Taker) *api.Assignment {
	var a *api.Assignment
	n.fsm.View(func(s *state.State, _ uint64) {
		if ref, token, ok := s.Granted(tk.Worker, tk.Request); ok {
			a = s.Assignment(ref, token)
		}
	})
	if a == nil {
		return nil
	}
	n.leases.start(time.Now(), a.Token)
	n.metrics.leasesAnsweredAgain.Inc()
	n.log.Info("answered again a lease granted before", "worker", tk.Worker, "run", a.Ref.Run, "tier", a.Ref.Tier,
		"phase", a.Ref.Phase, "unit", a.Ref.Index, "token", a.Token)
	a.LeaseTTL = n.cfg.LeaseTTL.Seconds()
	a.Direct = n.artifacts.direct()
	return a
}

// complete accepts a worker's result: its outputs must be in the store
// (received) and durably stored (kept) before the completion is
// proposed. A result whose lease is not current is refused and its
// outputs are discarded.
func (n *Node) complete(ctx context.Context, req *api.CompleteRequest) error {
	var current, done bool
	var valid bool
	n.fsm.View(func(s *state.State, _ uint64) {
		done = s.Accepted(req.Ref, req.Token)
		_, t, u := s.Unit(req.Ref)
		if u == nil {
			return
		}
		current = u.Lease != nil && u.Lease.Token == req.Token
		valid = state.Fits(t, u, req.Outputs)
	})
	switch {
	case done:
		return nil // a retried report
	case !current:
		n.metrics.completionsRefused.Inc()
		n.discard(req.Outputs)
		n.log.Warn("refused a stale completion", "worker", req.Worker, "run", req.Ref.Run, "tier", req.Ref.Tier,
			"phase", req.Ref.Phase, "unit", req.Ref.Index, "token", req.Token)
		return fmt.Errorf("%v token %d: %w", req.Ref, req.Token, api.ErrStale)
	case !valid:
		return fmt.Errorf("%v: %w", req.Ref, api.ErrBadOutputs)
	}
	blobs := make([]api.Blob, len(req.Outputs))
	for i, o := range req.Outputs {
		blobs[i] = o.Blob
	}
	release := n.guard.hold(blobs...)
	defer release()
	if err := n.artifacts.received(ctx, blobs); err != nil {
		return err
	}
	if pre := n.premerge.Load(); pre != nil {
		n.fsm.View(func(s *state.State, _ uint64) { pre.early(s, req.Ref, req.Outputs) })
	}
	if err := n.artifacts.keepReceived(ctx, blobs); err != nil {
		return err
	}
	if err := n.awaitCompletable(ctx, req.Ref); err != nil {
		return err
	}
	_, err := n.propose(state.Complete(req.Ref, state.Completion{
		Worker: req.Worker, Token: req.Token, Outputs: req.Outputs, Positions: req.Positions, Seconds: req.Seconds, Part: req.Part}))
	if errors.Is(err, api.ErrStale) {
		n.metrics.completionsRefused.Inc()
		release()
		n.discard(req.Outputs)
	}
	if err != nil {
		return err
	}
	n.leases.forget(req.Token)
	n.workers.completed(req.Worker, req.Positions)
	n.metrics.completions.Inc()
	n.metrics.positions.Add(float64(req.Positions))
	return nil
}

// awaitCompletable returns once a unit's completion may be recorded: a
// unit leased provisionally waits for the units it read to be (their
// completions are on their way from the same worker, which sends this one
// after them). It waits at most twice a lease's time to live, well within
// a client's attempt, then answers api.ErrNotReady (425): the worker
// asks again.
func (n *Node) awaitCompletable(ctx context.Context, ref api.UnitRef) error {
	if ref.Phase != api.PhaseSolve {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*n.cfg.LeaseTTL)
	defer cancel()
	for {
		changed := n.fsm.Changed()
		ready := true
		n.fsm.View(func(s *state.State, _ uint64) {
			if r, t, u := s.Unit(ref); u != nil && r.State == api.Running {
				ready = r.ChildrenSolved(t)
			}
		})
		if ready {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%v: %w", ref, api.ErrNotReady)
		case <-n.ctx.Done():
			return fmt.Errorf("%v: %w", ref, api.ErrNotReady)
		}
	}
}

// release ends a lease its worker gave up (failed, or shutting down).
func (n *Node) release(req *api.ReleaseRequest) error {
	_, err := n.propose(state.Release(req.Ref, req.Token, req.Error))
	n.leases.forget(req.Token)
	if req.Error != "" {
		n.log.Warn("a unit failed", "worker", req.Worker, "run", req.Ref.Run, "tier", req.Ref.Tier,
			"phase", req.Ref.Phase, "unit", req.Ref.Index, "error", req.Error)
	}
	return err
}

// discard deletes the outputs of a refused completion, unless the state
// refers to them or a completion or merge holds them (a blob is named by
// its content: the unit's accepted result may be the same bytes).
func (n *Node) discard(outs []api.Output) {
	sums := make([]string, 0, len(outs))
	for _, o := range outs {
		if blobstore.ValidName(o.Blob.SHA256) {
			sums = append(sums, o.Blob.SHA256)
		}
	}
	n.deleteUnneeded(sums, func(sum string) error { n.artifacts.drop(sum); return nil })
}
