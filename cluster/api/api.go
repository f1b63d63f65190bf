// Package api is the protocol of a cluster run: the HTTP API of the
// coordinators, its requests, answers and errors, a read-only view of a
// run (Run), and Client, which workers, tierd and a game author's own
// programs talk to the coordinators with. It holds no raft state: the
// coordinators keep their own (cluster/coordinator) and answer with
// these types.
//
// Every endpoint but the two probes needs a token, as "Authorization:
// Bearer TOKEN" (or HTTP basic auth with the token as the password, for a
// browser), of a scope it allows: the admin token opens everything, the
// worker token what workers do, the read token what tierd status and
// tierd fetch read. Blob endpoints are served by each coordinator from
// its own store (with an object store, GET redirects to it and PUT is
// refused: workers ask /v1/uploads); the others are the leader's, and a
// follower forwards them to it.
//
//	GET  /healthz              200 "ok" while the process serves (liveness)              none
//	GET  /readyz               200 "ready" once this node knows a leader and has         none
//	                           applied what it knows committed, else 503 (readiness)
//	GET  /                     status page (HTML)                                        read
//	GET  /v1/health            this node's raft state, the leader, the applied index     read
//	GET  /metrics              Prometheus metrics                                        read
//	GET  /v1/status            runs and workers (StatusResponse)                         read
//	POST /v1/runs              submit a run (SubmitRequest → SubmitResponse)             admin
//	GET  /v1/runs/{id}         a run's whole state (Run)                                 read
//	POST /v1/lease             lease a unit (LeaseRequest → Assignment, or 204: no work) worker
//	POST /v1/heartbeat         keep leases alive (HeartbeatRequest → HeartbeatResponse)  worker
//	POST /v1/complete          a unit's result (CompleteRequest; 409 stale, 412 missing) worker
//	POST /v1/release           give a lease up (ReleaseRequest)                          worker
//	POST /v1/uploads           presigned PUTs of a leased unit's outputs, with an        worker
//	                           object store (UploadsRequest → UploadsResponse)
//	POST /v1/members           add or remove a coordinator (MembersRequest → ...)        admin
//	PUT  /v1/blobs/{sha256}    store a blob (Content-Length required; checked against    worker
//	                           its name; ?stage=1: durable only after the next
//	                           POST /v1/sync; &sync=1: flush it and everything staged)
//	POST /v1/sync              make this node's staged blobs durable (coordinators)      admin
//	GET  /v1/blobs/{sha256}    read a blob (also HEAD); with an object store, a          read, worker
//	                           redirect to a presigned GET, or with ?via=coordinator
//	                           the bytes, read from it
//
// An error answer's body is an ErrorResponse; Client turns the statuses
// callers act on into the errors of this package (ErrStale,
// ErrNotRunning, ErrNotReady, ErrUnauthorized, ErrForbidden,
// *MissingError, else *HTTPError). A long request (a lease held open, a
// completion copied to a majority) is kept alive with informational
// answers, "102 Processing": a client that hears nothing for its attempt
// timeout asks another coordinator.
package api

