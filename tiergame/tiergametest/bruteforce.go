package tiergametest

import "github.com/tiersolve/tiersolve/tiergame"

// Outcome is a position's value and remoteness as BruteForce finds them.
type Outcome struct {
	Value      tiergame.Value
	Remoteness int
}

// BruteForce solves a game from a model of its rules written apart from
// the game, to check the solver's results against: it finds every
// position reachable from start, breadth first, holds them all in a map
// (so keep to small games), and solves them by value iteration, one level
// of remoteness after another. moves gives a position's value if it is
// primitive (it is then not expanded), and otherwise Undecided and the
// positions its moves lead to, the other player's to move. A position
// that is not primitive yet has no moves, or that no level decides, is a
// Draw in 0.
func BruteForce[P comparable](start P, moves func(P) (tiergame.Value, []P)) map[P]Outcome {
	// Every position, numbered breadth first, with its children's numbers.
	id := map[P]int{start: 0}
	all := []P{start}
	var kids [][]int
	vals := []Outcome{}
	var undecided []int
	for i := 0; i < len(all); i++ {
		v, children := moves(all[i])
		var ks []int
		if v == tiergame.Undecided {
			for _, c := range children {
				j, seen := id[c]
				if !seen {
					j = len(all)
					id[c] = j
					all = append(all, c)
				}
				ks = append(ks, j)
			}
			if len(ks) > 0 {
				undecided = append(undecided, i)
			}
		}
		kids = append(kids, ks)
		vals = append(vals, Outcome{Value: v})
	}
	// Level r: a position undecided so far is a win in r when a child is
	// a loss in r-1, and a loss in r when every child is a win and the
	// slowest is in r-1. A level that decides nothing ends the iteration:
	// the next one would need a decision at this one.
	for r := 1; len(undecided) > 0; r++ {
		var found, still []int
		for _, i := range undecided {
			win, allWins, slowest := false, true, -1
			for _, k := range kids[i] {
				switch o := vals[k]; {
				case o.Value == tiergame.Lose && o.Remoteness == r-1:
					win = true
				case o.Value == tiergame.Win:
					slowest = max(slowest, o.Remoteness)
				default:
					allWins = false
				}
			}
			if win || allWins && slowest == r-1 {
				found = append(found, i)
			} else {
				still = append(still, i)
			}
		}
		if len(found) == 0 {
			break
		}
		// Set after the scan: a level's values rest on the lower levels
		// only.
		for _, i := range found {
			vals[i] = Outcome{tiergame.Lose, r}
			for _, k := range kids[i] {
				if o := vals[k]; o.Value == tiergame.Lose && o.Remoteness == r-1 {
					vals[i] = Outcome{tiergame.Win, r}
					break
				}
			}
		}
		undecided = still
	}
	out := make(map[P]Outcome, len(all))
	for i, p := range all {
		if vals[i].Value == tiergame.Undecided {
			vals[i] = Outcome{tiergame.Draw, 0}
		}
		out[p] = vals[i]
	}
	return out
}
