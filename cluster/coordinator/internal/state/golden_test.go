package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
)

// goldenDir holds the golden files of the cluster (cluster/testdata/golden,
// written before the cluster was cut into packages): here, a raft log's
// commands and the snapshot of the state they make.
const goldenDir = "../../../testdata/golden"

// goldenEntry is a command of the golden raft log: its index and its
// bytes (a JSON document, kept as it is).
type goldenEntry struct {
	Index uint64          `json:"index"`
	Data  json.RawMessage `json:"data"`
}

// readGoldenLog reads the commands of the golden raft log.
func readGoldenLog(t testing.TB) []goldenEntry {
	f, err := os.Open(filepath.Join(goldenDir, "raft", "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e goldenEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRaftGolden: the raft formats stay what they were. Each command of
// the golden log decodes and encodes again to its bytes; the log applied
// to an empty state gives the golden snapshot's bytes; the golden
// snapshot restores and snapshots again to its bytes. After every
// command, the view of the run it changed (the API's answer) is the
// run's JSON.
func TestRaftGolden(t *testing.T) {
	entries := readGoldenLog(t)
	if len(entries) < 20 {
		t.Fatalf("%d commands in the golden log", len(entries))
	}
	ops := map[string]int{}
	f := NewFSM()
	for _, e := range entries {
		var c Command
		if err := json.Unmarshal(e.Data, &c); err != nil {
			t.Fatalf("entry %d: %v", e.Index, err)
		}
		ops[c.Op]++
		again, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, e.Data) {
			t.Errorf("entry %d encodes again as\n%s\nnot\n%s", e.Index, again, e.Data)
		}
		if res := f.Apply(&raft.Log{Index: e.Index, Type: raft.LogCommand, Data: e.Data}); res != nil {
			if err, ok := res.(error); ok {
				t.Logf("entry %d (%s) refused as it was then: %v", e.Index, c.Op, err)
			}
		}
		f.View(func(s *State, _ uint64) {
			if r := s.Run(c.runID()); r != nil {
				checkView(t, r)
			}
		})
	}
	for _, op := range []string{opMembers, opCreate, opGrant, opComplete, opRelease, opLevel, opDB, opFinish} {
		if ops[op] == 0 {
			t.Errorf("the golden log has no %s command: %v", op, ops)
		}
	}
	want, err := os.ReadFile(filepath.Join(goldenDir, "raft", "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshotBytes(t, f); !bytes.Equal(got, want) {
		t.Errorf("the golden log applied snapshots as\n%s\nnot\n%s", got, want)
	}
	g := NewFSM()
	if err := g.Restore(io.NopCloser(bytes.NewReader(want))); err != nil {
		t.Fatal(err)
	}
	if got := snapshotBytes(t, g); !bytes.Equal(got, want) {
		t.Errorf("the golden snapshot restored snapshots again as\n%s\nnot\n%s", got, want)
	}
}

// snapshotBytes is what a snapshot of f persists.
func snapshotBytes(t testing.TB, f *FSM) []byte {
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes()
}
