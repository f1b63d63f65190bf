package movescheck_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tiersolve/tiersolve/games/connect4"
	"github.com/tiersolve/tiersolve/games/internal/movescheck"
	"github.com/tiersolve/tiersolve/tiergame"
)

// recorder is a testing.TB whose Fatalf records the failure and ends the
// goroutine, as the testing package's does.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run runs Against with ref in a goroutine of its own, as a test, and
// returns its failure ("" if none).
func run(t *testing.T, g movescheck.Game, tier tiergame.Tier, ps []tiergame.Position, ref movescheck.Moves) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		movescheck.Against(r, g, tier, ps, ref)
	}()
	<-done
	return r.failed
}

// TestAgainst checks that Against passes Moves against itself and fails
// a reference that differs in the value, a child or the children's order.
func TestAgainst(t *testing.T) {
	g, err := connect4.NewSize(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	const tier = 5
	ps := make([]tiergame.Position, g.TierSize(tier))
	for i := range ps {
		ps[i] = tiergame.Position(i)
	}
	for _, tc := range []struct {
		name string
		ref  movescheck.Moves
		fail bool
	}{
		{"Moves", g.Moves, false},
		{"other value", func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
			v, dst := g.Moves(t, p, dst)
			if p == 7 {
				v = tiergame.Win
			}
			return v, dst
		}, true},
		{"child dropped", func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
			v, dst := g.Moves(t, p, dst)
			if len(dst) > 0 {
				dst = dst[:len(dst)-1]
			}
			return v, dst
		}, true},
		{"children reversed", func(t tiergame.Tier, p tiergame.Position, dst []tiergame.Child) (tiergame.Value, []tiergame.Child) {
			v, dst := g.Moves(t, p, dst)
			for i, j := 0, len(dst)-1; i < j; i, j = i+1, j-1 {
				dst[i], dst[j] = dst[j], dst[i]
			}
			return v, dst
		}, true},
	} {
		if got := run(t, g, tier, ps, tc.ref); (got != "") != tc.fail {
			t.Errorf("%s: failure %q, want one: %v", tc.name, got, tc.fail)
		}
	}
}
