package coordinator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// artifacts is where a cluster keeps its artifacts (level files, value
// databases, the outputs of units), named by their SHA-256. Two stores
// stand behind it, chosen once by NodeConfig.Store:
//
//   - disks (disks.go): the coordinators' disks. Workers upload their
//     outputs to a coordinator; the leader copies each artifact to a
//     majority of the coordinators before the state names it, and every
//     coordinator fetches the artifacts it misses from its peers.
//   - bucket (bucket.go): an S3-compatible bucket, which keeps the bytes.
//     Workers read and write it through presigned URLs; the coordinators
//     keep only the names, and a coordinator that loses its disk loses
//     nothing.
//
// Either way each node has a local folder (Node.local): with disks the
// artifacts themselves, with a bucket a cache of those its merges read
// and write. Nothing else in the coordinator asks which store it has.
type artifacts interface {
	// direct reports whether workers store their outputs in the store
	// themselves, with presigned PUTs (api.Assignment.Direct).
	direct() bool
	// putBlob, getBlob and uploads serve PUT /v1/blobs/{sum} (a blob a
	// worker or a peer sends this coordinator), GET and HEAD
	// /v1/blobs/{sum}, and POST /v1/uploads (presigned PUTs of a unit's
	// outputs): each store takes and gives artifacts its own way, and
	// refuses the other's.
	putBlob(w http.ResponseWriter, r *http.Request)
	getBlob(w http.ResponseWriter, r *http.Request)
	uploads(w http.ResponseWriter, r *http.Request)
	// fetch copies blob b, which the local folder lacks, into it.
	fetch(ctx context.Context, b api.Blob) error
	// received returns once the store holds a unit's outputs; those it
	// does not hold are an *api.MissingError, which the worker answers by
	// uploading them again.
	received(ctx context.Context, blobs []api.Blob) error
	// keepReceived returns once a unit's outputs, received, are as
	// durable as the store keeps artifacts, so that the state may name
	// them.
	keepReceived(ctx context.Context, blobs []api.Blob) error
	// keepMerged does the same for blobs of the local folder (the
	// leader's merges).
	keepMerged(ctx context.Context, blobs []api.Blob) error
	// drop deletes a blob, which no run needs.
	drop(sum string)
	// tend keeps the store in step with the state, every few seconds:
	// live are the blobs the state names, with their sizes.
	tend(live map[string]int64)
}

// openArtifacts opens the node's local folder and its artifact store.
func (n *Node) openArtifacts() error {
	local := "blobs"
	if n.cfg.Store != nil {
		local = "cache"
	}
	var err error
	if n.local, err = blobstore.OpenDir(filepath.Join(n.cfg.DataDir, local), n.cfg.MaxBlob); err != nil {
		return err
	}
	if n.cfg.Store != nil {
		n.cfg.Store.MaxSize = n.cfg.MaxBlob
		n.artifacts = newBucket(n, n.cfg.Store)
	} else {
		n.artifacts = newDisks(n)
	}
	return nil
}

// ensureLocal makes sure blob b is in the local folder, fetching it if
// it is not.
func (n *Node) ensureLocal(ctx context.Context, b api.Blob) error {
	if size, err := n.local.Stat(b.SHA256); err == nil && size == b.Size {
		return nil
	}
	return n.artifacts.fetch(ctx, b)
}

// localPaths returns the files of blobs in the local folder, fetching
// those it misses.
func (n *Node) localPaths(ctx context.Context, blobs []api.Blob) ([]string, error) {
	paths := make([]string, len(blobs))
	for i, b := range blobs {
		if err := n.ensureLocal(ctx, b); err != nil {
			return nil, err
		}
		paths[i] = n.local.Path(b.SHA256)
	}
	return paths, nil
}

// storeFile has write create a file (at the path it is given, atomically,
// not synced: keepMerged makes it durable), then adopts it into the
// local folder under its SHA-256.
func (n *Node) storeFile(write func(path string) (any, error)) (api.Blob, any, error) {
	dir, err := n.local.TempDir()
	if err != nil {
		return api.Blob{}, nil, err
	}
	f, err := os.CreateTemp(dir, "merge-*")
	if err != nil {
		return api.Blob{}, nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	res, err := write(path)
	if err != nil {
		return api.Blob{}, nil, err
	}
	sum, size, err := blobstore.HashFile(path)
	if err != nil {
		return api.Blob{}, nil, err
	}
	if err := n.local.Adopt(path, sum); err != nil {
		return api.Blob{}, nil, err
	}
	return api.Blob{SHA256: sum, Size: size}, res, nil
}

// blobLoop has the store tend its artifacts every two seconds (fetching
// what this node misses, deleting what no run needs).
func (n *Node) blobLoop() {
	defer n.wg.Done()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-tick.C:
		}
		var live map[string]int64
		n.fsm.View(func(s *state.State, _ uint64) { live = s.LiveBlobs() })
		n.artifacts.tend(live)
	}
}

// blobName is the name of the blob a request is about, if it is one; it
// answers 400 itself if not.
func blobName(w http.ResponseWriter, r *http.Request) (string, bool) {
	sum := r.PathValue("sum")
	if !blobstore.ValidName(sum) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%q: %w", sum, blobstore.ErrBadName))
		return "", false
	}
	return sum, true
}

// serveBlob answers a GET or HEAD of blob sum from store.
func (n *Node) serveBlob(w http.ResponseWriter, r *http.Request, store blobstore.Store, sum string) {
	rc, size, err := store.Open(sum)
	if err != nil {
		writeError(w, statusFor(err), err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	if r.Method == http.MethodHead {
		return
	}
	copied, _ := io.Copy(w, rc)
	n.metrics.blobBytesOut.Add(float64(copied))
}

// handleSync makes this node's staged blobs durable (POST /v1/sync).
func (n *Node) handleSync(w http.ResponseWriter, r *http.Request) {
	if err := n.local.Sync(); err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

// collectLocal deletes from the local folder the blobs older than cutoff
// that drop says may go, and stale temporary files; it returns the bytes
// kept. A cache (the local folder beside an object store) loses them
// outright; the artifacts themselves (disks) only as deleteUnneeded
// allows, by the state at the deletion.
func (n *Node) collectLocal(cutoff time.Time, cache bool, drop func(sum string) bool) int64 {
	var kept int64
	var old []string
	sizes := map[string]int64{}
	n.local.Walk(func(sum string, size int64, at time.Time) error {
		kept += size
		if at.Before(cutoff) && drop(sum) {
			old = append(old, sum)
			sizes[sum] = size
		}
		return nil
	})
	var deleted map[string]bool
	if cache {
		deleted = map[string]bool{}
		for _, sum := range old {
			if n.local.Delete(sum) == nil {
				deleted[sum] = true
			}
		}
	} else {
		deleted = n.deleteUnneeded(old, n.local.Delete)
	}
	for sum := range deleted {
		n.log.Debug("deleted an unneeded blob", "sha256", sum, "bytes", sizes[sum])
		kept -= sizes[sum]
	}
	if dir, err := n.local.TempDir(); err == nil {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return kept
}
