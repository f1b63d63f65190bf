package coordinator

import (
	"sync"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// blobGuard keeps the deletion of unneeded blobs from racing the
// recording of new ones. Blobs are named by their content, so a blob no
// run needs now may be the very bytes a completion or a merge is about to
// record: the same unit solved again after a lost lease (its old lease's
// report is refused and its outputs discarded), or a second run of the
// same game while the first one's partials are collected. From the moment
// a completion checks the store for its outputs until the state names
// them, it holds them; a deletion reads the state afresh under the same
// lock and deletes only the blobs that neither the state nor a holder
// names. A blob deleted before its holder checked the store is missing at
// that check, and uploaded again.
type blobGuard struct {
	mu   sync.Mutex
	held map[string]int
}

// hold keeps blobs from deletion until release is called (more than once
// is harmless).
func (g *blobGuard) hold(blobs ...api.Blob) (release func()) {
	g.mu.Lock()
	if g.held == nil {
		g.held = map[string]int{}
	}
	for _, b := range blobs {
		g.held[b.SHA256]++
	}
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			for _, b := range blobs {
				if g.held[b.SHA256]--; g.held[b.SHA256] <= 0 {
					delete(g.held, b.SHA256)
				}
			}
			g.mu.Unlock()
		})
	}
}

// guardBatch is how many deletions share one fresh reading of the state.
const guardBatch = 64

// deleteUnneeded deletes, with del, those of sums that no run needs (by
// the state as it is at the deletion, not as it was when they were
// picked) and no completion or merge holds. It returns the sums deleted.
// It stops at the first deletion that fails (a store away: completions
// wait for the lock meanwhile; the next collection tries again).
func (n *Node) deleteUnneeded(sums []string, del func(sum string) error) map[string]bool {
	deleted := map[string]bool{}
	g := &n.guard
	failed := false
	for len(sums) > 0 && !failed {
		batch := sums[:min(len(sums), guardBatch)]
		sums = sums[len(batch):]
		g.mu.Lock()
		var live map[string]int64
		n.fsm.View(func(s *state.State, _ uint64) { live = s.LiveBlobs() })
		for _, sum := range batch {
			if _, needed := live[sum]; needed || g.held[sum] > 0 {
				continue
			}
			if err := del(sum); err != nil {
				failed = true
				break
			}
			deleted[sum] = true
		}
		g.mu.Unlock()
	}
	return deleted
}
