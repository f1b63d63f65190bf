package coordinator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/poll"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestNamesAll: a premerged set is kept only if the state names every
// partial in it (premerger.early merges partials before their completion
// is committed).
func TestNamesAll(t *testing.T) {
	blobs := []api.Blob{{SHA256: "a"}, {SHA256: "b"}}
	for _, tc := range []struct {
		names map[string]bool
		want  bool
	}{
		{nil, true},
		{map[string]bool{"a": true}, true},
		{map[string]bool{"a": true, "b": true}, true},
		{map[string]bool{"a": true, "c": true}, false},
		{map[string]bool{"c": true}, false},
	} {
		if got := namesAll(blobs, tc.names); got != tc.want {
			t.Errorf("namesAll(a b, %v) = %v, want %v", tc.names, got, tc.want)
		}
	}
}

// TestCutAlign: tiers whose ranges hold two blocks or more on average are
// cut at whole blocks of their database, smaller ones exactly.
func TestCutAlign(t *testing.T) {
	b := uint64(valuedb.DefaultBlockRecords)
	for _, tc := range []struct {
		reachable uint64
		count     int
		want      uint64
	}{{0, 1, 1}, {2*b - 1, 1, 1}, {2 * b, 1, b}, {8*b - 1, 4, 1}, {8 * b, 4, b}, {1 << 30, 256, b}} {
		if got := cutAlign(tc.reachable, tc.count); got != tc.want {
			t.Errorf("cutAlign(%d, %d) = %d, want %d", tc.reachable, tc.count, got, tc.want)
		}
	}
}

// TestCut: a tier's solve ranges shrink and follow RangesPerThread; its
// expand ranges, with ExpandRangesPerThread 1, are one per thread and of
// equal sizes; both cover the tier's hash space.
func TestCut(t *testing.T) {
	set := bitarray.New(0, 1<<20)
	for p := uint64(0); p < 1<<20; p += 3 {
		set.Add(p)
	}
	covers := func(rs []plan.Range) bool {
		if len(rs) == 0 || rs[0].Lo != 0 || rs[len(rs)-1].Hi != 1<<20 {
			return false
		}
		for i := 1; i < len(rs); i++ {
			if rs[i].Lo != rs[i-1].Hi {
				return false
			}
		}
		return true
	}
	settings := api.Settings{RangesPerThread: 2, ExpandRangesPerThread: 1, MaxRanges: 256, MinRange: 1}
	solve, expand := cut(set, settings, 3)
	if len(solve) != 6 || !covers(solve) || solve[0].Hi-solve[0].Lo <= solve[5].Hi-solve[5].Lo {
		t.Errorf("solve ranges %v: want 6 shrinking, covering the tier", solve)
	}
	if len(expand) != 3 || !covers(expand) {
		t.Fatalf("expand ranges %v: want 3 covering the tier", expand)
	}
	for _, r := range expand {
		if n := set.CountIn(r.Lo, r.Hi); n < set.Count()/3-2 || n > set.Count()/3+2 {
			t.Errorf("expand range %v holds %d of %d positions, want a third", r, n, set.Count())
		}
	}
	for _, per := range []int{0, 2} {
		settings.ExpandRangesPerThread = per
		if _, expand := cut(set, settings, 3); expand != nil {
			t.Errorf("ExpandRangesPerThread %d: expand ranges %v, want the solve ranges (nil)", per, expand)
		}
	}
	// Capped to as many ranges as the solve units, expand ranges are
	// still of equal sizes.
	settings = api.Settings{RangesPerThread: 2, ExpandRangesPerThread: 1, MaxRanges: 3, MinRange: 1}
	solve, expand = cut(set, settings, 3)
	if len(solve) != 3 || len(expand) != 3 || !covers(expand) {
		t.Fatalf("capped at 3: solve %v, expand %v", solve, expand)
	}
	if a, c := set.CountIn(expand[0].Lo, expand[0].Hi), set.CountIn(expand[2].Lo, expand[2].Hi); a > c+2 {
		t.Errorf("capped at 3: expand ranges %v hold %d and %d positions, want equal", expand, a, c)
	}
}

// monotonicStore is a raft log store that says it is monotonic, as the
// WAL does.
type monotonicStore struct{ *raft.InmemStore }

