package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
)

// Blobs between coordinators. The leader stores a blob on a majority of
// the coordinators (itself and enough followers) before it proposes the
// command that names it, so losing any minority loses nothing; every
// coordinator then fetches the blobs its state names and it misses
// (blobLoop), and deletes those no run needs any more.

// peerClient is the HTTP client for the other coordinators (and of
// Client); dial, if not nil, opens its connections.
func peerClient(cfg *tls.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if cfg != nil {
		t.TLSClientConfig = cfg.Clone() // a transport adds its protocols to it
	}
	if dial != nil {
		t.DialContext = dial
	}
	t.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: t}
}

// peerRequest sends an authenticated request to a coordinator.
func (n *Node) peerRequest(ctx context.Context, m Member, method, path string, body io.Reader, size int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, n.peerURL(m)+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+n.cfg.Token)
	if body != nil {
		req.ContentLength = size
	}
	// A coordinator that moves no byte for a lease's time to live is
	// given up (another one is asked): a partitioned peer would otherwise
	// hold a copy, and the completion waiting for it, for as long as the
	// connection lives.
	resp, err := sendWatched(n.peers, req, n.cfg.LeaseTTL)
	n.peerAnswered(m.ID, err == nil)
	return resp, err
}

// peerAnswered records whether a coordinator answered this node's last
// request: copies go first to the followers that answer.
func (n *Node) peerAnswered(id string, ok bool) {
	n.peerMu.Lock()
	defer n.peerMu.Unlock()
	if ok {
		delete(n.peerFailed, id)
	} else {
		n.peerFailed[id] = time.Now()
	}
}

// byHealth orders coordinators: those that answered this node's last
// request (or that it has not asked for a while) first, in their order.
func (n *Node) byHealth(ms []Member) []Member {
	n.peerMu.Lock()
	defer n.peerMu.Unlock()
	failed := func(m Member) bool { t, ok := n.peerFailed[m.ID]; return ok && time.Since(t) < failedRecently }
	out := make([]Member, 0, len(ms))
	for _, late := range []bool{false, true} {
		for _, m := range ms {
			if failed(m) == late {
				out = append(out, m)
			}
		}
	}
	return out
}

// followers is every member but this node.
func (n *Node) followers() []Member {
	var out []Member
	for _, m := range n.members() {
		if m.ID != n.cfg.ID {
			out = append(out, m)
		}
	}
	return out
}

// ensureLocal makes sure blob b is in this node's store, fetching it from
// the object store, or from another coordinator, if it is not.
func (n *Node) ensureLocal(ctx context.Context, b Blob) error {
	if size, err := n.store.Stat(b.SHA256); err == nil && size == b.Size {
		return nil
	}
	if n.remote != nil {
		return n.download(ctx, b)
	}
	var errs []error
	for _, m := range n.byHealth(n.followers()) {
		err := n.fetchFrom(ctx, m, b)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("blob %s is on no reachable coordinator: %w", b.SHA256, errors.Join(errs...))
}

// fetchFrom copies blob b from coordinator m into this node's store.
func (n *Node) fetchFrom(ctx context.Context, m Member, b Blob) error {
	resp, err := n.peerRequest(ctx, m, http.MethodGet, "/v1/blobs/"+b.SHA256, nil, 0)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", m.ID, resp.Status)
	}
	if err := n.store.Put(ctx, b.SHA256, b.Size, resp.Body); err != nil {
		return fmt.Errorf("%s: %w", m.ID, err)
	}
	n.metrics.blobBytesRepaired.Add(float64(b.Size))
	return nil
}

// download copies blob b from the object store into the local cache,
// checking its content against its name (blobstore.Dir.Put).
func (n *Node) download(ctx context.Context, b Blob) error {
	rc, size, err := n.remote.Open(b.SHA256)
	if err != nil {
		return err
	}
	defer rc.Close()
	if size != b.Size {
		return fmt.Errorf("blob %s: the store holds %d bytes, not %d: %w", b.SHA256, size, b.Size, blobstore.ErrMismatch)
	}
	if err := n.store.Stage(ctx, b.SHA256, b.Size, rc); err != nil {
		if errors.Is(err, blobstore.ErrMismatch) || errors.Is(err, blobstore.ErrBadName) {
			return err
		}
		return fmt.Errorf("blob %s: %w: %v", b.SHA256, blobstore.ErrUnavailable, err)
	}
	n.metrics.storeBytesRead.Add(float64(b.Size))
	return nil
}

