package solver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/plan"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Mismatch is a stored value that its children do not justify.
type Mismatch struct {
	Tier     tiergame.Tier
	Position tiergame.Position
	Stored   valuedb.Record
	Derived  valuedb.Record
	Err      error // set when the children could not be read
	// In a game with chance (Chance set) the values are probabilities,
	// or with Plane set the values of that plane (tiergame.Planes).
	Chance                bool
	StoredWin, DerivedWin tiergame.Prob
	Plane                 string
	// Again: Derived is the record of the tier solved again (a tier the
	// rules of play judge), not one its children give.
	Again bool
}

func (m Mismatch) String() string {
	switch {
	case m.Err != nil:
		return fmt.Sprintf("tier %d position %d: %v", m.Tier, m.Position, m.Err)
	case m.Chance && m.Plane != "":
		return fmt.Sprintf("tier %d position %d: plane %s stored %v (%#x), children give %v (%#x)", m.Tier, m.Position, m.Plane,
			m.StoredWin, uint32(m.StoredWin), m.DerivedWin, uint32(m.DerivedWin))
	case m.Chance:
		return fmt.Sprintf("tier %d position %d: stored %v (%#x), children give %v (%#x)", m.Tier, m.Position,
			m.StoredWin, uint32(m.StoredWin), m.DerivedWin, uint32(m.DerivedWin))
	case m.Again:
		return fmt.Sprintf("tier %d position %d: stored %v, the tier solved again gives %v", m.Tier, m.Position, m.Stored, m.Derived)
	}
	return fmt.Sprintf("tier %d position %d: stored %v, children give %v", m.Tier, m.Position, m.Stored, m.Derived)
}

// VerifyReport is the outcome of Verify.
type VerifyReport struct {
	Files      int    // files checked against the manifest (size and SHA-256)
	Tiers      int    // tiers whose values were re-derived
	Positions  uint64 // positions re-derived
	Mismatches uint64
	// RuleDeclared counts the positions a game's rules of play declared
	// lost (tiergame.RuleReader: plies 0), which no child derives, among
	// RuleRederived.
	RuleDeclared uint64
	// RuleRederived counts the records the rules of play decided, each
	// given again by its tier solved again (the retrograde analysis and
	// the rule pass) from the stored records of its child tiers; in a
	// tier the rules judge, every record is checked that way.
	RuleRederived uint64
	Examples      []Mismatch // the first few
	FileErrors    []string   // checksums and counts that do not match the manifest
	// Full, for a symmetric run, counts the positions of the full game that
	// the canonical ones stand for, by tier (in solving order) and value:
	// each canonical position counts once per distinct member of its orbit.
	// These are the counts a run without symmetry stores.
	Full []FullCounts
}

// FullCounts is one tier's positions of the full game, by value.
type FullCounts struct {
	Tier                 tiergame.Tier
	Name                 string
	Positions            uint64
	Win, Lose, Tie, Draw uint64
}

// add counts n positions of value v.
func (c *FullCounts) add(v tiergame.Value, n uint64) {
	c.Positions += n
	switch v {
	case tiergame.Win:
		c.Win += n
	case tiergame.Lose:
		c.Lose += n
	case tiergame.Tie:
		c.Tie += n
	case tiergame.Draw:
		c.Draw += n
	}
}

// sum adds o's counts to c's.
func (c *FullCounts) sum(o FullCounts) {
	c.Positions += o.Positions
	c.Win, c.Lose, c.Tie, c.Draw = c.Win+o.Win, c.Lose+o.Lose, c.Tie+o.Tie, c.Draw+o.Draw
}

// orbitSize is the number of distinct images of position p of tier t.
func orbitSize(s tiergame.Symmetric, t tiergame.Tier, p tiergame.Position, buf []tiergame.Position) (uint64, []tiergame.Position) {
	buf = s.Images(t, p, buf[:0])
	n := uint64(0)
	for i, q := range buf {
		if !slices.Contains(buf[:i], q) {
			n++
		}
	}
	return n, buf
}

