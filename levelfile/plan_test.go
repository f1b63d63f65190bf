package levelfile

import (
	"math/rand/v2"
	"testing"
)

// TestPlannedRawIsExact: every chunk's planned raw size, which the race's
// bounds rest on, is the length of its encoding; here with numbers of
// many digit counts.
func TestPlannedRawIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, base := range []uint64{0, 7, 95, 99_990, 1e15 - 3000, 1<<64 - 300_000} {
		for _, d := range []float64{0.001, 0.3, 1} {
			// 300000 positions make several chunks of every type.
			s := randomSet(r, min(base, 1<<64-300_000), 300_000, d)
			st := setStats(s)
			if st.count != s.Count() {
				t.Fatalf("base %d: setStats counts %d members, Count %d", base, st.count, s.Count())
			}
			for typ := Type0; typ <= Type3; typ++ {
				for _, dialect := range []Dialect{Spec, Classic} {
					p := newPlan(st, typ, dialect, "g", false, false)
					var total int64
					for i := range p.chunks {
						p.startChunk(i)
						n := int64(len(p.encode(nil, i)))
						if n != p.chunks[i].raw {
							t.Fatalf("base %d density %g type %d: chunk %d encodes to %d bytes, planned %d", base, d, typ, i, n, p.chunks[i].raw)
						}
						total += n
					}
					if total != p.raw {
						t.Fatalf("base %d type %d: %d bytes, planned %d", base, typ, total, p.raw)
					}
				}
			}
		}
	}
}