// upload stores local blobs (this node's merges) in the object store,
// which checks each against its SHA-256 (blobstore.S3.Put).
func (n *Node) upload(ctx context.Context, blobs []Blob) error {
	for _, b := range blobs {
		rc, size, err := n.store.Open(b.SHA256)
		if err != nil {
			return err
		}
		err = n.remote.Put(ctx, b.SHA256, size, rc)
		rc.Close()
		if err != nil {
			return err
		}
		n.metrics.storeBytesWritten.Add(float64(size))
	}
	return nil
}

// pushTo makes sure coordinator m holds every blob, durably: a PUT of
// each (preceded by a HEAD for large ones, which m may have already), the
// last one asking m to flush everything staged.
func (n *Node) pushTo(ctx context.Context, m Member, blobs []Blob) error {
	send := make([]Blob, 0, len(blobs))
	for _, b := range blobs {
		if b.Size >= headAbove {
			resp, err := n.peerRequest(ctx, m, http.MethodHead, "/v1/blobs/"+b.SHA256, nil, 0)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && resp.ContentLength == b.Size {
				continue
			}
		}
		send = append(send, b)
	}
	if len(send) == 0 {
		return n.peerSync(ctx, m) // copies workers staged there
	}
	for i, b := range send {
		rc, size, err := n.store.Open(b.SHA256)
		if err != nil {
			return err
		}
		query := "?stage=1"
		if i == len(send)-1 {
			query += "&sync=1"
		}
		resp, err := n.peerRequest(ctx, m, http.MethodPut, "/v1/blobs/"+b.SHA256+query, rc, size)
		rc.Close()
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: storing %s: %s", m.ID, b.SHA256, resp.Status)
		}
		n.metrics.blobBytesReplicated.Add(float64(size))
	}
	return nil
}

// headAbove is the size from which a blob is asked for (HEAD) before it is
// sent: smaller ones cost less to send than to ask about.
const headAbove = 1 << 20

// peerSync asks coordinator m to flush its staged blobs.
func (n *Node) peerSync(ctx context.Context, m Member) error {
	resp, err := n.peerRequest(ctx, m, http.MethodPost, "/v1/sync", nil, 0)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: syncing: %s", m.ID, resp.Status)
	}
	return nil
}

// replicateTimeout bounds copying to a follower that is slow or gone.
const replicateTimeout = 10 * time.Minute

// replicate returns once a majority of the coordinators (this node and
// enough followers) hold every blob on disk; the blobs must be in this
// node's store (staged or durable). The other followers get their copies
// from their blob loops, if the blobs live long enough (RepairDelay).
// With an object store, it returns once the store holds them instead.
func (n *Node) replicate(ctx context.Context, blobs []Blob) error {
	if n.remote != nil {
		return n.upload(ctx, blobs)
	}
	// This node's flush (of staged uploads and adopted merges) runs while
	// the copies go out.
	local := make(chan error, 1)
	go func() { local <- n.store.Sync() }()
	if err := n.replicateOut(ctx, blobs); err != nil {
		<-local
		return err
	}
	return <-local
}