// stop records err among the file errors and returns errStop, which ends
// the walk over the tiers.
func (v *VerifyReport) stop(err error) error {
	v.FileErrors = append(v.FileErrors, err.Error())
	return errStop
}

// mismatch counts m, and keeps it among the first few examples, under mu.
func (v *VerifyReport) mismatch(mu *sync.Mutex, m Mismatch) {
	mu.Lock()
	defer mu.Unlock()
	v.Mismatches++
	if len(v.Examples) < 10 {
		v.Examples = append(v.Examples, m)
	}
}

// OK reports whether nothing was wrong.
func (v *VerifyReport) OK() bool { return v.Mismatches == 0 && len(v.FileErrors) == 0 }

// Verify checks a solved run: every file against the manifest's size and
// SHA-256, every database's checksum and counts, and every stored record
// against the one its children's stored records give (the same rules the
// solver applies; for loopy tiers too, since a correct solution is a
// fixed point of them). A tier the game's rules of play judge is solved
// again instead, rule pass included, and every record compared with its
// own: no look at a position's children can re-derive a rule decision.
func (r *Run) Verify(ctx context.Context) (*VerifyReport, error) {
	if r.isChance() {
		return r.verifyChance(ctx)
	}
	rep := &VerifyReport{}
	if err := r.checkFiles(rep); err != nil {
		return nil, err
	}
	if len(rep.FileErrors) > 0 {
		return rep, nil
	}
	cache := map[tiergame.Tier]*solved.Tier{}
	defer freeAll(cache)
	var mu sync.Mutex
	rr, _ := quotient.Base(r.Game).(tiergame.RuleReader)
	var declared, rederived atomic.Uint64
	var sym tiergame.Symmetric // a symmetric run's, to count the full game
	if quotient.Is(r.Game) {
		sym = quotient.Base(r.Game).(tiergame.Symmetric)
	}
	err := eachChildrenFirst(r, "verify", cache, (*solved.Tier).Free, func(_ int, t tiergame.Tier, _ func()) error {
		st, err := r.loadSolved(t, cache)
		if err != nil {
			return rep.stop(err)
		}
		if err := r.checkDB(rep, t, false); err != nil {
			return err
		}
		kids, err := r.childTiers(t, solved.Children{st}, cache)
		if err != nil {
			return err
		}
		again, err := r.resolveJudged(ctx, t, st.Set(), kids[1:])
		if err != nil {
			return err
		}
		defer again.Free()
		var n atomic.Uint64
		full := FullCounts{Tier: t, Name: r.Game.TierName(t)}
		rs := plan.SplitRanges(st.Set(), plan.RangesFor(st.Set().Total(), r.Workers, r.Ranges))
		err = work.ForEach(ctx, r.Workers, len(rs), func(ctx context.Context, i int) error {
			moves := make([]tiergame.Child, 0, 64)
			cur := tiergame.NewCursor(r.Game, t) // positions come in ascending order
			var images []tiergame.Position
			var local FullCounts
			last := 0
			for p := range st.Set().Range(rs[i].Lo, rs[i].Hi) {
				if n.Add(1)&4095 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				stored, _ := st.Lookup(tiergame.Position(p))
				if sym != nil {
					var k uint64
					k, images = orbitSize(sym, t, tiergame.Position(p), images)
					local.add(stored.Value(), k)
				}
				if again != nil {
					// A tier the rules judge: its record solved again.
					want, _ := again.Lookup(tiergame.Position(p))
					if stored == want {
						if _, plies, ok := ruleOf(rr, stored); ok {
							rederived.Add(1)
							if plies == 0 {
								declared.Add(1)
							}
						}
						continue
					}
					rep.mismatch(&mu, Mismatch{Tier: t, Position: tiergame.Position(p), Stored: stored, Derived: want, Again: true})
					continue
				}
				derived, err := derive(cur, tiergame.Position(p), kids, &last, moves[:0])
				if err == nil && derived == stored {
					continue
				}
				rep.mismatch(&mu, Mismatch{Tier: t, Position: tiergame.Position(p), Stored: stored, Derived: derived, Err: err})
			}
			mu.Lock()
			full.sum(local)
			mu.Unlock()
			return nil
		})
		if err != nil {
			return err
		}
		if sym != nil {
			rep.Full = append(rep.Full, full)
		}
		rep.Positions += n.Load()
		rep.Tiers++
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	rep.RuleDeclared, rep.RuleRederived = declared.Load(), rederived.Load()
	return rep, nil
}

// resolveJudged solves tier t again, if the game's rules of play judge
// it (tiergame.Judge), from its children's stored records kids (verified
// before it): the retrograde analysis and the rule pass, as the solver
// ran them. It returns nil for a tier the rules do not judge. A rule
// record is a rule pass's outcome, which no look at a position's
// children can re-derive; the tier solved again gives every record.
func (r *Run) resolveJudged(ctx context.Context, t tiergame.Tier, set *bitarray.Ranked, kids []*solved.Tier) (*solved.Tier, error) {
	j, ok := quotient.Base(r.Game).(tiergame.Judge)
	if !ok || !j.Judges(t) {
		return nil, nil
	}
	return SolveTier(ctx, r.Game, t, set, kids, Shape{Loopy: r.Graph.Loopy[t], ReverseIndex: r.ReverseIndex},
		work.Effort{Workers: r.Workers, Ranges: r.Ranges})
}

// ruleOf returns the round and plies of rec if the rules of play decided
// it, as rr reads it.
func ruleOf(rr tiergame.RuleReader, rec valuedb.Record) (round, plies int, ok bool) {
	if rr == nil {
		return 0, 0, false
	}
	return rr.RuleRecord(rec.Value(), rec.Remoteness())
}

// derive computes a position's record from its children's stored records.
func derive(cur tiergame.Cursor, p tiergame.Position, kids solved.Children, last *int, buf []tiergame.Child) (valuedb.Record, error) {
	v, cs := cur.Moves(p, buf)
	if v != tiergame.Undecided {
		return valuedb.Make(v, 0), nil
	}
	c := solved.NewCombiner()
	for _, ch := range cs {
		st := kids.Find(ch.Tier, last)
		if st == nil {
			return 0, fmt.Errorf("child in unexpected tier %d", ch.Tier)
		}
		rec, ok := st.Lookup(ch.Pos)
		if !ok {
			return 0, fmt.Errorf("child %d of tier %d is not reachable", ch.Pos, ch.Tier)
		}
		c.Add(rec)
	}
	return c.Record()
}

// checkDB checks tier t's database: its checksum, and its counts against
// the manifest's (in a game with chance only the certain wins and losses:
// its other positions have no one value). It records in rep what is
// wrong, and returns errStop, which ends the walk, if the database cannot
// be read.
func (r *Run) checkDB(rep *VerifyReport, t tiergame.Tier, chance bool) error {
	path := r.dbPath(t)
	db, err := valuedb.Open(path)
	if err != nil {
		return rep.stop(err)
	}
	defer db.Close()
	if err := db.Verify(); err != nil {
		return rep.stop(err)
	}
	h, rec := db.Header(), r.Manifest.Tier(uint64(t))
	switch {
	case chance && (h.Count != rec.Reachable || h.Win != rec.Win || h.Lose != rec.Lose):
		rep.FileErrors = append(rep.FileErrors, fmt.Sprintf("%s: %d positions (%d certain wins, %d certain losses), the manifest says %d (%d, %d)",
			path, h.Count, h.Win, h.Lose, rec.Reachable, rec.Win, rec.Lose))
	case !chance && (h.Count != rec.Reachable || h.Win != rec.Win || h.Lose != rec.Lose || h.Tie != rec.Tie || h.Draw != rec.Draw):
		rep.FileErrors = append(rep.FileErrors, fmt.Sprintf("%s: %d positions (win %d, lose %d, tie %d, draw %d), the manifest says %d (win %d, lose %d, tie %d, draw %d)",
			path, h.Count, h.Win, h.Lose, h.Tie, h.Draw, rec.Reachable, rec.Win, rec.Lose, rec.Tie, rec.Draw))
	}
	return nil
}
