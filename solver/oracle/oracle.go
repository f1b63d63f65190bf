// Package oracle answers queries from a solved run folder: a position's
// value and remoteness, its moves ranked, and in a game with chance its
// probability of winning, its planes and its plays.
package oracle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/solver/solved"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"github.com/tiersolve/tiersolve/valuedb"
)

// Oracle answers value queries from a solved run folder. A tier's level
// file is loaded (and ranked) on its first query and kept; a lookup then
// reads one block of the tier's database. In a symmetric run a position is
// looked up by its canonical form, so every member of an orbit gets the
// orbit's value, and moves are those of the position asked.
type Oracle struct {
	// Game is the game the positions are in (never a quotient).
	Game tiergame.Game
	sym  tiergame.Symmetric // set for a symmetric run
	dir  string             // the run folder
	m    *runfolder.Manifest

	mu     sync.Mutex
	tiers  map[tiergame.Tier]*oracleTier
	closed bool
	// loaded holds the tiers of tiers too, read without mu: a query's
	// look-ups take no lock shared by every tier.
	loaded sync.Map // tiergame.Tier -> *oracleTier

	// cache, when set (OpenWith), holds the databases' blocks and
	// the level sets' chunks (chunkSet, written to scratch).
	cache        *valuedb.BlockCache
	scratch      string
	stream       bool // Options.Stream
	ownedScratch bool
}

type oracleTier struct {
	once sync.Once // loads the tier on its first query
	err  error
	set  *bitarray.Ranked
	cset *chunkSet // in place of set, with a cache
	db   *valuedb.DB
	// recs and recOwner, with a cache that has a RecordCache, keep the
	// tier's records asked by position (recOwner is the tier's key there).
	recs     *valuedb.RecordCache
	recOwner uint64
	// planes is a chance game's database of planes, opened on the first
	// query of planes (Oracle.Planes).
	planesOnce sync.Once
	planesErr  error
	planes     *valuedb.DB
}

// Open opens a solved run folder for game g.
func Open(dir string, g tiergame.Game) (*Oracle, error) {
	return OpenWith(dir, g, Options{})
}

// Options are the options of OpenWith.
type Options struct {
	// Cache, when set, bounds the oracle's memory: the decompressed blocks
	// of its databases and the chunks of its level sets are kept in it,
	// shared with whoever else uses it (a server of many runs), and no
	// tier's level set is held whole: each is written, on its first query,
	// to a scratch file of chunks (see chunkSet). Without it a tier's
	// level set is loaded whole and kept, and each database keeps a few
	// blocks of its own.
	Cache *valuedb.BlockCache
	// Scratch is the folder of the chunk files, with Cache (default: a
	// new folder in os.TempDir, removed by Close). The files are removed
	// as soon as they are open.
	Scratch string
	// Stream converts every level file to chunks by streaming it, as a
	// tier too large for the cache is (tests: the rarer way).
	Stream bool
}

// OpenWith opens a solved run folder for game g with opts.
func OpenWith(dir string, g tiergame.Game, opts Options) (*Oracle, error) {
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Game != g.Name() || m.Option != g.Option() {
		return nil, fmt.Errorf("%s holds %s (%s), not %s (%s)", dir, m.Game, m.Option, g.Name(), g.Option())
	}
	if !m.Done() {
		return nil, fmt.Errorf("%s: the run is not solved yet", dir)
	}
	g = quotient.Base(g)
	o := &Oracle{Game: g, dir: dir, m: m,
		tiers: map[tiergame.Tier]*oracleTier{}}
	if m.Symmetry {
		q, err := quotient.Reduce(g, true)
		if err != nil {
			return nil, fmt.Errorf("%s holds a symmetric run: %w", dir, err)
		}
		o.sym = q.(tiergame.Symmetric)
	}
	if opts.Cache != nil {
		o.cache, o.scratch, o.stream = opts.Cache, opts.Scratch, opts.Stream
		if o.scratch == "" {
			if o.scratch, err = os.MkdirTemp("", "tierd-oracle-*"); err != nil {
				return nil, fmt.Errorf("oracle of %s: %w", dir, err)
			}
			o.ownedScratch = true
		}
	}
	return o, nil
}

// Canonical returns the position a lookup of p reads: p itself, or in a
// symmetric run its canonical form.
func (o *Oracle) Canonical(t tiergame.Tier, p tiergame.Position) tiergame.Position {
	if o.sym == nil {
		return p
	}
	return o.sym.Canonical(t, p)
}

