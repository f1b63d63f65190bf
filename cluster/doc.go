// Package cluster is the home of cluster runs: tierd solve spread over
// machines (cluster/README.md). It holds no code of its own; the work is
// in packages with one job each, and TestRooms keeps what each may
// import:
//
//   - cluster/api: the protocol: the HTTP API's requests, answers and
//     errors, a read-only view of a run, and Client. No raft state.
//   - cluster/coordinator: a coordinator (Node): raft, the HTTP API,
//     leases, merges, the artifacts. Its replicated state and FSM are in
//     cluster/coordinator/internal/state, which nothing else can import.
//   - cluster/worker: a worker: leases units, runs them with the solver's
//     unit functions, uploads their outputs. It knows the coordinators
//     only through cluster/api.
//   - cluster/blobstore: content-addressed stores of artifacts, on a disk
//     and in an S3 bucket.
//   - cluster/clustertest: a whole cluster in one process, for tests and
//     benchmarks.
package cluster
