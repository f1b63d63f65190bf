package coordinator

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
)

// snappyRaft takes raft snapshots often and keeps few log entries, so that
// restarts restore from snapshots and a lagging node is sent one.
func snappyRaft(c *raft.Config) {
	fastRaft(c)
	c.SnapshotThreshold = 40
	c.SnapshotInterval = 100 * time.Millisecond
	c.TrailingLogs = 10
}

// TestSnapshotsAndRepair: a coordinator that was down for a whole run
// catches up from a raft snapshot and fetches every level file and value
// database from its peers; then all three restart from their snapshots
// and still serve the run.
func TestSnapshotsAndRepair(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	for i := range c.nodes { // restart with frequent snapshots
		c.stopNode(i)
	}
	for i := range c.nodes {
		c.startWith(i, snappyRaft)
	}
	c.waitLeader()
	lagging := c.stopFollower()
	c.startWorker("w", 2)
	cl := c.client()
	ctx := context.Background()
	id, err := cl.Submit(ctx, api.SubmitRequest{Game: "connect4", Option: "width=4,height=4", Settings: &api.Settings{RangesPerThread: 2, MaxRanges: 4, MinRange: 64, Level: 6}})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, 2*time.Minute)
	var want []byte
	for _, n := range c.nodes {
		if n != nil && n.IsLeader() {
			n.fsm.View(func(s *state.State, _ uint64) { want, _ = json.Marshal(s.Runs) })
		}
	}
	c.startWith(lagging, snappyRaft)
	n := c.nodes[lagging]
	deadline := time.Now().Add(time.Minute)
	for {
		var got []byte
		var live map[string]int64
		n.fsm.View(func(s *state.State, _ uint64) { got, _ = json.Marshal(s.Runs); live = s.LiveBlobs() })
		missing := 0
		for sum := range live {
			if _, err := n.local.Stat(sum); err != nil {
				missing++
			}
		}
		if string(got) == string(want) && missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lagging coordinator did not catch up: same state %v, %d of %d blobs missing", string(got) == string(want), missing, len(live))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if stats := n.raft.Stats(); stats["last_snapshot_index"] == "0" {
		t.Errorf("the lagging node caught up without a snapshot: %v", stats)
	}

	// Every coordinator restarts from its snapshot.
	for i := range c.nodes {
		c.stopNode(i)
	}
	for i := range c.nodes {
		c.startWith(i, snappyRaft)
	}
	c.waitLeader()
	checkFetched(t, cl, id, "connect4", "width=4,height=4", false)
}

// TestReplaceCoordinator: a coordinator whose disk is lost is replaced by
// a new, empty one; the new one fetches every file the state names, and
// the cluster survives losing another of the original nodes.
func TestReplaceCoordinator(t *testing.T) {
	c, cl, id := solvedCluster(t, "tictactoe", "", "w")
	ctx := context.Background()

	lost := c.stopFollower()
	addrs := freeAddrs(t, 2)
	c.members = append(c.members, api.Member{ID: "c4", RaftAddr: addrs[0], HTTPAddr: addrs[1]})
	c.dirs = append(c.dirs, t.TempDir())
	c.nodes = append(c.nodes, nil)
	c.start(3, false) // empty, not bootstrapped: waits to be added
	if _, err := cl.ChangeMembers(ctx, api.MembersRequest{Add: &c.members[3]}); err != nil {
		t.Fatal(err)
	}
	ms, err := cl.ChangeMembers(ctx, api.MembersRequest{Remove: c.members[lost].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 {
		t.Fatalf("members after the replacement: %v", ms)
	}
	if _, err := cl.ChangeMembers(ctx, api.MembersRequest{Add: &c.members[0]}); err == nil {
		t.Fatal("adding a member twice succeeded")
	}
	n := c.nodes[3]
	deadline := time.Now().Add(time.Minute)
	for {
		var live map[string]int64
		n.fsm.View(func(s *state.State, _ uint64) { live = s.LiveBlobs() })
		missing := 0
		for sum := range live {
			if _, err := n.local.Stat(sum); err != nil {
				missing++
			}
		}
		if len(live) > 0 && missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new coordinator holds %d of %d blobs", len(live)-missing, len(live))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Lose another original: the new one and the last original carry on.
	other := 0
	if other == lost {
		other = 1
	}
	c.stopNode(other)
	c.waitLeader()
	checkFetched(t, cl, id, "tictactoe", "", false)
}

// TestFollowerDownDuringRun runs a game with one follower stopped: the
// leader's copies, which go to one follower in turn, must find the one
// that is up, and the run ends with every blob on the two that are.
func TestFollowerDownDuringRun(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	c.stopFollower()
	c.startWorker("w", 2)
	cl := c.client()
	id, err := cl.Submit(context.Background(), api.SubmitRequest{Game: "connect4", Option: "width=4,height=4"})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, cl, id, time.Minute)
	for i, n := range c.nodes {
		if n == nil {
			continue
		}
		var live map[string]int64
		n.fsm.View(func(s *state.State, _ uint64) { live = s.LiveBlobs() })
		for sum := range live {
			if _, err := n.local.Stat(sum); err != nil {
				t.Errorf("node %d lacks live blob %s", i, sum)
			}
		}
	}
}
