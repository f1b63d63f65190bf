package solved

import (
	"errors"
	"slices"
	"testing"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

// TestPut replaces some draws of a solved tier in place and checks
// that its records are then those New makes of the same records, in
// dense and by-rank tiers, with and without widening the cells.
func TestPut(t *testing.T) {
	tests := []struct {
		name   string
		size   uint64 // hash space
		every  uint64 // a reachable position every so many hashes
		newRem int    // the remoteness of the replacing wins and losses
	}{
		{"dense, byte cells kept", 1000, 3, 40},
		{"dense, widened", 1000, 3, 5000},
		{"by rank, byte cells kept", 1 << 25, 1 << 12, 40},
		{"by rank, widened", 1 << 25, 1 << 12, 5000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := bitarray.New(0, tc.size)
			for p := uint64(5); p < tc.size; p += tc.every {
				s.Add(p)
			}
			set := bitarray.NewRanked(s)
			recs := make([]valuedb.Record, set.Total())
			for i := range recs {
				switch i % 4 {
				case 0:
					recs[i] = valuedb.Make(tiergame.Win, i%7)
				case 1:
					recs[i] = valuedb.Make(tiergame.Lose, i%5)
				default:
					recs[i] = valuedb.Make(tiergame.Draw, 0)
				}
			}
			st, err := New(7, set, recs, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Free()
			if got, want := st.dense, WorthDense(set); got != want || want != (tc.size <= 1000) {
				t.Fatalf("dense %v, want %v for this case", got, want)
			}
			// Replace every draw of rank 2 mod 8: a win or a loss by turns.
			want := slices.Clone(recs)
			var ps []tiergame.Position
			var rs []valuedb.Record
			for i := 2; i < len(recs); i += 8 {
				p, _ := set.Select(uint64(i))
				v := tiergame.Win
				if i%16 == 10 {
					v = tiergame.Lose
				}
				r := valuedb.Make(v, tc.newRem+i%3)
				ps, rs, want[i] = append(ps, tiergame.Position(p)), append(rs, r), r
			}
			for k, p := range ps {
				if err := st.Put(p, rs[k], 2); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]valuedb.Record, st.Len())
			st.Records(got, 0)
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("rank %d: record %v, want %v", i, got[i], want[i])
			}
			for i, r := range want {
				p, _ := set.Select(uint64(i))
				if rec, ok := st.Lookup(tiergame.Position(p)); !ok || rec != r {
					t.Fatalf("Lookup(%d) = %v, %v; want %v", p, rec, ok, r)
				}
			}
			ref, err := New(7, set, want, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Free()
			gr, gt := st.Longest()
			wr, wt := ref.Longest()
			if gr != wr || gt != wt {
				t.Fatalf("Longest() = %d, %d; New's %d, %d", gr, gt, wr, wt)
			}
		})
	}
}

// TestPutRefuses checks that Put changes nothing when the position is
// not the tier's or the record has no value (a win too long for byte
// cells: a refused Put does not widen them either).
func TestPutRefuses(t *testing.T) {
	s := bitarray.New(0, 100)
	for p := uint64(0); p < 100; p += 2 {
		s.Add(p)
	}
	set := bitarray.NewRanked(s)
	recs := make([]valuedb.Record, set.Total())
	for i := range recs {
		recs[i] = valuedb.Make(tiergame.Draw, 0)
	}
	win := valuedb.Make(tiergame.Win, 5000)
	tests := []struct {
		name    string
		p       tiergame.Position
		r       valuedb.Record
		noValue bool
	}{
		{"unreachable position", 7, win, false},
		{"beyond the tier", 200, win, false},
		{"no value", 6, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := New(1, set, recs, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Free()
			lay := st.cells.Lay
			err = st.Put(tc.p, tc.r, 1)
			if err == nil {
				t.Fatal("Put succeeded")
			}
			if errors.Is(err, ErrNoValue) != tc.noValue || errors.Is(err, ErrNotHeld) == tc.noValue {
				t.Fatalf("error %v: want ErrNoValue %v, ErrNotHeld %v", err, tc.noValue, !tc.noValue)
			}
			got := make([]valuedb.Record, st.Len())
			st.Records(got, 0)
			if i := firstDiff(got, recs); i >= 0 {
				t.Fatalf("rank %d changed to %v", i, got[i])
			}
			if r, _ := st.Longest(); r != 0 || st.cells.Lay != lay {
				t.Fatalf("longest remoteness %d, layout %v after a refused Put (was %v)", r, st.cells.Lay, lay)
			}
		})
	}
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []valuedb.Record) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
