package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
)

// disks keeps the artifacts on the coordinators' disks (artifacts). The
// leader stores a blob on a majority of the coordinators (itself and
// enough followers) before it proposes the command that names it, so
// losing any minority loses nothing; every coordinator then fetches the
// blobs its state names and it misses (tend), and deletes those no run
// needs any more.
type disks struct {
	n        *Node
	pushTurn atomic.Uint32 // turns the follower that copies go to first

	peerMu     sync.Mutex
	peerFailed map[string]time.Time // coordinators that did not answer the last request, since when

	// Of tend, which one goroutine calls: the live blobs this node
	// lacks, since when; the last collection.
	missingSince map[string]time.Time
	lastGC       time.Time
}

func newDisks(n *Node) *disks {
	return &disks{n: n, peerFailed: map[string]time.Time{}, missingSince: map[string]time.Time{}, lastGC: time.Now()}
}

// direct implements artifacts: workers upload to the coordinators.
func (d *disks) direct() bool { return false }

// putBlob implements artifacts: a blob a worker or a peer sends, checked
// against its name as it is written; with ?stage=1 durable only after
// the next sync (&sync=1: now, and everything staged before it).
func (d *disks) putBlob(w http.ResponseWriter, r *http.Request) {
	n := d.n
	sum, ok := blobName(w, r)
	if !ok {
		return
	}
	size := r.ContentLength
	if size < 0 {
		if size, _ = strconv.ParseInt(r.Header.Get("X-Tierd-Size"), 10, 64); size <= 0 && r.Header.Get("X-Tierd-Size") != "0" {
			writeError(w, http.StatusLengthRequired, errors.New("a blob upload needs its Content-Length"))
			return
		}
	}
	if size > n.cfg.MaxBlob {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("%d bytes: %w (limit %d)", size, blobstore.ErrTooLarge, n.cfg.MaxBlob))
		return
	}
	body := http.MaxBytesReader(w, r.Body, size+1)
	put := n.local.Put
	if r.URL.Query().Get("stage") == "1" {
		put = n.local.Stage // durable at the next POST /v1/sync
	}
	if err := put(r.Context(), sum, size, body); err != nil {
		n.log.Warn("refused a blob", "sha256", sum, "remote", r.RemoteAddr, "error", err)
		if diskFull(err) {
			n.diskIsFull(err)
		}
		writeError(w, statusFor(err), err)
		return
	}
	if r.URL.Query().Get("sync") == "1" { // and everything staged before it
		if err := n.local.Sync(); err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
	}
	n.metrics.blobBytesIn.Add(float64(size))
	writeJSON(w, http.StatusOK, struct{}{})
}

// getBlob implements artifacts: the bytes, from this node's disk.
func (d *disks) getBlob(w http.ResponseWriter, r *http.Request) {
	d.n.serveBlob(w, r, d.n.local, r.PathValue("sum"))
}

// uploads implements artifacts: refused, workers upload to the
// coordinators.
func (d *disks) uploads(w http.ResponseWriter, r *http.Request) {
	var req api.UploadsRequest
	if !decode(w, r, &req) {
		return
	}
	writeError(w, http.StatusBadRequest, fmt.Errorf("%w: this cluster keeps its artifacts on the coordinators: PUT /v1/blobs", errBadRequest))
}

// received implements artifacts: each output in this node's folder,
// fetched from the coordinator the worker sent it to if need be
// (keepReceived then copies them to a majority).
func (d *disks) received(ctx context.Context, blobs []api.Blob) error {
	var missing []string
	for _, b := range blobs {
		if err := d.n.ensureLocal(ctx, b); err != nil {
			d.n.log.Debug("an output is not in the store", "sha256", b.SHA256, "error", err)
			missing = append(missing, b.SHA256)
		}
	}
	if len(missing) > 0 {
		return &api.MissingError{Missing: missing}
	}
	return nil
}

// keepReceived implements artifacts: on a majority of the coordinators.
func (d *disks) keepReceived(ctx context.Context, blobs []api.Blob) error {
	return d.replicate(ctx, blobs)
}

// keepMerged implements artifacts: on a majority of the coordinators.
func (d *disks) keepMerged(ctx context.Context, blobs []api.Blob) error {
	return d.replicate(ctx, blobs)
}

// drop implements artifacts.
func (d *disks) drop(sum string) { d.n.local.Delete(sum) }

// peerRequest sends an authenticated request to a coordinator.
func (d *disks) peerRequest(ctx context.Context, m api.Member, method, path string, body io.Reader, size int64) (*http.Response, error) {
	n := d.n
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
	resp, err := wire.Send(n.peers, req, n.cfg.LeaseTTL)
	d.peerAnswered(m.ID, err == nil)
	return resp, err
}

// peerAnswered records whether a coordinator answered this node's last
// request: copies go first to the followers that answer.
func (d *disks) peerAnswered(id string, ok bool) {
	d.peerMu.Lock()
	defer d.peerMu.Unlock()
	if ok {
		delete(d.peerFailed, id)
	} else {
		d.peerFailed[id] = time.Now()
	}
}

