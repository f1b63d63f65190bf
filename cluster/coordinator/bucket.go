package coordinator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// bucket keeps the artifacts in an object store (artifacts): workers
// read and write it directly through presigned URLs, the bucket keeps
// the bytes, and the coordinators keep only their names, so no artifact
// passes through them but those their own merges read and write. Each
// node's local folder is a cache of those.
type bucket struct {
	n      *Node
	s3     *blobstore.S3
	lastGC time.Time // of tend, which one goroutine calls
}

func newBucket(n *Node, s3 *blobstore.S3) *bucket {
	return &bucket{n: n, s3: s3, lastGC: time.Now()}
}

// direct implements artifacts: workers store their outputs in the bucket.
func (b *bucket) direct() bool { return true }

// putBlob implements artifacts: refused, workers store their outputs in
// the bucket (POST /v1/uploads).
func (b *bucket) putBlob(w http.ResponseWriter, r *http.Request) {
	if _, ok := blobName(w, r); !ok {
		return
	}
	writeError(w, http.StatusBadRequest, fmt.Errorf("%w: this cluster keeps its artifacts in an object store: POST /v1/uploads for a presigned PUT", errBadRequest))
}

// getBlob implements artifacts: a redirect to a presigned GET, from which
// the reader takes the blob (and checks it); with ?via=coordinator, for a
// reader that cannot reach the store, the bytes, read from it.
func (b *bucket) getBlob(w http.ResponseWriter, r *http.Request) {
	sum := r.PathValue("sum")
	if r.URL.Query().Get("via") == "coordinator" {
		b.n.serveBlob(w, r, b.s3, sum)
		return
	}
	u, err := b.s3.PresignGet(r.Context(), sum)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u, http.StatusTemporaryRedirect)
}

// uploads implements artifacts: the holder of a unit's lease gets a
// presigned PUT for each of its outputs; only the current lease may
// write, and each PUT only the content it names.
func (b *bucket) uploads(w http.ResponseWriter, r *http.Request) {
	var req api.UploadsRequest
	if !decode(w, r, &req) {
		return
	}
	current := false
	b.n.fsm.View(func(s *state.State, _ uint64) { current = s.Leased(req.Ref, req.Token) })
	if !current {
		writeError(w, http.StatusConflict, fmt.Errorf("%v token %d: %w", req.Ref, req.Token, api.ErrStale))
		return
	}
	if len(req.Outputs) > 1<<12 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: %d outputs", errBadRequest, len(req.Outputs)))
		return
	}
	resp := api.UploadsResponse{Uploads: []blobstore.Upload{}}
	for _, o := range req.Outputs {
		up, err := b.s3.PresignPut(r.Context(), o.SHA256, o.Size)
		if err != nil {
			writeError(w, statusFor(err), err)
			return
		}
		resp.Uploads = append(resp.Uploads, *up)
	}
	writeJSON(w, http.StatusOK, resp)
}

// fetch implements artifacts: it copies blob bl from the bucket into the
// local cache, checking its content against its name
// (blobstore.Dir.Stage).
func (b *bucket) fetch(ctx context.Context, bl api.Blob) error {
	rc, size, err := b.s3.Open(bl.SHA256)
	if err != nil {
		return err
	}
	defer rc.Close()
	if size != bl.Size {
		return fmt.Errorf("blob %s: the store holds %d bytes, not %d: %w", bl.SHA256, size, bl.Size, blobstore.ErrMismatch)
	}
	if err := b.n.local.Stage(ctx, bl.SHA256, bl.Size, rc); err != nil {
		if errors.Is(err, blobstore.ErrMismatch) || errors.Is(err, blobstore.ErrBadName) {
			return err
		}
		return fmt.Errorf("blob %s: %w: %v", bl.SHA256, blobstore.ErrUnavailable, err)
	}
	b.n.metrics.storeBytesRead.Add(float64(bl.Size))
	return nil
}

// received implements artifacts: the bucket holds each output, by its
// own SHA-256 of it (blobstore.S3.Verify, a HEAD). A bucket that does not
// answer is an error of its own (blobstore.ErrUnavailable): the worker
// waits, rather than upload again.
func (b *bucket) received(ctx context.Context, blobs []api.Blob) error {
	var missing []string
	for _, bl := range blobs {
		err := b.s3.Verify(ctx, bl.SHA256, bl.Size)
		if errors.Is(err, blobstore.ErrUnavailable) {
			return err
		}
		if err != nil {
			b.n.log.Debug("an output is not in the store", "sha256", bl.SHA256, "error", err)
			missing = append(missing, bl.SHA256)
		}
	}
	if len(missing) > 0 {
		return &api.MissingError{Missing: missing}
	}
	return nil
}

// keepReceived implements artifacts: the bucket keeps what it holds.
func (b *bucket) keepReceived(context.Context, []api.Blob) error { return nil }

// keepMerged implements artifacts: it stores blobs of the local cache in
// the bucket, which checks each against its SHA-256 (blobstore.S3.Put).
func (b *bucket) keepMerged(ctx context.Context, blobs []api.Blob) error {
	for _, bl := range blobs {
		rc, size, err := b.n.local.Open(bl.SHA256)
		if err != nil {
			return err
		}
		err = b.s3.Put(ctx, bl.SHA256, size, rc)
		rc.Close()
		if err != nil {
			return err
		}
		b.n.metrics.storeBytesWritten.Add(float64(size))
	}
	return nil
}

// drop implements artifacts: from the local cache and the bucket.
func (b *bucket) drop(sum string) {
	b.n.local.Delete(sum)
	b.s3.Delete(sum)
}

// tend implements artifacts: the bucket keeps the bytes, so there is
// nothing to repair. Every quarter of the grace period, the leader
// collects the bucket (the only one: followers would only repeat it),
// and every node empties its cache of what has been there for the grace
// period, needed or not (a merge that needs it again downloads it
// again).
func (b *bucket) tend(live map[string]int64) {
	n := b.n
	if time.Since(b.lastGC) <= n.cfg.BlobGrace/4 {
		return
	}
	b.lastGC = time.Now()
	cutoff := time.Now().Add(-n.cfg.BlobGrace)
	if n.IsLeader() {
		b.collect(live, cutoff)
	}
	n.collectLocal(cutoff, true, func(string) bool { return true })
}

// collect deletes from the bucket the blobs no run needs that are older
// than cutoff (deleteUnneeded asks the state again for each).
func (b *bucket) collect(live map[string]int64, cutoff time.Time) {
	n := b.n
	var stored int64
	var old []string
	sizes := map[string]int64{}
	err := b.s3.Walk(func(sum string, size int64, at time.Time) error {
		if _, ok := live[sum]; !ok && at.Before(cutoff) {
			old = append(old, sum)
			sizes[sum] = size
		}
		stored += size
		return nil
	})
	if err != nil {
		n.log.Warn("collecting the object store", "error", err)
		return
	}
	for sum := range n.deleteUnneeded(old, b.s3.Delete) {
		n.log.Debug("deleted an unneeded blob from the object store", "sha256", sum, "bytes", sizes[sum])
		stored -= sizes[sum]
	}
	n.metrics.blobBytesStored.Set(float64(stored))
}
