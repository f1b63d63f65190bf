package coordinator

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// blobOf is a blob named by the SHA-256 of s.
func blobOf(s string) api.Blob {
	return api.Blob{SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(s))), Size: int64(len(s))}
}

// TestLeaseRulesAgainstModel drives the FSM and the leader's lease clock
// with random grants, completions, heartbeats, clock advances and leader
// changes, and checks every answer against a simple model of the rules:
//   - a unit is granted only when it has no lease and is not done;
//   - a completion is accepted only with the token of the unit's current
//     lease, and exactly once (a retry of the accepted one is a no-op);
//   - a lease expires only after a full TTL without a grant, heartbeat or
//     leader change, and then its holder can no longer complete it.
func TestLeaseRulesAgainstModel(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { leaseModelRun(t, seed) })
	}
}

type modelUnit struct {
	lease     uint64 // current lease token, 0 if none
	done      uint64 // accepted token, 0 if not done
	completed int    // completions accepted
}

func leaseModelRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	const ttl = 10 * time.Second
	fsm := state.NewFSM()
	index := uint64(0)
	apply := func(c *state.Command) any { // as the raft log would
		b, _ := json.Marshal(c)
		index++
		return fsm.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: b})
	}
	id := apply(state.Create(&state.Run{Game: "test", Option: "default", Settings: api.DefaultSettings, Tiers: []*state.Tier{
		{Tier: 0, Name: "t0", Size: 100, Children: []uint64{1}},
		{Tier: 1, Name: "t1", Size: 100, Parents: []uint64{0}},
	}})).(string)
	const nUnits = 6
	var ranges []plan.Range
	for i := range nUnits {
		ranges = append(ranges, plan.Range{Lo: uint64(10 * i), Hi: uint64(10*i + 10)})
	}
	apply(state.SetLevel(id, 0, state.Level{Blob: blobOf("l"), Reachable: 60, Ranges: ranges}))
	clock := newLeaseClock(ttl)
	now := time.Unix(1000, 0)
	model := make([]modelUnit, nUnits)
	deadline := map[uint64]time.Time{} // the model's own deadlines
	owner := map[uint64]int{}          // token -> unit
	var issued []uint64
	ref := func(u int) api.UnitRef { return api.UnitRef{Run: id, Tier: 0, Phase: api.PhaseReach, Index: u} }
	out := []api.Output{{Tier: 1, Blob: blobOf("o")}}
	for step := range 400 {
		u := rng.IntN(nUnits)
		switch op := rng.IntN(7); op {
		case 0, 1: // grant
			res := apply(state.Grant(ref(u), "w", ""))
			want := model[u].lease == 0 && model[u].done == 0
			tok, ok := res.(uint64)
			if ok != want {
				t.Fatalf("step %d: grant of unit %d: got %v, model says ok=%v (%+v)", step, u, res, want, model[u])
			}
			if ok {
				model[u].lease = tok
				owner[tok] = u
				issued = append(issued, tok)
				clock.start(now, tok)
				deadline[tok] = now.Add(ttl)
			}
		case 2: // a completion with some token ever issued for any unit
			if len(issued) == 0 {
				continue
			}
			tok := issued[rng.IntN(len(issued))]
			v := owner[tok]
			err, _ := apply(state.Complete(ref(v), state.Completion{Token: tok, Outputs: out})).(error)
			switch {
			case model[v].done == tok:
				if err != nil {
					t.Fatalf("step %d: a retried completion refused: %v", step, err)
				}
			case model[v].lease == tok:
				if err != nil {
					t.Fatalf("step %d: the current lease's completion refused: %v", step, err)
				}
				model[v].done, model[v].lease = tok, 0
				model[v].completed++
				clock.forget(tok)
				delete(deadline, tok)
			default:
				if !errors.Is(err, api.ErrStale) {
					t.Fatalf("step %d: stale token %d on unit %d (%+v) accepted: %v", step, tok, v, model[v], err)
				}
			}
		case 3: // heartbeat for a random issued token
			if len(issued) == 0 {
				continue
			}
			tok := issued[rng.IntN(len(issued))]
			_, live := deadline[tok]
			if got := clock.renew(now, tok); got != live {
				t.Fatalf("step %d: renew of token %d: %v, model says %v", step, tok, got, live)
			}
			if live {
				deadline[tok] = now.Add(ttl)
			}
		case 4, 5: // time passes; the leader expires what is due
			now = now.Add(time.Duration(rng.IntN(8)) * time.Second)
			expired := clock.expired(now)
			slices.Sort(expired)
			var want []uint64
			for tok, d := range deadline {
				if now.After(d) {
					want = append(want, tok)
				}
			}
			slices.Sort(want)
			if !slices.Equal(expired, want) {
				t.Fatalf("step %d: expired %v, model %v", step, expired, want)
			}
			for _, tok := range expired {
				clock.forget(tok)
				delete(deadline, tok)
				v := owner[tok]
				err, _ := apply(state.Release(ref(v), tok, "")).(error)
				if model[v].lease != tok {
					t.Fatalf("step %d: clock expired token %d that the model does not hold", step, tok)
				}
				if err != nil {
					t.Fatalf("step %d: expiring token %d: %v", step, tok, err)
				}
				model[v].lease = 0
			}
		case 6: // a new leader: every lease of the state gets a full ttl
			var tokens []uint64
			fsm.View(func(s *state.State, _ uint64) {
				for _, r := range s.Runs {
					for _, le := range r.Leases {
						tokens = append(tokens, le.Token)
					}
				}
			})
			clock = newLeaseClock(ttl)
			clock.reset(now, tokens)
			deadline = map[uint64]time.Time{}
			for _, tok := range tokens {
				deadline[tok] = now.Add(ttl)
			}
		}
		for i, m := range model {
			if m.completed > 1 {
				t.Fatalf("unit %d completed %d times", i, m.completed)
			}
		}
	}
}
