package tiergametest_test

import (
	"fmt"
	"testing"

	"github.com/tiersolve/tiersolve/games/tictactoe"
	"github.com/tiersolve/tiersolve/tiergame/tiergametest"
)

// A game's test calls Check with its *testing.T:
//
//	func TestConformance(t *testing.T) {
//		tiergametest.Check(t, tictactoe.Game{}, tiergametest.Options{Hashes: 1 << 20})
//	}
//
// Here a testing.TB that prints stands in for it. Tic-tac-toe is small:
// Check visits every reachable position, then every hash of every tier
// (Hashes is more than there are), keeping those whose text form Parse
// reads back (the positions Parse accepts).
func ExampleCheck() {
	tiergametest.Check(printer{}, tictactoe.Game{}, tiergametest.Options{Hashes: 1 << 20})
	// Output:
	// tictactoe default: checked 5478 positions in 10 tiers: all 5478 reachable from the start; then every hash of those tiers (6046, no more than Options.Hashes), which added 0 positions not reached
}

// printer is a testing.TB that prints what Check reports.
type printer struct{ testing.TB }

func (printer) Helper()                           {}
func (printer) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (printer) Logf(format string, args ...any)   { fmt.Printf(format+"\n", args...) }
