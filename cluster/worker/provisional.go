package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Provisional leases: a unit of a tier may be leased to the worker that
// holds, in memory, the results of the last units of its child tiers
// before their completions are recorded (api.KidInput.Mine). Its results
// are the same whoever computes them, so the worker starts the next tier
// as soon as a thread is free. It waits for those units to have computed
// their results, reads them in place, and reports after them; if one did
// not compute them, it gives the unit back (errNotMine), not failed.

// unitProgress is whether a unit leased to this worker whose results
// stay in memory (a range unit) has computed its records (ok, and recs,
// the window of the tier's records they are), once done is closed.
type unitProgress struct {
	once sync.Once
	ok   bool
	recs []valuedb.Record
	done chan struct{}
	// reported is closed once the unit's report is over (accepted or
	// not): a unit that read its records reports after it.
	reported chan struct{}
}

// finish records the unit's results computed (ok) or not; the first call
// counts.
func (p *unitProgress) finish(ok bool) {
	p.once.Do(func() {
		p.ok = ok
		close(p.done)
	})
}

// errNotMine: a unit leased provisionally whose inputs this worker was to
// compute itself, and did not (they failed, their lease was lost, or
// their records are no longer in memory). It is given back, not failed.
var errNotMine = errors.New("the results this unit reads provisionally are not this worker's")

// awaitMine waits until the units whose records a unit reads in place
// (kids' Mine) have computed them, and reports errNotMine if one did
// not, or was not leased to this worker.
func (w *Worker) awaitMine(ctx context.Context, kids []api.KidInput) error {
	for _, k := range kids {
		if len(k.Mine) > 0 {
			w.Provisional.Add(1)
		}
		for _, m := range k.Mine {
			w.mu.Lock()
			p := w.progress[m.Token]
			w.mu.Unlock()
			if p == nil {
				return fmt.Errorf("%v token %d: %w", m.Ref, m.Token, errNotMine)
			}
			select {
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if !p.ok || p.recs == nil {
				return fmt.Errorf("%v token %d: %w", m.Ref, m.Token, errNotMine)
			}
		}
	}
	return nil
}

// computedRecords keeps the records range unit token computed, for the
// units leased provisionally that read them (api.KidInput.Mine): they take
// them from here whether or not the tier's slice they were computed in
// is still in the memory cache.
func (w *Worker) computedRecords(token uint64, recs []valuedb.Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.progress[token]; p != nil {
		p.recs = recs // before its done closes (finish)
	}
}

// mineReported lists, for a unit leased provisionally, when the units it
// read will have reported: it reports after them (report's before).
func (w *Worker) mineReported(a *api.Assignment) []<-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []<-chan struct{}
	for _, k := range a.Kids {
		for _, m := range k.Mine {
			if p := w.progress[m.Token]; p != nil {
				out = append(out, p.reported)
			}
		}
	}
	return out
}

// holding lists the tokens of the range units whose records this worker
// holds in memory or is computing, not reported yet (api.LeaseRequest.Holding):
// the units a unit leased provisionally may read.
func (w *Worker) holding() []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var tokens []uint64
	for token, p := range w.progress {
		select {
		case <-p.done:
			if !p.ok {
				continue
			}
		default:
		}
		tokens = append(tokens, token)
	}
	return tokens
}
