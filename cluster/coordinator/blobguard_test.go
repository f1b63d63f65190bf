package coordinator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// TestBlobGuard: a blob that no run needs is deleted only while no
// completion or merge holds it, however deletions and holds interleave.
func TestBlobGuard(t *testing.T) {
	c := newTestCluster(t, 1, 3*time.Second)
	c.startAll()
	n := c.nodes[0]
	put := func(i int) api.Blob {
		data := []byte(fmt.Sprintf("blob %d", i))
		h := sha256.Sum256(data)
		b := api.Blob{SHA256: hex.EncodeToString(h[:]), Size: int64(len(data))}
		if err := n.local.Put(context.Background(), b.SHA256, b.Size, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return b
	}
	has := func(b api.Blob) bool { _, err := n.local.Stat(b.SHA256); return err == nil }

	b := put(0)
	release := n.guard.hold(b)
	if d := n.deleteUnneeded([]string{b.SHA256}, n.local.Delete); len(d) != 0 || !has(b) {
		t.Fatalf("a held blob was deleted")
	}
	release()
	release() // harmless
	if d := n.deleteUnneeded([]string{b.SHA256}, n.local.Delete); !d[b.SHA256] || has(b) {
		t.Fatalf("a blob no one holds or needs was kept")
	}

	// Holders and a collector at once: each holder's blob is there from
	// its hold to its release.
	blobs := make([]api.Blob, 200)
	sums := make([]string, len(blobs))
	for i := range blobs {
		blobs[i] = put(i)
		sums[i] = blobs[i].SHA256
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				n.deleteUnneeded(sums, n.local.Delete)
			}
		}
	}()
	var holders sync.WaitGroup
	for i := range blobs {
		holders.Add(1)
		go func() {
			defer holders.Done()
			release := n.guard.hold(blobs[i])
			defer release()
			// A completion checks the store after it holds its outputs: the
			// blob is there, or it is uploaded again, and then stays.
			if !has(blobs[i]) {
				put(i)
			}
			for range 20 {
				if !has(blobs[i]) {
					t.Errorf("blob %d deleted while held", i)
					return
				}
			}
		}()
	}
	holders.Wait()
	close(stop)
	wg.Wait()
}
