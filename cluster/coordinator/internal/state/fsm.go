package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// Errors of applied commands, which callers test, besides those of the
// protocol (api.ErrStale, api.ErrNotRunning, api.ErrBadOutputs, and
// api.ErrNotReady for a completion of a unit leased provisionally before
// the units it reads were recorded done).
var (
	// ErrUnavailable: the unit is leased or done already.
	ErrUnavailable = errors.New("unit not available")
	// ErrNoUnit: no such run, tier or unit.
	ErrNoUnit = errors.New("no such unit")
)

// MaxFailures is how many failed attempts fail a unit, and its run: a
// unit that fails on three workers is failing for a reason of its own.
// A leader's task that fails as often fails its run too.
const MaxFailures = 3

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

// A Command is one entry of the raft log: an operation and its
// arguments. The functions below make them (Create, Grant, ...); its JSON
// is the log's format.
type Command struct {
	Op string `json:"op"`
	// Exactly one of these is set, by Op.
	Members  []api.Member `json:"members,omitempty"`
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
	opRecut    = "recut"    // Level: a loopy tier solved whole so far cut into parts (recut.go)
)

type grantCmd struct {
	Ref     api.UnitRef `json:"ref"`
	Worker  string      `json:"worker"`
	Request string      `json:"request,omitempty"`
}

type completeCmd struct {
	Ref  api.UnitRef `json:"ref"`
	Done Completion  `json:"done"`
}

type releaseCmd struct {
	Ref   api.UnitRef `json:"ref"`
	Token uint64      `json:"token"`
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
	Run   string                 `json:"run"`
	Time  time.Time              `json:"time"`
	Start *runfolder.StartRecord `json:"start,omitempty"`
	Error string                 `json:"error,omitempty"` // the run failed
}

// SetMembers records the coordinators.
func SetMembers(members []api.Member) *Command { return &Command{Op: opMembers, Members: members} }

// Create adds a new run, of this coordinator's Format (its ID is given
// on apply: r and the command's index; applying it returns the ID).
func Create(r *Run) *Command {
	r.Format = Format
	return &Command{Op: opCreate, Run: r}
}

// Grant leases unit ref to worker, for its lease request named request
// (api.LeaseRequest.Request; "" if it names none); applying it returns
// the lease's token: the command's index.
func Grant(ref api.UnitRef, worker, request string) *Command {
	return &Command{Op: opGrant, Grant: &grantCmd{Ref: ref, Worker: worker, Request: request}}
}

// Complete records unit ref's result, under the lease of done.Token.
func Complete(ref api.UnitRef, done Completion) *Command {
	return &Command{Op: opComplete, Complete: &completeCmd{Ref: ref, Done: done}}
}

// Release ends the lease token of unit ref: the worker failed (errMsg
// says why) or gave it up, or the lease expired (errMsg empty).
func Release(ref api.UnitRef, token uint64, errMsg string) *Command {
	return &Command{Op: opRelease, Release: &releaseCmd{Ref: ref, Token: token, Error: errMsg}}
}

// SetLevel records a tier's merged set (its cut), then its level file.
func SetLevel(run string, tier uint64, lv Level) *Command {
	return &Command{Op: opLevel, Level: &levelCmd{Run: run, Tier: tier, Level: lv}}
}

// SetDB records a tier's merged value database.
func SetDB(run string, tier uint64, db DB) *Command {
	return &Command{Op: opDB, DB: &dbCmd{Run: run, Tier: tier, DB: db}}
}

// Finish ends a run at time at: done with the start position's value, or
// failed with errMsg.
func Finish(run string, at time.Time, start *runfolder.StartRecord, errMsg string) *Command {
	return &Command{Op: opFinish, Finish: &finishCmd{Run: run, Time: at, Start: start, Error: errMsg}}
}