// replicateOut returns once enough followers for a majority hold every
// blob durably: it copies to that many, taking the followers in turn
// from one call to the next, and to the next follower when one fails.
func (n *Node) replicateOut(ctx context.Context, blobs []Blob) error {
	// A majority of the raft voters, less this node: counted from raft's
	// configuration, so a missing address list cannot lower it.
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return err
	}
	voters := 0
	for _, s := range f.Configuration().Servers {
		if s.Suffrage == raft.Voter {
			voters++
		}
	}
	need := voters / 2
	if need <= 0 {
		return nil
	}
	followers := n.followers()
	if len(followers) < need {
		return fmt.Errorf("%d followers' addresses known, %d needed for a majority of %d coordinators", len(followers), need, voters)
	}
	// The followers in turn from one call to the next, those that did
	// not answer the last request last.
	off := int(n.pushTurn.Add(1))
	followers = n.byHealth(append(followers[off%len(followers):], followers[:off%len(followers)]...))
	results := make(chan error, len(followers))
	next, inflight := 0, 0
	start := func() {
		m := followers[next]
		next++
		inflight++
		go func() {
			pctx, cancel := context.WithTimeout(n.ctx, replicateTimeout)
			defer cancel()
			results <- n.pushTo(pctx, m, blobs)
		}()
	}
	for inflight < need && next < len(followers) {
		start()
	}
	ok := 0
	var errs []error
	for inflight > 0 {
		select {
		case err := <-results:
			inflight--
			if err == nil {
				if ok++; ok >= need {
					return nil
				}
			} else {
				errs = append(errs, err)
				if next < len(followers) {
					start()
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("only %d of the %d followers needed for a majority hold the blobs: %w", ok, need, errors.Join(errs...))
}

// blobLoop keeps this node's store in step with the state: it fetches the
// blobs the state names and the store has missed for RepairDelay, and
// deletes those no run needs once they are older than the grace period (an
// upload whose completion is still on its way is not named yet).
func (n *Node) blobLoop() {
	defer n.wg.Done()
	repair := time.NewTicker(2 * time.Second)
	defer repair.Stop()
	lastGC := time.Now()
	missingSince := map[string]time.Time{} // live blobs this node lacks, since when
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-repair.C:
		}
		var live map[string]int64
		n.fsm.View(func(s *State, _ uint64) { live = s.liveBlobs() })
		if n.remote != nil {
			// The object store keeps the bytes: nothing to repair. The
			// leader collects the bucket (the only one: followers would
			// only repeat it), and every node its cache.
			if time.Since(lastGC) > n.cfg.BlobGrace/4 {
				lastGC = time.Now()
				if n.IsLeader() {
					n.collectStore(live)
				}
				n.collectCache()
			}
			continue
		}
		now := time.Now()
		for sum := range missingSince {
			if _, ok := live[sum]; !ok {
				delete(missingSince, sum)
			}
		}
		for sum, size := range live {
			if n.ctx.Err() != nil {
				return
			}
			if have, err := n.store.Stat(sum); err == nil && have == size {
				delete(missingSince, sum)
				continue
			}
			if since, ok := missingSince[sum]; !ok {
				missingSince[sum] = now
				continue
			} else if now.Sub(since) < n.cfg.RepairDelay {
				continue
			}
			if err := n.ensureLocal(n.ctx, Blob{SHA256: sum, Size: size}); err != nil {
				n.log.Debug("a blob the state names is missing here", "sha256", sum, "error", err)
			}
		}
		if time.Since(lastGC) > n.cfg.BlobGrace/4 {
			lastGC = time.Now()
			n.collect(live)
		}
	}
}

// collect deletes the blobs no run needs that are older than the grace
// period, and stale temporary files; it also updates the stored-bytes
// metric.
func (n *Node) collect(live map[string]int64) {
	cutoff := time.Now().Add(-n.cfg.BlobGrace)
	var stored int64
	n.store.Walk(func(sum string, size int64, at time.Time) error {
		if _, ok := live[sum]; !ok && at.Before(cutoff) {
			if err := n.store.Delete(sum); err == nil {
				n.log.Debug("deleted an unneeded blob", "sha256", sum, "bytes", size)
				return nil
			}
		}
		stored += size
		return nil
	})
	n.metrics.blobBytesStored.Set(float64(stored))
	n.collectTemp(cutoff)
}

// collectStore deletes from the object store the blobs no run needs that
// are older than the grace period.
func (n *Node) collectStore(live map[string]int64) {
	cutoff := time.Now().Add(-n.cfg.BlobGrace)
	var stored int64
	err := n.remote.Walk(func(sum string, size int64, at time.Time) error {
		if _, ok := live[sum]; !ok && at.Before(cutoff) {
			if err := n.remote.Delete(sum); err == nil {
				n.log.Debug("deleted an unneeded blob from the object store", "sha256", sum, "bytes", size)
				return nil
			}
		}
		stored += size
		return nil
	})
	if err != nil {
		n.log.Warn("collecting the object store", "error", err)
		return
	}
	n.metrics.blobBytesStored.Set(float64(stored))
}

// collectCache empties the local cache of an object store's blobs: what
// has been there for the grace period goes, needed or not (the store
// keeps it; a merge that needs it again downloads it again).
func (n *Node) collectCache() {
	cutoff := time.Now().Add(-n.cfg.BlobGrace)
	n.store.Walk(func(sum string, size int64, at time.Time) error {
		if at.Before(cutoff) {
			n.store.Delete(sum)
		}
		return nil
	})
	n.collectTemp(cutoff)
}

// collectTemp deletes temporary files older than cutoff.
func (n *Node) collectTemp(cutoff time.Time) {
	if dir, err := n.store.TempDir(); err == nil {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}
