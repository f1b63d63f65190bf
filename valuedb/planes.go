package valuedb

import (
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// KindPlanes is the Kind of a database of planes: several tiergame.Prob
// values a position (tiergame.Planes), named by the header's Planes, such
// as the bearoff's cubeful money equities (format version 2, magic
// "TSVDB02\n").
const KindPlanes = "planes"

// MaxPlanes bounds the planes a database holds.
const MaxPlanes = 16

// WritePlanes writes the planes of a tier to path, atomically, as a
// version 2 database of kind KindPlanes: vals holds len(names) values a
// position, by rank (vals[K*rank+k] is plane k), and each record is a
// position's K values. h's Game, Option, Tier and TierName are kept; the
// rest is computed (Win, Lose, Tie, Draw and Mean are 0). Blocks hold
// DefaultProbBlockRecords positions unless opts say otherwise, their
// values split into byte planes as WriteProbs does.
func WritePlanes(path string, h Header, names []string, vals []tiergame.Prob, opts *WriteOptions) (Header, error) {
	k := len(names)
	if !validPlanes(names) || len(vals)%k != 0 {
		return h, fmt.Errorf("valuedb %s: %d values in planes %q", path, len(vals), names)
	}
	o := probOptions(opts)
	n := len(vals) / k
	h.Count, h.Win, h.Lose, h.Tie, h.Draw, h.MaxRemoteness = uint64(n), 0, 0, 0, 0, 0
	h.Kind, h.RecordBytes, h.Mean, h.Planes = KindPlanes, k*probBytes, 0, strings.Join(names, ",")
	for _, p := range vals {
		if p > tiergame.ProbOne {
			return h, fmt.Errorf("valuedb %s: plane value %#x above one", path, uint32(p))
		}
	}
	err := writeFramed(path, magicV2, &h, n, o, func(raw []byte, lo, hi int) error {
		m := (hi - lo) * k
		for i, p := range vals[k*lo : k*hi] {
			raw[i], raw[m+i], raw[2*m+i], raw[3*m+i] = byte(p), byte(p>>8), byte(p>>16), byte(p>>24)
		}
		return nil
	})
	return h, err
}

// LookupPlanes returns the planes of the position with the given rank.
func (d *DB) LookupPlanes(rank uint64) ([]tiergame.Prob, error) {
	if d.h.Kind != KindPlanes {
		return nil, fmt.Errorf("valuedb %s: %w: it holds %s records, not planes", d.name, ErrKind, d.kindName())
	}
	if rank >= d.h.Count {
		return nil, fmt.Errorf("valuedb %s: rank %d out of %d", d.name, rank, d.h.Count)
	}
	raw, err := d.blockOf(rank)
	if err != nil {
		return nil, err
	}
	k := d.h.RecordBytes / probBytes // checkKind: 4 bytes a plane
	out := make([]tiergame.Prob, k)
	at := k * int(rank%uint64(d.h.BlockRecords))
	for n := range out {
		if out[n], err = checkedProb(d.name, probAt(raw, at+n)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadAllPlanes decodes every position's planes, K = len(Header().Planes)
// values a position by rank, decompressing blocks on workers goroutines
// (0 means GOMAXPROCS).
func (d *DB) ReadAllPlanes(workers int) ([]tiergame.Prob, error) {
	if d.h.Kind != KindPlanes {
		return nil, fmt.Errorf("valuedb %s: %w: it holds %s records, not planes", d.name, ErrKind, d.kindName())
	}
	k := d.h.RecordBytes / probBytes // checkKind: 4 bytes a plane
	out := make([]tiergame.Prob, uint64(k)*d.h.Count)
	err := d.eachBlock(workers, func(raw []byte, base int) {
		for i := range len(raw) / probBytes {
			out[k*base+i] = probAt(raw, i)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, checkedProbs(d.name, out)
}

// kindName names the kind of the database's records for messages.
func (d *DB) kindName() string {
	if d.h.Kind == "" {
		return "value"
	}
	return d.h.Kind
}

// validPlanes reports whether names can name the planes of a database: 1
// to MaxPlanes names, none empty or holding a comma.
func validPlanes(names []string) bool {
	if len(names) < 1 || len(names) > MaxPlanes {
		return false
	}
	for _, n := range names {
		if n == "" || strings.Contains(n, ",") {
			return false
		}
	}
	return true
}