func (monotonicStore) IsMonotonic() bool { return true }

// TestLogStoreMonotonic: the node's log says it is monotonic exactly when
// its store does (raft then empties it after installing a snapshot,
// which the WAL needs to take the entries after it).
func TestLogStoreMonotonic(t *testing.T) {
	w, err := wal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	for _, tc := range []struct {
		store raft.LogStore
		want  bool
	}{{w, true}, {monotonicStore{raft.NewInmemStore()}, true}, {raft.NewInmemStore(), false}} {
		logs, err := newLogStore(4, tc.store)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := logs.(raft.MonotonicLogStore)
		if got := ok && m.IsMonotonic(); got != tc.want {
			t.Errorf("%T: monotonic %v, want %v", tc.store, got, tc.want)
		}
	}
}

// fillingLogStore is a raft log store whose disk is full while full is.
type fillingLogStore struct {
	*raft.InmemStore
	full bool
}

func (s *fillingLogStore) StoreLogs(logs []*raft.Log) error {
	if s.full {
		return fmt.Errorf("segment: %w", &os.PathError{Op: "write", Path: "wal/00001.wal", Err: syscall.ENOSPC})
	}
	return s.InmemStore.StoreLogs(logs)
}

func (s *fillingLogStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// TestDiskFullThroughLogCache: a full disk is known as one through the
// node's log (raft's LogCache quotes the store's error instead of
// wrapping it), and a write that succeeds after it is not.
func TestDiskFullThroughLogCache(t *testing.T) {
	store := &fillingLogStore{InmemStore: raft.NewInmemStore()}
	logs, err := newLogStore(4, store)
	if err != nil {
		t.Fatal(err)
	}
	if err := logs.StoreLogs([]*raft.Log{{Index: 1}}); err != nil {
		t.Fatal(err)
	}
	store.full = true
	for _, store := range []func() error{
		func() error { return logs.StoreLogs([]*raft.Log{{Index: 2}}) },
		func() error { return logs.StoreLog(&raft.Log{Index: 2}) },
	} {
		if err := store(); !diskFull(err) {
			t.Errorf("diskFull(%v) = false", err)
		}
	}
	store.full = false
	if err := logs.StoreLogs([]*raft.Log{{Index: 2}}); err != nil {
		t.Errorf("after the disk is freed: %v", err)
	}
	for _, e := range []error{nil, errors.New("no leader"), fmt.Errorf("x: %w", syscall.EIO)} {
		if diskFull(e) {
			t.Errorf("diskFull(%v) = true", e)
		}
	}
}

// TestNotReadyAnswer: a completion the leader cannot record yet (a unit
// leased provisionally whose inputs are not recorded) is answered 425,
// which the client reads back as api.ErrNotReady (the worker asks again,
// without uploading again or trying another coordinator).
func TestNotReadyAnswer(t *testing.T) {
	err := fmt.Errorf("r1/3/solve/0: %w", api.ErrNotReady)
	if code := statusFor(err); code != http.StatusTooEarly {
		t.Fatalf("statusFor(%v) = %d, want 425", err, code)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeError(w, statusFor(err), err) }))
	defer srv.Close()
	cl, cerr := api.NewClient([]string{srv.URL}, testToken, nil)
	if cerr != nil {
		t.Fatal(cerr)
	}
	if got := cl.Complete(context.Background(), api.CompleteRequest{}); !errors.Is(got, api.ErrNotReady) {
		t.Errorf("the client reads %v, want api.ErrNotReady", got)
	}
}

