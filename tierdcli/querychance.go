package tierdcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/solver"
	"github.com/tiersolve/tiersolve/tiergame"
)

// chancePlay is a play of a roll in query --json.
type chancePlay struct {
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

// chanceResult is query --json for a game with chance.
type chanceResult struct {
	Position string       `json:"position"`
	Tier     uint64       `json:"tier"`
	TierName string       `json:"tier_name"`
	Win      float64      `json:"win"`    // the chance that the player to move wins
	Equity   float64      `json:"equity"` // 2*win-1
	Roll     string       `json:"roll,omitempty"`
	Plays    []chancePlay `json:"plays,omitempty"` // best first
	*cubeResult
}

// queryChance answers a query in a game with chance: the position's chance
// to win and, with roll, every play of that outcome, best first; with cq,
// the bearoff's cube.
func queryChance(e *cli.Env, o *solver.Oracle, cg tiergame.Chance, t tiergame.Tier, p tiergame.Position, roll string, asJSON bool, cq *cubeQuery) error {
	g := o.Game
	win, err := o.Win(t, p)
	if errors.Is(err, solver.ErrUnreachable) {
		return fmt.Errorf("position %s (tier %s, hash %d) is not reachable from the run's start or seeds, so it was not solved", g.Format(t, p), g.TierName(t), p)
	}
	if err != nil {
		return err
	}
	res := chanceResult{Position: g.Format(t, p), Tier: uint64(t), TierName: g.TierName(t), Win: win.Float(), Equity: win.Equity()}
	if cq != nil {
		if res.cubeResult, err = cq.result(t, p); err != nil {
			return err
		}
	}
	if roll != "" {
		k, err := outcomeIndex(cg, roll)
		if err != nil {
			return err
		}
		res.Roll = cg.Outcomes()[k].Name
		plays, err := o.Plays(t, p, k)
		if err != nil {
			return err
		}
		for _, pl := range plays {
			w := pl.Win()
			res.Plays = append(res.Plays, chancePlay{Play: pl.Name, Position: g.Format(pl.Tier, pl.Pos), Win: w.Float(), Equity: w.Equity()})
		}
		if cq != nil {
			if err := cq.sortPlays(res.Plays, plays); err != nil {
				return err
			}
		}
	}
	if asJSON {
		return json.NewEncoder(e.Stdout).Encode(res)
	}
	fmt.Fprintf(e.Stdout, "%s (tier %s): the player to move wins with probability %.6f, equity %+.6f\n", res.Position, res.TierName, res.Win, res.Equity)
	if res.cubeResult != nil {
		printCube(e.Stdout, res.cubeResult)
	}
	if res.Roll != "" && len(res.Plays) == 0 {
		fmt.Fprintf(e.Stdout, "  roll %s: the game is over\n", res.Roll)
	}
	for _, pl := range res.Plays {
		fmt.Fprintf(e.Stdout, "  %s %-24s equity %+.6f  win %.6f%s  -> %s\n", res.Roll, pl.Play, pl.Equity, pl.Win, cubePlay(pl), pl.Position)
	}
	return nil
}

// outcomeIndex finds the outcome called name, or its reverse (a roll of
// two dice in either order).
func outcomeIndex(cg tiergame.Chance, name string) (int, error) {
	var names []string
	for k, o := range cg.Outcomes() {
		if o.Name == name || o.Name == reverse(name) {
			return k, nil
		}
		names = append(names, o.Name)
	}
	return 0, cli.UsageError("--roll %q: not an outcome (%s)", name, strings.Join(names, ", "))
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
