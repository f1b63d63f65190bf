package solver

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestOracleCachedMatches checks that an oracle with a shared cache (its
// level sets in chunk files, its blocks in a cache far smaller than the
// run) answers every position of every tier as the plain oracle does,
// from several goroutines at once, and stays within the cache's budget;
// with a records cache too (records), whose hits answer most look-ups
// after the first goroutine's.
func TestOracleCachedMatches(t *testing.T) {
	// Each level file is read whole before it is cut in chunks, or (stream)
	// streamed run by run, as a tier too large for the cache is.
	for _, tc := range []struct {
		game, option         string
		sym, stream, records bool
	}{
		{"tictactoe", "", false, false, false},
		{"tictactoe", "", true, false, false},
		{"tictactoe", "", true, true, false},
		{"connect4", "width=4,height=3", false, false, false},
		{"connect4", "width=4,height=3", false, true, false},
		{"quixo", "size=3", false, false, false},
		{"quixo", "size=3", false, true, false},
		{"tictactoe", "", true, false, true},
		{"connect4", "width=4,height=3", false, true, true},
		{"quixo", "size=3", false, false, true},
	} {
		t.Run(fmt.Sprintf("%s%s-sym%v-stream%v-records%v", tc.game, tc.option, tc.sym, tc.stream, tc.records), func(t *testing.T) {
			r := solveRun(t, tc.game, tc.option, Config{Symmetry: tc.sym})
			g := r.Config.Game
			plain, err := oracle.Open(r.Dir, g)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			const budget = 48 << 10
			opts := valuedb.CacheOptions{}
			if tc.records {
				opts.Records = budget / 4
			}
			c := valuedb.NewBlockCacheWith(budget, opts)
			cached, err := oracle.OpenWith(r.Dir, g, oracle.Options{Cache: c, Scratch: t.TempDir(), Stream: tc.stream})
			if err != nil {
				t.Fatal(err)
			}
			tiers := r.Manifest.Tiers
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range tiers {
						tr := tiers[(k+w)%len(tiers)]
						tt := tiergame.Tier(tr.Tier)
						for p := range tiergame.Position(g.TierSize(tt)) {
							want, werr := plain.Lookup(tt, p)
							got, gerr := cached.Lookup(tt, p)
							if want != got || (werr == nil) != (gerr == nil) || errors.Is(werr, oracle.ErrUnreachable) != errors.Is(gerr, oracle.ErrUnreachable) {
								errs <- errorf("tier %s position %d: cached %v, %v; plain %v, %v", g.TierName(tt), p, got, gerr, want, werr)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			st := c.Stats()
			if st.Bytes > budget || st.Misses == 0 || st.Hits == 0 || st.ReadBytes == 0 {
				t.Errorf("cache stats %+v: want at most %d bytes, hits, misses and bytes read", st, budget)
			}
			if tc.records != (st.RecordHits > 0) {
				t.Errorf("records cache %v: %d hits", tc.records, st.RecordHits)
			}
			var table uint64
			if recs := c.Records(); recs != nil {
				table = recs.Bytes()
			}
			cached.Close()
			if st := c.Stats(); st.Bytes != 0 || st.Reserved != table {
				t.Errorf("after Close the cache holds %d bytes and reserves %d, want none and the records' table (%d)", st.Bytes, st.Reserved, table)
			}
			if _, err := cached.Lookup(g.Start()); err == nil {
				t.Error("a look-up after Close: no error")
			}
		})
	}
}

var errorf = fmt.Errorf