// Close closes the databases.
func (o *Oracle) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, t := range o.tiers {
		o.loaded.Delete(k)
		t.once.Do(func() { t.err = errClosed }) // a load not begun will not begin
		t.planesOnce.Do(func() { t.planesErr = errClosed })
		if t.db != nil {
			t.db.Close()
		}
		if t.cset != nil {
			t.cset.Close()
		}
		if t.planes != nil {
			t.planes.Close()
		}
	}
	o.tiers, o.closed = nil, true
	if o.ownedScratch {
		os.RemoveAll(o.scratch)
	}
	return nil
}

// tier returns tier t, loading it on first use. Loading one tier does not
// hold up queries on others.
func (o *Oracle) tier(t tiergame.Tier) (*oracleTier, error) {
	if v, ok := o.loaded.Load(t); ok {
		ot := v.(*oracleTier)
		return ot, ot.err // loaded holds only tiers whose once is done
	}
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil, errClosed
	}
	ot, ok := o.tiers[t]
	if !ok {
		ot = &oracleTier{}
		o.tiers[t] = ot
	}
	o.mu.Unlock()
	ot.once.Do(func() {
		ot.err = o.load(t, ot)
		o.loaded.Store(t, ot)
	})
	return ot, ot.err
}

// Preload loads tier t as its first query would (with a cache, writes
// its chunk file), so that a server can do it before it says it is ready.
func (o *Oracle) Preload(t tiergame.Tier) error {
	_, err := o.tier(t)
	return err
}

// Prefetch reads tier t's level set chunks and database blocks into the
// oracle's cache (Options.Cache) while more() says so; without a
// cache it does nothing.
func (o *Oracle) Prefetch(t tiergame.Tier, more func() bool) error {
	ot, err := o.tier(t)
	if err != nil || o.cache == nil {
		return err
	}
	if err := ot.cset.Prefetch(more); err != nil {
		return err
	}
	return ot.db.Prefetch(more)
}

// errClosed is the error of a query after Close.
var errClosed = errors.New("the oracle is closed")

func (o *Oracle) load(t tiergame.Tier, ot *oracleTier) error {
	rec := o.m.Tier(uint64(t))
	if rec == nil || !rec.Solved {
		return fmt.Errorf("tier %s: %w", o.Game.TierName(t), ErrTierNotSolved)
	}
	if o.cache == nil {
		var err error
		ot.set, ot.db, err = solved.OpenFiles(o.Game, t, o.levelPath(t), o.dbPath(t))
		return err
	}
	cs, err := openChunkSet(o.Game, t, o.levelPath(t), o.scratch, o.cache, o.stream)
	if err != nil {
		return err
	}
	db, err := valuedb.OpenCached(o.dbPath(t), o.cache)
	if err != nil {
		cs.Close()
		return err
	}
	if db.Header().Count != cs.Total() {
		db.Close()
		cs.Close()
		return fmt.Errorf("%s has %d records for %d positions", o.dbPath(t), db.Header().Count, cs.Total())
	}
	ot.cset, ot.db = cs, db
	if ot.recs = o.cache.Records(); ot.recs != nil {
		ot.recOwner = o.cache.NewOwner()
	}
	return nil
}

// rank returns the rank of p in the tier's set and whether it is a member.
func (ot *oracleTier) rank(p uint64) (uint64, bool, error) {
	if ot.cset != nil {
		return ot.cset.Lookup(p)
	}
	r, ok := ot.set.Lookup(p)
	return r, ok, nil
}

// total is the number of positions of the tier's set.
func (ot *oracleTier) total() uint64 {
	if ot.cset != nil {
		return ot.cset.Total()
	}
	return ot.set.Total()
}

// ErrUnreachable is returned for a position that is not reachable from the
// start, so not in the database.
var ErrUnreachable = fmt.Errorf("position is not reachable from the start")

// ErrTierNotSolved is returned for a position of a tier the run has not
// solved (or does not hold).
var ErrTierNotSolved = fmt.Errorf("tier is not solved in this run (its positions are not reachable, or the run is not finished)")

