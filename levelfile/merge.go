package levelfile

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/bitarray"
)

// MergeOptions control Merge.
type MergeOptions struct {
	Options
	// Workers is how many files are decoded at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called after each file with the number of
	// files done and the compressed bytes read so far.
	Progress func(files int, bytes int64)
}

// Merge reads level files (typically the partial level files of one tier)
// and returns the union of their members as a set over [min, max] of all
// of them. Files are decoded concurrently into the one set, so the memory
// is one bit per position of the span whatever the number of files. An
// all-empty input gives an empty set of length 0.
func Merge(ctx context.Context, names []string, opts *MergeOptions) (*bitarray.Set, error) {
	var o MergeOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	// The headers give the span to allocate.
	lo, hi, any, err := MergedRange(names)
	if err != nil {
		return nil, err
	}
	if !any {
		return bitarray.New(0, 0), nil
	}
	span := hi - lo + 1
	if span == 0 || span > o.Options.maxSpan() {
		return nil, fmt.Errorf("%w: merged span %d..%d exceeds %d positions (Options.MaxSpan)", ErrTooLarge, lo, hi, o.Options.maxSpan())
	}
	set := bitarray.New(lo, span)
	if err := MergeInto(ctx, set, names, &o); err != nil {
		return nil, err
	}
	return set, nil
}

// MergedRange reads the headers of level files and returns the smallest
// min and the largest max of those that are not empty (ok is false when
// all are): the range their union spans.
func MergedRange(names []string) (lo, hi uint64, ok bool, err error) {
	for _, name := range names {
		h, err := ReadHeader(name)
		if err != nil {
			return 0, 0, false, err
		}
		if h.Empty {
			continue
		}
		if !ok || h.Min < lo {
			lo = h.Min
		}
		if !ok || h.Max > hi {
			hi = h.Max
		}
		ok = true
	}
	return lo, hi, ok, nil
}

// MergeInto adds the members of the level files to set, whose range must
// hold them all, decoding files concurrently.
func MergeInto(ctx context.Context, set *bitarray.Set, names []string, opts *MergeOptions) error {
	var o MergeOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Workers)
	var done progressCounter
	for _, name := range names {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			f, err := Open(name, &o.Options)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := f.ReadIntoShared(set); err != nil {
				return fmt.Errorf("levelfile %s: %w", name, err)
			}
			if o.Progress != nil {
				st, _ := f.f.Stat()
				done.add(st.Size(), o.Progress)
			}
			return nil
		})
	}
	return g.Wait()
}

// progressCounter serializes progress callbacks from several goroutines.
type progressCounter struct {
	mu    sync.Mutex
	files int
	bytes int64
}

func (p *progressCounter) add(n int64, f func(int, int64)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files++
	p.bytes += n
	f(p.files, p.bytes)
}