// TestLeaseAskedAgain: a worker that had no answer to a lease request
// (the leader granted it, then failed) sends it again, by the same name,
// to the next leader: it is answered the unit granted for it, with the
// same token, not another unit (the first would stay leased to no one
// until it expires). The name is the worker's: another worker's request
// of that name is not answered that unit (there is no other yet: none).
// The new leader presumes the lease's holder present before hearing from
// it.
func TestLeaseAskedAgain(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	cl := c.client()
	ctx := context.Background()
	if _, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4",
		Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}}); err != nil {
		t.Fatal(err)
	}
	req := api.LeaseRequest{Worker: "w", Threads: 1, Wait: 5, Request: "lease-1"}
	first, err := cl.Lease(ctx, req)
	if err != nil || first == nil {
		t.Fatalf("lease: %v, %v", first, err)
	}
	old := c.waitLeader()
	c.stopNode(old)
	leader := c.waitLeader()
	poll.Until(t, "the new leader ready", time.Minute, func() bool { return c.nodes[leader].ready.Load() })
	if present := c.nodes[leader].workers.present(time.Now(), c.leaseTT); !slices.Contains(present, "w") {
		t.Errorf("the new leader presumes present %v, not the lease's holder w", present)
	}
	again, err := cl.Lease(ctx, req)
	if err != nil || again == nil {
		t.Fatalf("lease asked again: %v, %v", again, err)
	}
	if again.Ref != first.Ref || again.Token != first.Token {
		t.Errorf("asked again, granted %v token %d; want %v token %d, granted for that request", again.Ref, again.Token, first.Ref, first.Token)
	}
	other, err := cl.Lease(ctx, api.LeaseRequest{Worker: "x", Threads: 1, Request: "lease-1"})
	if err != nil || other != nil {
		t.Errorf("another worker's request of the same name: %+v, %v", other, err)
	}
	page := leaderGet(t, c, "/metrics")
	if !strings.Contains(page, "tierd_leases_answered_again_total 1\n") {
		t.Errorf("the new leader %s does not count the lease answered again", c.members[leader].ID)
	}
}

// TestHeartbeatAfterAcceptance: a heartbeat that names a lease whose
// report was accepted (its worker has not had the answer: it was lost
// with the leader) is not told the lease is lost; one that names a lease
// that never was is.
func TestHeartbeatAfterAcceptance(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	cl := c.client()
	ctx := context.Background()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4",
		Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	_, stop := c.startWorker("w", 1)
	var done uint64
	poll.Until(t, "a unit done", time.Minute, func() bool {
		run, err := cl.Run(ctx, id)
		if err != nil {
			return false
		}
		for _, tr := range run.Tiers {
			for _, u := range tr.Reach {
				if u.Done != nil {
					done = u.Done.Token
					return true
				}
			}
		}
		return false
	})
	stop()
	resp, err := cl.Heartbeat(ctx, api.HeartbeatRequest{Worker: "w", Threads: 1, Tokens: []uint64{done, 1 << 40}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.Lost, []uint64{1 << 40}) {
		t.Errorf("heartbeat naming accepted token %d and unknown token %d: lost %v, want the unknown one only", done, uint64(1<<40), resp.Lost)
	}
}

// TestCutPartsWidest: a loopy tier is cut into parts of about as many
// positions, and into more while its widest part (in hashes: a dense
// tier's cells) does not fit the budget; a cut the run's settings fix
// (no fits) keeps its count.
func TestCutPartsWidest(t *testing.T) {
	g, err := games.New("quixo", "size=3")
	if err != nil {
		t.Fatal(err)
	}
	// Positions crowded at the start of the hash space: parts of as many
	// positions are narrow there and wide after.
	const size = 1 << 20
	set := bitarray.New(0, size)
	for p := uint64(0); p < size; p++ {
		if p < size/4 || p%16 == 0 {
			set.Add(p)
		}
	}
	widest := func(bounds []uint64) uint64 { return plan.Cut{Bounds: bounds}.Widest() }
	fixed, _ := cutParts(g, 0, set, partsCut{parts: 2}, 1, 1)
	if len(fixed) != 3 {
		t.Fatalf("fixed at 2 parts: bounds %v", fixed)
	}
	limit := widest(fixed) - 1
	fits := func(window uint64) bool { return window <= limit }
	grown, _ := cutParts(g, 0, set, partsCut{parts: 2, fits: fits}, 1, 1)
	if len(grown) <= 3 || widest(grown) > limit {
		t.Errorf("cut to fit windows of %d hashes: bounds %v (widest %d)", limit, grown, widest(grown))
	}
	// One part fewer would not have fit: the cut grows no further than it must.
	fewer := bitarray.NewRanked(set)
	if c := plan.NewCut(fewer, len(grown)-2, cutAlign(fewer.Total(), len(grown)-2)); fits(c.Widest()) {
		t.Errorf("%d parts fit windows of %d hashes already, cut into %d", c.Parts(), limit, len(grown)-1)
	}
}