import (
	"time"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// SubmitRequest asks for a new run.
type SubmitRequest struct {
	Game     string    `json:"game"`
	Option   string    `json:"option"`
	Settings *Settings `json:"settings,omitempty"` // nil: DefaultSettings
	// RequestID, if set, makes the request idempotent: a run submitted
	// with the same one already is answered instead of a new one (a
	// client retries a request whose answer a reset connection lost).
	RequestID string `json:"request_id,omitempty"`
}

// SubmitResponse names the new run.
type SubmitResponse struct {
	ID string `json:"id"`
}

// StatusResponse is the cluster at a glance.
type StatusResponse struct {
	Leader  string       `json:"leader"`
	Members []Member     `json:"members"`
	Runs    []RunSummary `json:"runs"`
	Workers []WorkerInfo `json:"workers"`
}

// Run is the summary of run id, nil if the status has none.
func (st *StatusResponse) Run(id string) *RunSummary {
	for i := range st.Runs {
		if st.Runs[i].ID == id {
			return &st.Runs[i]
		}
	}
	return nil
}

// RunSummary is a run at a glance.
type RunSummary struct {
	ID         string                 `json:"id"`
	Game       string                 `json:"game"`
	Option     string                 `json:"option"`
	State      RunState               `json:"state"`
	Error      string                 `json:"error,omitempty"`
	TiersDone  int                    `json:"tiers_done"`
	TiersTotal int                    `json:"tiers_total"`
	Reached    int                    `json:"tiers_reached"`
	UnitsDone  int                    `json:"units_done"`
	UnitsTotal int                    `json:"units_total"`
	Leased     int                    `json:"units_leased"`
	Positions  uint64                 `json:"positions"` // reachable, in the merged tiers
	Created    time.Time              `json:"created"`
	Seconds    float64                `json:"seconds"` // running time so far, or to the end
	Start      *runfolder.StartRecord `json:"start,omitempty"`
	LogBytes   uint64                 `json:"log_bytes"`
	Commands   uint64                 `json:"commands"`
	// Blocked says why units of the run wait although workers are
	// present: none has the memory one of them needs (LeaseRequest.Memory).
	Blocked string `json:"blocked,omitempty"`
}

// LeaseRequest asks for a unit of work.
type LeaseRequest struct {
	Worker  string `json:"worker"`
	Threads int    `json:"threads"`
	// Wait is how long, in seconds, the leader may hold the request when
	// there is no work, answering as soon as some appears.
	Wait float64 `json:"wait"`
	// Spare asks for a unit to start when one of the worker's threads
	// frees, while all are busy. It is granted only if at least twice as
	// many units stay free as the other workers have threads (so that the
	// others do not run out of work while the spare waits), and never
	// waits.
	Spare bool `json:"spare,omitempty"`
	// Games are the names of the games the worker can run: it is leased
	// only units of runs of these games. Empty: any game (a worker that
	// does not say).
	Games []string `json:"games,omitempty"`
	// Holding lists the lease tokens of the range units whose records
	// the worker has computed or is computing, in memory: it may be leased
	// units that read them before they are recorded (provisional
	// leases: KidInput.Mine). Nil from a worker that cannot take such
	// units, or holds none.
	Holding []uint64 `json:"holding,omitempty"`
	// Memory is the worker's budget in bytes (tierd worker --memory): it
	// is leased no unit the leader estimates larger (Assignment.Bytes).
	// 0: it does not say.
	Memory int64 `json:"memory,omitempty"`
	// Request names the request: the worker sends the same name again
	// until it has an answer (a unit, or none), and a unit granted for
	// it whose answer was lost (the leader that granted it failed before
	// answering) is answered again, rather than left leased to no one
	// until its lease expires. Empty: a worker that does not name its
	// requests.
	Request string `json:"request,omitempty"`
}

// Assignment is a leased unit with everything its worker needs.
type Assignment struct {
	Ref    UnitRef `json:"ref"`
	Token  uint64  `json:"token"`
	Kind   Kind    `json:"kind"`
	Lo     uint64  `json:"lo"`
	Hi     uint64  `json:"hi"`
	Game   string  `json:"game"`
	Option string  `json:"option"`
	Loopy  bool    `json:"loopy,omitempty"`
	// Symmetry: the run keeps canonical positions only; the unit runs on
	// the quotient game (quotient.Reduce).
	Symmetry bool     `json:"symmetry,omitempty"`
	Children []uint64 `json:"children,omitempty"`
	// Level is the tier's full level file (SolveRange, SolveTier; Expand
	// once it is written), Partials the partial level files whose union
	// is the tier (Expand before its file is written) or which a loopy
	// tier is closed from (Close), Kids the solved child tiers
	// (SolveRange, SolveTier).
	Level    *Blob      `json:"level,omitempty"`
	Partials []Blob     `json:"partials,omitempty"`
	Kids     []KidInput `json:"kids,omitempty"`
	// Set names the tier's set, the same for every unit of the tier
	// whether it comes from Level or Partials (a digest of the game and
	// the partial level files merged into it): a worker keeps a set it
	// loaded under this name.
	Set string `json:"set"`
	// Live lists the tiers of the run whose sets and results a unit may
	// still read (the unit's own among them): a worker may drop what it
	// keeps in memory of the run's other tiers. Nil from a coordinator
	// that does not say.
	Live     []uint64 `json:"live,omitempty"`
	LeaseTTL float64  `json:"lease_ttl"` // seconds
	// Part is the round of a Part unit, or the cut of a KidNotes unit.
	Part *PartWork `json:"part,omitempty"`
	// Bytes is the leader's estimate of the unit's peak memory, for the
	// units it estimates (a loopy tier's, whole or a part's): the worker
	// makes room for it in its memory.
	Bytes int64 `json:"bytes,omitempty"`
	// Direct says the cluster keeps its artifacts in an object store: the
	// worker stores its outputs there, with the presigned PUTs of
	// /v1/uploads, rather than on a coordinator.
	Direct bool `json:"direct,omitempty"`
}

// PartWork is what a Part unit does: part Part of the tier as cut at
// Bounds, from its last checkpoint (none: from its first pass, which
// reads the notes files the KidNotes units made of the child tiers, or
// its gathering of its sub-parts' checkpoints)
// through Steps, the rounds since, the last of which is the unit's own
// round: only its outputs are new. A worker that holds the part in
// memory after an earlier round of Steps starts there. A KidNotes
// unit's PartWork has Bounds alone: the parts its notes are for.
type PartWork struct {
	Part   int      `json:"part"`
	Bounds []uint64 `json:"bounds"`
	// Checkpoint is the part after round CheckpointRound.
	Checkpoint      *Blob      `json:"checkpoint,omitempty"`
	CheckpointRound int        `json:"checkpoint_round,omitempty"`
	Steps           []PartStep `json:"steps"`
	// KidRem and KidTie are the child tiers' longest remoteness and
	// longest tie (-1: none), from their databases' headers as the
	// KidNotes units reported them: a first pass lays its cells out
	// for them (loopy.NewPart).
	KidRem int `json:"kid_rem,omitempty"`
	KidTie int `json:"kid_tie,omitempty"`
	// SubBounds is the finer cut (Level.FirstParts) whose sub-parts'
	// checkpoints a first round gathers (PartStep.Gather).
	SubBounds []uint64 `json:"sub_bounds,omitempty"`
	// Window is the hashes [lo, hi) of the tier's set the unit reads: its
	// part's (a sub-part's first pass: its part's, whose gathering reads
	// the cells as they were laid out). None: the whole set.
	Window []uint64 `json:"window,omitempty"`
}

// PartStep is one round of a part: its first pass (round 0, with the
// child tiers' held notes for it, In, then their won notes, Won; or its
// sub-parts' first passes gathered, Gather), a
// level of remoteness (Level, with the notes the other parts sent it at
// the level before), the start of ties (Ties, with the child tiers' tied
// notes), or its records (Records).
type PartStep struct {
	Round   int    `json:"round"`
	Level   int    `json:"level"`
	Ties    bool   `json:"ties,omitempty"`
	Records bool   `json:"records,omitempty"`
	In      []Blob `json:"in,omitempty"`
	Won     []Blob `json:"won,omitempty"`
	// Gather, if set, is the checkpoints of the part's sub-parts after
	// their first passes (FirstRange units), in order: round 0 gathers
	// them instead of making the first pass.
	Gather []Blob `json:"gather,omitempty"`
}

// PartResult is what a Part unit reports beside its outputs: the part's
// next level (loopy.Part.Next, -1 if none), the notes it sent, and the
// memory it holds; and a KidNotes unit: the notes it made, and its child
// tier's longest remoteness (Rem) and whether it has ties (its
// database's header).
type PartResult struct {
	Next  int    `json:"next"`
	Notes uint64 `json:"notes,omitempty"`
	Bytes uint64 `json:"bytes,omitempty"`
	Rem   int    `json:"rem,omitempty"`
	Ties  bool   `json:"ties,omitempty"`
}

// UploadsRequest asks, for a leased unit, how to store its outputs in
// the object store.
type UploadsRequest struct {
	Ref     UnitRef `json:"ref"`
	Token   uint64  `json:"token"`
	Worker  string  `json:"worker"`
	Outputs []Blob  `json:"outputs"`
}

// UploadsResponse holds a presigned PUT for each output: the request,
// sent as it is without credentials, stores that content and no other.
type UploadsResponse struct {
	Uploads []blobstore.Upload `json:"uploads"`
}

// KidInput is a solved child tier: its level file, and its records: the
// value database if it is written, else the records of its units in rank
// order.
type KidInput struct {
	Tier  uint64 `json:"tier"`
	Level Blob   `json:"level"`
	Set   string `json:"set"` // as Assignment.Set
	DB    *Blob  `json:"db,omitempty"`
	// Planes is the tier's database of planes, beside DB, for a chance
	// game with planes (tiergame.Planes).
	Planes  *Blob  `json:"planes,omitempty"`
	Records []Blob `json:"records,omitempty"`
	// Mine lists, for a unit leased provisionally (before the units of
	// its child tiers are recorded done: LeaseRequest.Holding), the
	// units of the tier not done yet, all leased to the worker: it
	// computes their records itself, in place, and their places in
	// Records (one per unit, in rank order) are empty.
	Mine []MineUnit `json:"mine,omitempty"`
}

// MineUnit is a unit whose records the worker computes itself, and the
// range it covers.
type MineUnit struct {
	Ref   UnitRef `json:"ref"`
	Token uint64  `json:"token"`
	Lo    uint64  `json:"lo"`
	Hi    uint64  `json:"hi"`
}

// HeartbeatRequest reports a worker alive with the leases it holds.
type HeartbeatRequest struct {
	Worker  string   `json:"worker"`
	Threads int      `json:"threads"`
	Tokens  []uint64 `json:"tokens"`
}

// HeartbeatResponse lists the leases the worker no longer holds: it must
// stop their work.
type HeartbeatResponse struct {
	Lost []uint64 `json:"lost"`
}

// CompleteRequest reports a unit done; its outputs must be uploaded first.
type CompleteRequest struct {
	Ref       UnitRef  `json:"ref"`
	Token     uint64   `json:"token"`
	Worker    string   `json:"worker"`
	Outputs   []Output `json:"outputs"`
	Positions uint64   `json:"positions"`
	Seconds   float64  `json:"seconds"`
	// Part is a Part or KidNotes unit's report.
	Part *PartResult `json:"part,omitempty"`
}

// ReleaseRequest gives a lease up; Error says why the unit failed, if it
// did.
type ReleaseRequest struct {
	Ref    UnitRef `json:"ref"`
	Token  uint64  `json:"token"`
	Worker string  `json:"worker"`
	Error  string  `json:"error,omitempty"`
}

// HeaderLeader carries the leader's base URL on every API answer, so
// clients talk to it directly.
const HeaderLeader = "X-Tierd-Leader"

// MembersRequest adds or removes one coordinator.
type MembersRequest struct {
	Add    *Member `json:"add,omitempty"`
	Remove string  `json:"remove,omitempty"`
}

// MembersResponse is the coordinators after a change.
type MembersResponse struct {
	Members []Member `json:"members"`
}

// WorkerInfo is what the leader knows of a worker: from its lease
// requests, heartbeats and completions since the leader was elected.
type WorkerInfo struct {
	ID        string    `json:"id"`
	Addr      string    `json:"addr"`
	Threads   int       `json:"threads"`
	Leases    int       `json:"leases"`
	LastSeen  time.Time `json:"last_seen"`
	Units     uint64    `json:"units"`
	Positions uint64    `json:"positions"`
	// Rate is positions per second over the last minute.
	Rate float64 `json:"positions_per_second"`
	// Games are the games the worker runs (empty: it did not say, any).
	Games []string `json:"games,omitempty"`
	// Memory is the worker's budget (LeaseRequest.Memory), 0 if it did
	// not say.
	Memory int64 `json:"memory,omitempty"`
	// MissingGames are the games of running runs the worker does not
	// have: it is leased no unit of theirs, which wait for a worker that
	// has them.
	MissingGames []string `json:"missing_games,omitempty"`
}