// Apply implements raft.FSM: it applies one log entry. It returns the new
// run's ID for a create, the lease token for a grant, nil for other
// successes, and an error value for a refused command.
func (f *FSM) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	var c Command
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
func (s *State) apply(c *Command, index, size uint64) any {
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
		r.State = api.Running
		r.LogBytes, r.Commands = size, 1
		s.Runs = append(s.Runs, r)
		r.advance()
		return r.ID
	}
	id := c.runID()
	r := s.Run(id)
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
func (c *Command) runID() string {
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

// apply changes the run by c, the command at log index.
func (r *Run) apply(s *State, c *Command, index uint64) any {
	if r.State != api.Running {
		return fmt.Errorf("run %s: %w", r.ID, api.ErrNotRunning)
	}
	switch c.Op {
	case opGrant:
		_, t, u := s.Unit(c.Grant.Ref)
		switch {
		case u == nil:
			return fmt.Errorf("%v: %w", c.Grant.Ref, ErrNoUnit)
		case u.Lease != nil || u.Done != nil:
			return fmt.Errorf("%v: %w", c.Grant.Ref, ErrUnavailable)
		case c.Grant.Ref.Phase == api.PhaseSolve && !r.readyFor(t, c.Grant.Worker):
			return fmt.Errorf("%v for %s: %w", c.Grant.Ref, c.Grant.Worker, ErrUnavailable)
		}
		u.Lease = &Lease{Worker: c.Grant.Worker, Token: index, Request: c.Grant.Request}
		return index
	case opComplete:
		d := c.Complete
		_, t, u := s.Unit(d.Ref)
		switch {
		case s.Accepted(d.Ref, d.Done.Token):
			return nil // a retried report
		case u == nil:
			return fmt.Errorf("%v: %w", d.Ref, ErrNoUnit)
		case u.Lease == nil || u.Lease.Token != d.Done.Token:
			return fmt.Errorf("%v token %d: %w", d.Ref, d.Done.Token, api.ErrStale)
		case d.Ref.Phase == api.PhaseSolve && !r.ChildrenSolved(t):
			return fmt.Errorf("%v: %w", d.Ref, api.ErrNotReady)
		case !Fits(t, u, d.Done.Outputs) || inParts(u) && d.Done.Part == nil:
			return fmt.Errorf("%v: %w", d.Ref, api.ErrBadOutputs)
		}
		done := d.Done
		u.Done, u.Lease = &done, nil
		return nil
	case opRelease:
		d := c.Release
		_, _, u := s.Unit(d.Ref)
		switch {
		case u == nil:
			return fmt.Errorf("%v: %w", d.Ref, ErrNoUnit)
		case u.Lease == nil || u.Lease.Token != d.Token:
			return fmt.Errorf("%v token %d: %w", d.Ref, d.Token, api.ErrStale)
		}
		u.Lease = nil
		if d.Error != "" {
			if u.Failures++; u.Failures >= MaxFailures {
				r.State, r.Error = api.Failed, fmt.Sprintf("tier %d %s unit %d failed %d times: %s", d.Ref.Tier, d.Ref.Phase, d.Ref.Index, u.Failures, d.Error)
			}
		}
		return nil
	case opLevel:
		t := r.Tier(c.Level.Tier)
		if t == nil {
			return fmt.Errorf("run %s tier %d: %w", r.ID, c.Level.Tier, ErrNoUnit)
		}
		lv := c.Level.Level
		switch {
		case t.Level == nil:
			t.Level = &lv
		case !t.Written() && lv.Blob.SHA256 != "":
			// The file of a tier cut before: its count and ranges stay.
			// A new Level, not a change in place: the leader's merges
			// read the old one without the lock.
			written := *t.Level
			written.Blob, written.Type = lv.Blob, lv.Type
			t.Level = &written
		}
		// Otherwise a redone merge: the same set, the same file.
		return nil
	case opRecut:
		return r.recut(c.Level)
	case opDB:
		t := r.Tier(c.DB.Tier)
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
		r.State, r.Error = api.Done, c.Finish.Error
		if r.Error != "" {
			r.State = api.Failed
		}
		for _, t := range r.Tiers { // leases of a finished run mean nothing
			for _, u := range append(t.Reach[:len(t.Reach):len(t.Reach)], t.Solve...) {
				u.Lease = nil
			}
			if t.Parts != nil {
				for _, u := range t.Parts.Units {
					u.Lease = nil
				}
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
