package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/solver"
)

// Errors of applied commands, which callers test.
var (
	// ErrStale: a completion or release whose fencing token is not the
	// unit's current lease (the lease expired and may be someone else's).
	ErrStale = errors.New("stale lease: the unit is no longer leased with this token")
	// ErrUnavailable: the unit is leased or done already.
	ErrUnavailable = errors.New("unit not available")
	// ErrNoUnit: no such run, tier or unit.
	ErrNoUnit = errors.New("no such unit")
	// ErrBadOutputs: a completion's outputs do not fit its unit.
	ErrBadOutputs = errors.New("outputs do not fit the unit")
	// ErrNotRunning: the run is done or failed.
	ErrNotRunning = errors.New("run is not running")
	// ErrNotReady: a completion of a unit leased provisionally, before
	// the units it reads were recorded done (Run.readyFor); it is
	// accepted once they are.
	ErrNotReady = errors.New("the units this unit reads are not done yet")
)

// maxFailures is how many failed attempts fail a unit, and its run: a unit
// that fails on three workers is failing for a reason of its own.
const maxFailures = 3

// FSM is the replicated state machine: it applies the commands of the raft
// log to a State. Readers use View; Changed signals every change.
type FSM struct {
	mu      sync.RWMutex
	state   State
	index   uint64        // the last applied log index
	changed chan struct{} // closed and replaced on every change
}

// NewFSM returns an FSM holding an empty State.
func NewFSM() *FSM { return &FSM{changed: make(chan struct{})} }

// View calls f with the state, which f must not change or keep.
func (f *FSM) View(fn func(s *State, index uint64)) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	fn(&f.state, f.index)
}

// Changed returns a channel that is closed at the next change.
func (f *FSM) Changed() <-chan struct{} {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.changed
}

// command is one entry of the raft log: an operation and its arguments.
type command struct {
	Op string `json:"op"`
	// Exactly one of these is set, by Op.
	Members  []Member     `json:"members,omitempty"`
	Run      *Run         `json:"run,omitempty"`
	Grant    *grantCmd    `json:"grant,omitempty"`
	Complete *completeCmd `json:"complete,omitempty"`
	Release  *releaseCmd  `json:"release,omitempty"`
	Level    *levelCmd    `json:"level,omitempty"`
	DB       *dbCmd       `json:"db,omitempty"`
	Finish   *finishCmd   `json:"finish,omitempty"`
}

// The operations.
const (
	opMembers  = "members"  // Members: the coordinators
	opCreate   = "create"   // Run: a new run (its ID is given on apply)
	opGrant    = "grant"    // Grant: lease a unit to a worker
	opComplete = "complete" // Complete: a unit's result
	opRelease  = "release"  // Release: a lease expired or failed
	opLevel    = "level"    // Level: a tier's merged set (its cut), then its level file
	opDB       = "db"       // DB: a tier's merged value database
	opFinish   = "finish"   // Finish: the run is done, or failed
)

type grantCmd struct {
	Ref    UnitRef `json:"ref"`
	Worker string  `json:"worker"`
}

type completeCmd struct {
	Ref  UnitRef    `json:"ref"`
	Done Completion `json:"done"`
}

type releaseCmd struct {
	Ref   UnitRef `json:"ref"`
	Token uint64  `json:"token"`
	// Error is set when the worker failed, empty when the lease expired.
	Error string `json:"error,omitempty"`
}

type levelCmd struct {
	Run   string `json:"run"`
	Tier  uint64 `json:"tier"`
	Level Level  `json:"level"`
}

type dbCmd struct {
	Run  string `json:"run"`
	Tier uint64 `json:"tier"`
	DB   DB     `json:"db"`
}

type finishCmd struct {
	Run   string              `json:"run"`
	Time  time.Time           `json:"time"`
	Start *solver.StartRecord `json:"start,omitempty"`
	Error string              `json:"error,omitempty"` // the run failed
}

// Apply implements raft.FSM: it applies one log entry. It returns the new
// run's ID for a create, the lease token for a grant, nil for other
// successes, and an error value for a refused command.
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	var c command
	if err := json.Unmarshal(l.Data, &c); err != nil {
		return fmt.Errorf("cluster: bad command at index %d: %w", l.Index, err)
	}
	f.mu.Lock()
	defer func() {
		f.index = l.Index
		close(f.changed)
		f.changed = make(chan struct{})
		f.mu.Unlock()
	}()
	return f.state.apply(&c, l.Index, uint64(len(l.Data)))
}

// apply changes the state by c, the command at log index, of size bytes.
func (s *State) apply(c *command, index, size uint64) any {
	if c.Op == opMembers {
		s.Members = c.Members
		return nil
	}
	if c.Op == opCreate {
		r := c.Run
		if err := r.check(); err != nil {
			return err
		}
		if r.RequestID != "" {
			for _, x := range s.Runs {
				if x.RequestID == r.RequestID {
					return x.ID // a retried submission
				}
			}
		}
		r.ID = fmt.Sprintf("r%d", index)
		r.State = Running
		r.LogBytes, r.Commands = size, 1
		s.Runs = append(s.Runs, r)
		r.advance()
		return r.ID
	}
	id := c.runID()
	r := s.run(id)
	if r == nil {
		return fmt.Errorf("run %q: %w", id, ErrNoUnit)
	}
	r.LogBytes += size
	r.Commands++
	res := r.apply(s, c, index)
	r.advance()
	return res
}

