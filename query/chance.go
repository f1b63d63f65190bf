package query

import (
	"fmt"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"io"
	"strings"
)

// Play is a play of a roll.
type Play struct {
	Play     string  `json:"play"`
	Position string  `json:"position"` // after the play, the opponent to move
	Win      float64 `json:"win"`      // for the player making the play
	Equity   float64 `json:"equity"`
	// Cubeful is the money equity after the play under the cube asked
	// for (a bearoff run with cube=money), MWC the match winning chance
	// at the match score asked for; the plays are then sorted by it.
	Cubeful *float64 `json:"cubeful_equity,omitempty"`
	MWC     *float64 `json:"mwc,omitempty"`
}

// ChanceResult is the answer to a position of a game with chance.
type ChanceResult struct {
	Position string  `json:"position"`
	Tier     uint64  `json:"tier"`
	TierName string  `json:"tier_name"`
	Win      float64 `json:"win"`    // the chance that the player to move wins
	Equity   float64 `json:"equity"` // 2*win-1
	Roll     string  `json:"roll,omitempty"`
	Plays    []Play  `json:"plays,omitempty"` // best first
	*CubeResult
}

// chance answers a position of a game with chance: its chance to win and,
// with roll, every play of that outcome, best first; with cq, the
// bearoff's cube.
func chance(o *oracle.Oracle, cg tiergame.Chance, t tiergame.Tier, p tiergame.Position, roll string, cq *cubeQuery) (*ChanceResult, error) {
	g := o.Game
	win, err := o.Win(t, p)
	if err != nil {
		return nil, lookupErr(err, "position %s (tier %s, hash %d) is not reachable from the run's start or seeds, so it was not solved", g.Format(t, p), g.TierName(t), p)
	}
	res := &ChanceResult{Position: g.Format(t, p), Tier: uint64(t), TierName: g.TierName(t), Win: win.Float(), Equity: win.Equity()}
	if cq != nil {
		if res.CubeResult, err = cq.result(t, p); err != nil {
			return nil, err
		}
	}
	if roll != "" {
		k, err := OutcomeIndex(cg, roll)
		if err != nil {
			return nil, err
		}
		res.Roll = cg.Outcomes()[k].Name
		plays, err := o.Plays(t, p, k)
		if err != nil {
			return nil, err
		}
		for _, pl := range plays {
			w := pl.Win()
			res.Plays = append(res.Plays, Play{Play: pl.Name, Position: g.Format(pl.Tier, pl.Pos), Win: w.Float(), Equity: w.Equity()})
		}
		if cq != nil {
			if err := cq.sortPlays(res.Plays, plays); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// WriteText writes the answer as tierd query prints it.
func (res *ChanceResult) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s (tier %s): the player to move wins with probability %.6f, equity %+.6f\n", res.Position, res.TierName, res.Win, res.Equity); err != nil {
		return err
	}
	if res.CubeResult != nil {
		printCube(w, res.CubeResult)
	}
	if res.Roll != "" && len(res.Plays) == 0 {
		fmt.Fprintf(w, "  roll %s: the game is over\n", res.Roll)
	}
	for _, pl := range res.Plays {
		fmt.Fprintf(w, "  %s %-24s equity %+.6f  win %.6f%s  -> %s\n", res.Roll, pl.Play, pl.Equity, pl.Win, cubePlay(pl), pl.Position)
	}
	return nil
}

// OutcomeIndex finds the outcome called name, or its reverse (a roll of
// two dice in either order); its error wraps ErrBadOption.
func OutcomeIndex(cg tiergame.Chance, name string) (int, error) {
	var names []string
	for k, o := range cg.Outcomes() {
		if o.Name == name || o.Name == reverse(name) {
			return k, nil
		}
		names = append(names, o.Name)
	}
	return 0, tagf(ErrBadOption, "--roll %q: not an outcome (%s)", name, strings.Join(names, ", "))
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
