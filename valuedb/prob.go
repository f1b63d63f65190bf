package valuedb

import (
	"errors"
	"fmt"

	"github.com/tiersolve/tiersolve/tiergame"
)

// KindProbability is the Kind of a database of probabilities: one
// tiergame.Prob per position, the chance that the player to move wins in a
// game with chance (format version 2, magic "TSVDB02\n").
const KindProbability = "probability"

// probBytes is the width of a probability record.
const probBytes = 4

// DefaultProbBlockRecords is the default number of probabilities a block
// holds: 16 KiB. Probabilities hardly compress, so small blocks cost
// little space and make a random look-up quick (it decompresses one).
const DefaultProbBlockRecords = 1 << 12

// ErrKind is returned when records are read as the wrong kind (values
// from a probability database, or probabilities from a value database).
var ErrKind = errors.New("wrong kind of records")

// checkKind checks that the header's kind and record width fit the
// file's magic.
func checkKind(m string, h Header) error {
	switch {
	case m == magic && h.Kind == "" && (h.RecordBytes == 1 || h.RecordBytes == 2) && h.Planes == "" &&
		h.MaxRemoteness >= 0 && h.MaxRemoteness <= maxRemotenessOf(h.RecordBytes):
	case m == magicV2 && h.Kind == KindProbability && h.RecordBytes == probBytes && h.Planes == "":
	case m == magicV2 && h.Kind == KindPlanes && validPlanes(h.PlaneNames()) && h.RecordBytes == probBytes*len(h.PlaneNames()):
	default:
		return formatErr("%q file with kind %q, planes %q and %d-byte records", m, h.Kind, h.Planes, h.RecordBytes)
	}
	return nil
}

// WriteProbs writes the probabilities of a tier (indexed by rank) to path,
// atomically, as a version 2 database of kind KindProbability. h's Game,
// Option, Tier and TierName are kept; the rest is computed: Win and Lose
// count the certain wins (ProbOne) and losses (0), Mean is the mean.
//
// A block stores its records' low bytes, then their second bytes, and so
// on (each record a little-endian uint32 split into byte planes), which
// zstd compresses better than whole records.
func WriteProbs(path string, h Header, vals []tiergame.Prob, opts *WriteOptions) (Header, error) {
	o := probOptions(opts)
	h.Count, h.Win, h.Lose, h.Tie, h.Draw, h.MaxRemoteness = uint64(len(vals)), 0, 0, 0, 0, 0
	h.Kind, h.RecordBytes, h.Mean = KindProbability, probBytes, 0
	var sum float64
	for _, p := range vals {
		switch {
		case p > tiergame.ProbOne:
			return h, fmt.Errorf("valuedb %s: probability %#x above one", path, uint32(p))
		case p == tiergame.ProbOne:
			h.Win++
		case p == 0:
			h.Lose++
		}
		sum += p.Float()
	}
	if len(vals) > 0 {
		h.Mean = sum / float64(len(vals))
	}
	err := writeFramed(path, magicV2, &h, len(vals), o, func(raw []byte, lo, hi int) error {
		n := hi - lo
		for i, p := range vals[lo:hi] {
			raw[i], raw[n+i], raw[2*n+i], raw[3*n+i] = byte(p), byte(p>>8), byte(p>>16), byte(p>>24)
		}
		return nil
	})
	return h, err
}

// probOptions are the options of a database of probabilities or planes:
// DefaultProbBlockRecords records a block unless opts say otherwise.
func probOptions(opts *WriteOptions) WriteOptions {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	if o.BlockRecords <= 0 {
		o.BlockRecords = DefaultProbBlockRecords
	}
	return o.normalized()
}

// probAt decodes record i of a block of byte planes.
func probAt(raw []byte, i int) tiergame.Prob {
	n := len(raw) / probBytes
	return tiergame.Prob(raw[i]) | tiergame.Prob(raw[n+i])<<8 | tiergame.Prob(raw[2*n+i])<<16 | tiergame.Prob(raw[3*n+i])<<24
}

// LookupProb returns the probability of the position with the given rank.
func (d *DB) LookupProb(rank uint64) (tiergame.Prob, error) {
	if d.h.Kind != KindProbability {
		return 0, fmt.Errorf("valuedb %s: %w: it holds values, not probabilities", d.name, ErrKind)
	}
	if rank >= d.h.Count {
		return 0, fmt.Errorf("valuedb %s: rank %d out of %d", d.name, rank, d.h.Count)
	}
	raw, err := d.blockOf(rank)
	if err != nil {
		return 0, err
	}
	return checkedProb(d.name, probAt(raw, int(rank%uint64(d.h.BlockRecords))))
}

// ReadAllProbs decodes every probability, decompressing blocks on workers
// goroutines (0 means GOMAXPROCS).
func (d *DB) ReadAllProbs(workers int) ([]tiergame.Prob, error) {
	if d.h.Kind != KindProbability {
		return nil, fmt.Errorf("valuedb %s: %w: it holds values, not probabilities", d.name, ErrKind)
	}
	out := make([]tiergame.Prob, d.h.Count)
	err := d.eachBlock(workers, func(raw []byte, base int) {
		for i := range len(raw) / probBytes {
			out[base+i] = probAt(raw, i)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, checkedProbs(d.name, out)
}

// checkedProbs checks that every value of ps is a probability.
func checkedProbs(name string, ps []tiergame.Prob) error {
	for _, p := range ps {
		if _, err := checkedProb(name, p); err != nil {
			return err
		}
	}
	return nil
}

func checkedProb(name string, p tiergame.Prob) (tiergame.Prob, error) {
	if p > tiergame.ProbOne {
		return 0, fmt.Errorf("valuedb %s: %w: probability %#x above one", name, ErrFormat, uint32(p))
	}
	return p, nil
}