// runID is the run a command is about.
func (c *command) runID() string {
	switch {
	case c.Grant != nil:
		return c.Grant.Ref.Run
	case c.Complete != nil:
		return c.Complete.Ref.Run
	case c.Release != nil:
		return c.Release.Ref.Run
	case c.Level != nil:
		return c.Level.Run
	case c.DB != nil:
		return c.DB.Run
	case c.Finish != nil:
		return c.Finish.Run
	}
	return ""
}

func (r *Run) apply(s *State, c *command, index uint64) any {
	if r.State != Running {
		return fmt.Errorf("run %s: %w", r.ID, ErrNotRunning)
	}
	switch c.Op {
	case opGrant:
		_, t, u := s.unit(c.Grant.Ref)
		switch {
		case u == nil:
			return fmt.Errorf("%v: %w", c.Grant.Ref, ErrNoUnit)
		case u.Lease != nil || u.Done != nil:
			return fmt.Errorf("%v: %w", c.Grant.Ref, ErrUnavailable)
		case c.Grant.Ref.Phase == PhaseSolve && !r.readyFor(t, c.Grant.Worker):
			return fmt.Errorf("%v for %s: %w", c.Grant.Ref, c.Grant.Worker, ErrUnavailable)
		}
		u.Lease = &Lease{Worker: c.Grant.Worker, Token: index}
		return index
	case opComplete:
		d := c.Complete
		_, t, u := s.unit(d.Ref)
		switch {
		case u == nil:
			return fmt.Errorf("%v: %w", d.Ref, ErrNoUnit)
		case u.Done != nil && u.Done.Token == d.Done.Token:
			return nil // a retried report
		case u.Lease == nil || u.Lease.Token != d.Done.Token:
			return fmt.Errorf("%v token %d: %w", d.Ref, d.Done.Token, ErrStale)
		case d.Ref.Phase == PhaseSolve && !r.childrenSolved(t):
			return fmt.Errorf("%v: %w", d.Ref, ErrNotReady)
		case !validOutputs(t, u, d.Done.Outputs):
			return fmt.Errorf("%v: %w", d.Ref, ErrBadOutputs)
		}
		done := d.Done
		u.Done, u.Lease = &done, nil
		return nil
	case opRelease:
		d := c.Release
		_, _, u := s.unit(d.Ref)
		switch {
		case u == nil:
			return fmt.Errorf("%v: %w", d.Ref, ErrNoUnit)
		case u.Lease == nil || u.Lease.Token != d.Token:
			return fmt.Errorf("%v token %d: %w", d.Ref, d.Token, ErrStale)
		}
		u.Lease = nil
		if d.Error != "" {
			if u.Failures++; u.Failures >= maxFailures {
				r.State, r.Error = Failed, fmt.Sprintf("tier %d %s unit %d failed %d times: %s", d.Ref.Tier, d.Ref.Phase, d.Ref.Index, u.Failures, d.Error)
			}
		}
		return nil
	case opLevel:
		t := r.tier(c.Level.Tier)
		if t == nil {
			return fmt.Errorf("run %s tier %d: %w", r.ID, c.Level.Tier, ErrNoUnit)
		}
		lv := c.Level.Level
		switch {
		case t.Level == nil:
			t.Level = &lv
		case !t.written() && lv.Blob.SHA256 != "":
			// The file of a tier cut before: its count and ranges stay.
			// A new Level, not a change in place: the leader's merges
			// read the old one without the lock.
			written := *t.Level
			written.Blob, written.Type = lv.Blob, lv.Type
			t.Level = &written
		}
		// Otherwise a redone merge: the same set, the same file.
		return nil
	case opDB:
		t := r.tier(c.DB.Tier)
		if t == nil {
			return fmt.Errorf("run %s tier %d: %w", r.ID, c.DB.Tier, ErrNoUnit)
		}
		if t.DB == nil {
			db := c.DB.DB
			t.DB = &db
		}
		return nil
	case opFinish:
		r.Finished, r.Start = c.Finish.Time, c.Finish.Start
		r.State, r.Error = Done, c.Finish.Error
		if r.Error != "" {
			r.State = Failed
		}
		for _, t := range r.Tiers { // leases of a finished run mean nothing
			for _, u := range append(t.Reach[:len(t.Reach):len(t.Reach)], t.Solve...) {
				u.Lease = nil
			}
		}
		return nil
	}
	return fmt.Errorf("cluster: unknown command %q", c.Op)
}

// Snapshot implements raft.FSM: the whole state, as JSON.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	b, err := json.Marshal(&f.state)
	if err != nil {
		return nil, err
	}
	return jsonSnapshot(b), nil
}

// Restore implements raft.FSM: it replaces the state by a snapshot's.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var s State
	if err := json.NewDecoder(rc).Decode(&s); err != nil {
		return fmt.Errorf("cluster: restoring a snapshot: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = s
	close(f.changed)
	f.changed = make(chan struct{})
	return nil
}

// jsonSnapshot is a state marshalled when the snapshot was taken.
type jsonSnapshot []byte

func (j jsonSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(j); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (j jsonSnapshot) Release() {}