// Lookup returns the record of a position.
func (o *Oracle) Lookup(t tiergame.Tier, p tiergame.Position) (valuedb.Record, error) {
	if uint64(p) >= o.Game.TierSize(t) {
		return 0, fmt.Errorf("position %d outside tier %s", p, o.Game.TierName(t))
	}
	ot, err := o.tier(t)
	if err != nil {
		return 0, err
	}
	cp := uint64(o.Canonical(t, p))
	if ot.recs != nil {
		if rec, ok := ot.recs.Get(ot.recOwner, cp); ok {
			return rec, nil
		}
	}
	r, ok, err := ot.rank(cp)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, ErrUnreachable
	}
	rec, err := ot.db.Lookup(r)
	if err == nil && ot.recs != nil {
		ot.recs.Put(ot.recOwner, cp, rec)
	}
	return rec, err
}

// locate returns the database of a position's tier and its rank there.
func (o *Oracle) locate(t tiergame.Tier, p tiergame.Position) (*valuedb.DB, uint64, error) {
	if uint64(p) >= o.Game.TierSize(t) {
		return nil, 0, fmt.Errorf("position %d outside tier %s", p, o.Game.TierName(t))
	}
	ot, err := o.tier(t)
	if err != nil {
		return nil, 0, err
	}
	r, ok, err := ot.rank(uint64(p))
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, ErrUnreachable
	}
	return ot.db, r, nil
}

// Move is a move of a queried position.
type Move struct {
	Name string
	Tier tiergame.Tier
	Pos  tiergame.Position
	// Child is the record of the position the move leads to, from the view
	// of the player to move there.
	Child valuedb.Record
}

// Outcome is the move's value for the player making it.
func (m Move) Outcome() tiergame.Value {
	switch m.Child.Value() {
	case tiergame.Win:
		return tiergame.Lose
	case tiergame.Lose:
		return tiergame.Win
	}
	return m.Child.Value()
}

// Remoteness is the move's remoteness for the player making it: the
// plies to the end counted from the position before the move, the move
// included (the child's remoteness + 1), so that the best move's Outcome
// and Remoteness are the position's own value and remoteness. 0 for a
// draw, which has none.
func (m Move) Remoteness() int {
	if m.Child.Value() == tiergame.Draw {
		return 0
	}
	return m.Child.Remoteness() + 1
}

// Moves returns the moves of a position with their values, best first for
// the player to move: wins (quickest first), ties (quickest first), draws,
// then losses (slowest first). The moves and the positions they lead to
// are p's own, in a symmetric run too.
func (o *Oracle) Moves(t tiergame.Tier, p tiergame.Position) ([]Move, error) {
	return o.AppendMoves(nil, t, p)
}

// AppendMoves is Moves appending to dst: a server answering many
// positions reuses one slice.
func (o *Oracle) AppendMoves(dst []Move, t tiergame.Tier, p tiergame.Position) ([]Move, error) {
	cb := childBufs.Get().(*[]tiergame.Child)
	defer childBufs.Put(cb)
	v, cs := o.Game.Moves(t, p, (*cb)[:0])
	*cb = cs
	if v != tiergame.Undecided {
		return dst, nil
	}
	var names []string
	if mn, ok := o.Game.(tiergame.MoveNamer); ok {
		names = mn.MoveNames(t, p)
	}
	start := len(dst)
	for i, c := range cs {
		rec, err := o.Lookup(c.Tier, c.Pos)
		if err != nil {
			return dst, fmt.Errorf("move %d: %w", i, err)
		}
		m := Move{Tier: c.Tier, Pos: c.Pos, Child: rec}
		if i < len(names) {
			m.Name = names[i]
		} else {
			m.Name = strconv.Itoa(i + 1)
		}
		dst = append(dst, m)
	}
	slices.SortStableFunc(dst[start:], func(a, b Move) int { return moveRank(a) - moveRank(b) })
	return dst, nil
}

// childBufs are AppendMoves' rooms for a position's children.
var childBufs = sync.Pool{New: func() any { return new([]tiergame.Child) }}

// moveRank orders moves best first.
func moveRank(m Move) int {
	r := m.Child.Remoteness()
	switch m.Outcome() {
	case tiergame.Win:
		return r
	case tiergame.Tie:
		return 1<<20 + r
	case tiergame.Draw:
		return 2 << 20
	}
	return 4<<20 - r
}

// levelPath is the path of tier t's level file.
func (o *Oracle) levelPath(t tiergame.Tier) string {
	return filepath.Join(o.dir, o.m.LevelPath(o.Game, t))
}

// dbPath is the path of tier t's value database.
func (o *Oracle) dbPath(t tiergame.Tier) string { return filepath.Join(o.dir, o.m.DBPath(o.Game, t)) }