// byHealth orders coordinators: those that answered this node's last
// request (or that it has not asked for a while) first, in their order.
func (d *disks) byHealth(ms []api.Member) []api.Member {
	d.peerMu.Lock()
	defer d.peerMu.Unlock()
	failed := func(m api.Member) bool { t, ok := d.peerFailed[m.ID]; return ok && time.Since(t) < wire.FailedRecently }
	out := make([]api.Member, 0, len(ms))
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
func (n *Node) followers() []api.Member {
	var out []api.Member
	for _, m := range n.members() {
		if m.ID != n.cfg.ID {
			out = append(out, m)
		}
	}
	return out
}

// fetch implements artifacts: from the first of the other coordinators
// that has it.
func (d *disks) fetch(ctx context.Context, b api.Blob) error {
	var errs []error
	for _, m := range d.byHealth(d.n.followers()) {
		err := d.fetchFrom(ctx, m, b)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("blob %s is on no reachable coordinator: %w", b.SHA256, errors.Join(errs...))
}

// fetchFrom copies blob b from coordinator m into this node's store.
func (d *disks) fetchFrom(ctx context.Context, m api.Member, b api.Blob) error {
	resp, err := d.peerRequest(ctx, m, http.MethodGet, "/v1/blobs/"+b.SHA256, nil, 0)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", m.ID, resp.Status)
	}
	if err := d.n.local.Put(ctx, b.SHA256, b.Size, resp.Body); err != nil {
		return fmt.Errorf("%s: %w", m.ID, err)
	}
	d.n.metrics.blobBytesRepaired.Add(float64(b.Size))
	return nil
}

// pushTo makes sure coordinator m holds every blob, durably: a PUT of
// each (preceded by a HEAD for large ones, which m may have already), the
// last one asking m to flush everything staged.
func (d *disks) pushTo(ctx context.Context, m api.Member, blobs []api.Blob) error {
	send := make([]api.Blob, 0, len(blobs))
	for _, b := range blobs {
		if b.Size >= headAbove {
			resp, err := d.peerRequest(ctx, m, http.MethodHead, "/v1/blobs/"+b.SHA256, nil, 0)
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
		return d.peerSync(ctx, m) // copies workers staged there
	}
	for i, b := range send {
		rc, size, err := d.n.local.Open(b.SHA256)
		if err != nil {
			return err
		}
		query := "?stage=1"
		if i == len(send)-1 {
			query += "&sync=1"
		}
		resp, err := d.peerRequest(ctx, m, http.MethodPut, "/v1/blobs/"+b.SHA256+query, rc, size)
		rc.Close()
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: storing %s: %s", m.ID, b.SHA256, resp.Status)
		}
		d.n.metrics.blobBytesReplicated.Add(float64(size))
	}
	return nil
}

// headAbove is the size from which a blob is asked for (HEAD) before it is
// sent: smaller ones cost less to send than to ask about.
const headAbove = 1 << 20

// peerSync asks coordinator m to flush its staged blobs.
func (d *disks) peerSync(ctx context.Context, m api.Member) error {
	resp, err := d.peerRequest(ctx, m, http.MethodPost, "/v1/sync", nil, 0)
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
// node's folder (staged or durable). The other followers get their
// copies when they tend theirs, if the blobs live long enough
// (RepairDelay).
func (d *disks) replicate(ctx context.Context, blobs []api.Blob) error {
	// This node's flush (of staged uploads and adopted merges) runs while
	// the copies go out.
	local := make(chan error, 1)
	go func() { local <- d.n.local.Sync() }()
	if err := d.replicateOut(ctx, blobs); err != nil {
		<-local
		return err
	}
	return <-local
}

// replicateOut returns once enough followers for a majority hold every
// blob durably: it copies to that many, taking the followers in turn
// from one call to the next, and to the next follower when one fails.
func (d *disks) replicateOut(ctx context.Context, blobs []api.Blob) error {
	n := d.n
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
	off := int(d.pushTurn.Add(1))
	followers = d.byHealth(append(followers[off%len(followers):], followers[:off%len(followers)]...))
	results := make(chan error, len(followers))
	next, inflight := 0, 0
	start := func() {
		m := followers[next]
		next++
		inflight++
		go func() {
			pctx, cancel := context.WithTimeout(n.ctx, replicateTimeout)
			defer cancel()
			results <- d.pushTo(pctx, m, blobs)
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

// tend implements artifacts: it fetches the blobs the state names and
// this node has missed for RepairDelay, and every quarter of the grace
// period deletes those no run needs once they are older than the grace
// period (an upload whose completion is still on its way is not named
// yet).
func (d *disks) tend(live map[string]int64) {
	n := d.n
	now := time.Now()
	for sum := range d.missingSince {
		if _, ok := live[sum]; !ok {
			delete(d.missingSince, sum)
		}
	}
	for sum, size := range live {
		if n.ctx.Err() != nil {
			return
		}
		if have, err := n.local.Stat(sum); err == nil && have == size {
			delete(d.missingSince, sum)
			continue
		}
		if since, ok := d.missingSince[sum]; !ok {
			d.missingSince[sum] = now
			continue
		} else if now.Sub(since) < n.cfg.RepairDelay {
			continue
		}
		if err := n.ensureLocal(n.ctx, api.Blob{SHA256: sum, Size: size}); err != nil {
			n.log.Debug("a blob the state names is missing here", "sha256", sum, "error", err)
		}
	}
	if time.Since(d.lastGC) > n.cfg.BlobGrace/4 {
		d.lastGC = time.Now()
		stored := n.collectLocal(time.Now().Add(-n.cfg.BlobGrace), false, func(sum string) bool {
			_, needed := live[sum]
			return !needed
		})
		n.metrics.blobBytesStored.Set(float64(stored))
	}
}
