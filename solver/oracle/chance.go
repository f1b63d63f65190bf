package oracle

import (
	"fmt"
	"slices"

	"github.com/tiersolve/tiersolve/solver/chance"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Win returns the probability that the player to move wins at a position
// of a game with chance.
func (o *Oracle) Win(t tiergame.Tier, p tiergame.Position) (tiergame.Prob, error) {
	db, rank, err := o.locate(t, p)
	if err != nil {
		return 0, err
	}
	return db.LookupProb(rank)
}

// PlaneNames names the planes of the run's game (tiergame.Planes), none
// for a game without.
func (o *Oracle) PlaneNames() []string {
	_, names := chance.PlanesOf(o.Game)
	return names
}

// Planes returns the planes of a position of a chance game with planes
// (tiergame.Planes), one value for each of PlaneNames.
func (o *Oracle) Planes(t tiergame.Tier, p tiergame.Position) ([]tiergame.Prob, error) {
	if pg, _ := chance.PlanesOf(o.Game); pg == nil {
		return nil, fmt.Errorf("%s (%s) has no planes", o.Game.Name(), o.Game.Option())
	}
	_, rank, err := o.locate(t, p)
	if err != nil {
		return nil, err
	}
	ot, _ := o.tier(t) // loaded by locate
	ot.planesOnce.Do(func() {
		ot.planes, ot.planesErr = chance.OpenPlanes(o.Game, runfolder.PlanesPath(o.dbPath(t)), ot.total())
		if ot.planesErr == nil && o.cache != nil {
			ot.planes.UseCache(o.cache)
		}
	})
	if ot.planesErr != nil {
		return nil, ot.planesErr
	}
	return ot.planes.LookupPlanes(rank)
}

// Play is a move of a game with chance after an outcome, with its value.
type Play struct {
	Name string
	Tier tiergame.Tier
	Pos  tiergame.Position
	// Child is the chance that the opponent, to move after the play, wins.
	Child tiergame.Prob
}

// Win is the mover's chance to win after the play.
func (p Play) Win() tiergame.Prob { return tiergame.ProbOne - p.Child }

// Plays returns the moves outcome k allows at a position of a game with
// chance, best first (the smallest chance left to the opponent); nil for a
// primitive position.
func (o *Oracle) Plays(t tiergame.Tier, p tiergame.Position, k int) ([]Play, error) {
	cg, ok := o.Game.(tiergame.Chance)
	if !ok {
		return nil, fmt.Errorf("%s: %w", o.Game.Name(), chance.ErrNotChance)
	}
	if n := len(cg.Outcomes()); k < 0 || k >= n {
		return nil, fmt.Errorf("%s: outcome %d of %d", o.Game.Name(), k, n)
	}
	v, cs, ends := cg.ChanceMoves(t, p, nil, nil)
	if v != tiergame.Undecided {
		return nil, nil
	}
	lo := 0
	if k > 0 {
		lo = ends[k-1]
	}
	cs = cs[lo:ends[k]]
	var names []string
	if mn, ok := o.Game.(tiergame.ChanceMoveNamer); ok {
		names = mn.ChanceMoveNames(t, p, k)
	}
	out := make([]Play, len(cs))
	for i, c := range cs {
		w, err := o.Win(c.Tier, c.Pos)
		if err != nil {
			return nil, fmt.Errorf("play %d: %w", i, err)
		}
		out[i] = Play{Name: fmt.Sprint(i + 1), Tier: c.Tier, Pos: c.Pos, Child: w}
		if i < len(names) {
			out[i].Name = names[i]
		}
	}
	slices.SortStableFunc(out, func(a, b Play) int { return int(int64(a.Child) - int64(b.Child)) })
	return out, nil
}
