package valuedb

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/errgroup"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
	"github.com/tiersolve/tiersolve/tiergame"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteOptions control writing.
type WriteOptions struct {
	BlockRecords int // records per block; 0 means DefaultBlockRecords
	Workers      int // compressing goroutines; 0 means GOMAXPROCS
	// NoSync renames the file into place without syncing it, for callers
	// that sync the file system once afterwards (atomicfile.SyncFS).
	NoSync bool
	// Fast compresses at zstd's fastest level, for files that are read
	// once (a cluster unit's records); the format is the same.
	Fast bool
}

// normalized returns the options with defaults filled in.
func (opts *WriteOptions) normalized() WriteOptions {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	if o.BlockRecords <= 0 {
		o.BlockRecords = DefaultBlockRecords
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Write writes the records of a tier (indexed by rank) to path, atomically.
// h's Game, Option, Tier and TierName are kept; the rest is computed.
func Write(path string, h Header, recs []Record, opts *WriteOptions) (Header, error) {
	o := opts.normalized()
	byCode, maxRem := tally(recs, o.Workers)
	return writeTallied(path, h, len(recs), byCode, maxRem, o, func(lo, hi int) []Record { return recs[lo:hi] })
}

// writeTallied writes n records, counted by value code in byCode with
// the longest remoteness maxRem, which records gives a block at a time:
// the records of ranks [lo, hi).
func writeTallied(path string, h Header, n int, byCode [8]uint64, maxRem Record, o WriteOptions, records func(lo, hi int) []Record) (Header, error) {
	if byCode[tiergame.Undecided]+byCode[5]+byCode[6]+byCode[7] > 0 {
		return h, fmt.Errorf("valuedb %s: a record has no value", path)
	}
	h.Count, h.Win, h.Lose, h.Tie, h.Draw = uint64(n), byCode[tiergame.Win], byCode[tiergame.Lose], byCode[tiergame.Tie], byCode[tiergame.Draw]
	h.MaxRemoteness = int(maxRem)
	h.RecordBytes = 1
	if h.MaxRemoteness >= 64 {
		h.RecordBytes = 2
	}
	if h.MaxRemoteness >= 1<<14 {
		return h, fmt.Errorf("valuedb %s: remoteness %d does not fit", path, h.MaxRemoteness)
	}
	h.Kind, h.Mean = "", 0
	width := h.RecordBytes
	err := writeFramed(path, magic, &h, n, o, func(raw []byte, lo, hi int) error {
		encodeRecords(raw, records(lo, hi), width)
		return nil
	})
	return h, err
}

// A Source gives the records of a tier by rank, for WriteFrom: a tier
// held in a compact form is written without being decoded whole.
type Source interface {
	// Len is the number of records.
	Len() uint64
	// Records stores the records of ranks [lo, lo+len(dst)) in dst; it
	// is called from several goroutines at once.
	Records(dst []Record, lo uint64)
}

// WriteFrom is Write of the records src gives: the same bytes, with one
// block of records decoded at a time per worker.
func WriteFrom(path string, h Header, src Source, opts *WriteOptions) (Header, error) {
	o := opts.normalized()
	n := src.Len()
	if n > uint64(^uint(0)>>1) {
		return h, fmt.Errorf("valuedb %s: %d records", path, n)
	}
	byCode, maxRem, err := tallySource(src, o)
	if err != nil {
		return h, err
	}
	return writeTallied(path, h, int(n), byCode, maxRem, o, func(lo, hi int) []Record {
		recs := make([]Record, hi-lo)
		src.Records(recs, uint64(lo))
		return recs
	})
}

// tallySource is tally of the records of src, a block at a time on
// o.Workers goroutines.
func tallySource(src Source, o WriteOptions) (byCode [8]uint64, maxRem Record, err error) {
	n := src.Len()
	blocks := (n + uint64(o.BlockRecords) - 1) / uint64(o.BlockRecords)
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(o.Workers)
	per := max(1, blocks/uint64(4*o.Workers))
	for b0 := uint64(0); b0 < blocks; b0 += per {
		g.Go(func() error {
			buf := make([]Record, o.BlockRecords)
			var local [8]uint64
			var localMax Record
			for b := b0; b < min(b0+per, blocks); b++ {
				lo := b * uint64(o.BlockRecords)
				recs := buf[:min(uint64(o.BlockRecords), n-lo)]
				src.Records(recs, lo)
				c, m := tallyPart(recs)
				for i := range c {
					local[i] += c[i]
				}
				localMax = max(localMax, m)
			}
			mu.Lock()
			for i := range local {
				byCode[i] += local[i]
			}
			maxRem = max(maxRem, localMax)
			mu.Unlock()
			return nil
		})
	}
	return byCode, maxRem, g.Wait()
}

// tally counts records by value code (the top 3 bits: 1 win ... 4 draw)
// and finds the largest remoteness, over parts of recs on up to workers
// goroutines (a cluster unit's records are written on the path from one
// tier to the next).
func tally(recs []Record, workers int) (byCode [8]uint64, maxRem Record) {
	const minPart = 1 << 18
	parts := max(1, min(workers, len(recs)/minPart))
	if parts == 1 {
		return tallyPart(recs)
	}
	byCodes := make([][8]uint64, parts)
	maxRems := make([]Record, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			byCodes[p], maxRems[p] = tallyPart(recs[p*len(recs)/parts : (p+1)*len(recs)/parts])
		}()
	}
	wg.Wait()
	for p := range parts {
		for i, n := range byCodes[p] {
			byCode[i] += n
		}
		maxRem = max(maxRem, maxRems[p])
	}
	return byCode, maxRem
}

// tallyPart is tally's branch-free pass over one part.
func tallyPart(recs []Record) (byCode [8]uint64, maxRem Record) {
	for _, r := range recs {
		byCode[r>>13]++
		maxRem = max(maxRem, r&MaxRemoteness)
	}
	return byCode, maxRem
}

// writeFramed writes n records of h.RecordBytes bytes each to path,
// atomically: magic, h as JSON, then the records in blocks of
// o.BlockRecords, each filled by encode(raw, lo, hi) with records [lo, hi)
// and compressed on its own, then the index and the trailer. It sets h's
// BlockRecords, Blocks and CRC32C.
func writeFramed(path, magic string, h *Header, n int, o WriteOptions, encode func(raw []byte, lo, hi int) error) error {
	h.BlockRecords = o.BlockRecords
	h.Blocks = (n + o.BlockRecords - 1) / o.BlockRecords

	enc, err := blockEncoder(o)
	if err != nil {
		return err
	}
	// The blocks are compressed a batch at a time (a few per worker) and
	// handed in order to a spill, which keeps them in memory up to
	// spillAbove bytes and moves them to a scratch file beyond: the header,
	// written first, holds the checksum of every block, and keeping them
	// all cost a cluster worker writing a large part's records more than
	// its memory budget.
	spill := &blockSpill{dir: filepath.Dir(path), limit: spillAbove}
	defer spill.close()
	batch := make([][]byte, 4*o.Workers)
	index := make([]byte, 8*(h.Blocks+1))
	var off uint64
	crc := uint32(0)
	var scratch sync.Pool // a block's raw bytes and its encoding
	for b0 := 0; b0 < h.Blocks; b0 += len(batch) {
		b1 := min(b0+len(batch), h.Blocks)
		var g errgroup.Group
		g.SetLimit(o.Workers)
		for b := b0; b < b1; b++ {
			g.Go(func() error {
				lo, hi := b*o.BlockRecords, min((b+1)*o.BlockRecords, n)
				buf, _ := scratch.Get().(*[2][]byte)
				if buf == nil {
					buf = new([2][]byte)
				}
				defer scratch.Put(buf)
				raw := slices.Grow(buf[0][:0], (hi-lo)*h.RecordBytes)[:(hi-lo)*h.RecordBytes]
				clear(raw) // as a new block's: an encoder need not write every byte
				buf[0] = raw
				if err := encode(raw, lo, hi); err != nil {
					return err
				}
				// EncodeAll grows its destination to the block's bound, so
				// the block is kept in a copy of its own size.
				buf[1] = enc.EncodeAll(raw, buf[1][:0])
				batch[b-b0] = slices.Clone(buf[1])
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for b := b0; b < b1; b++ {
			blk := batch[b-b0]
			batch[b-b0] = nil
			binary.LittleEndian.PutUint64(index[8*b:], off)
			off += uint64(len(blk))
			crc = crc32.Update(crc, castagnoli, blk)
			if err := spill.add(blk); err != nil {
				return fmt.Errorf("valuedb %s: %w", path, err)
			}
		}
	}
	binary.LittleEndian.PutUint64(index[8*h.Blocks:], off)
	h.CRC32C = crc32.Update(crc, castagnoli, index)
	return writeFile(path, magic, h, off, spill.writeTo, index, o.NoSync)
}

// spillAbove is how many bytes of compressed blocks writeFramed keeps in
// memory before it moves them to a scratch file (a variable for tests).
var spillAbove = 2 << 20

// blockSpill holds a database's compressed blocks, in order, until the
// file is written: in memory up to limit bytes, then in a scratch file
// in dir that has no name (removed at once, so that nothing is left
// behind, even by a crash).
type blockSpill struct {
	dir   string
	limit int
	mem   [][]byte
	bytes int
	file  *os.File
}

// add appends a block.
func (s *blockSpill) add(blk []byte) error {
	if s.file == nil && s.bytes+len(blk) > s.limit {
		f, err := os.CreateTemp(s.dir, ".spill-*.vdb")
		if err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		s.file = f
		if err := os.Remove(f.Name()); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		for _, m := range s.mem {
			if _, err := f.Write(m); err != nil {
				return fmt.Errorf("spill: %w", err)
			}
		}
		s.mem, s.bytes = nil, 0
	}
	if s.file != nil {
		if _, err := s.file.Write(blk); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		return nil
	}
	s.mem = append(s.mem, blk)
	s.bytes += len(blk)
	return nil
}

// writeTo writes the blocks to w, in order.
func (s *blockSpill) writeTo(w io.Writer) error {
	if s.file != nil {
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		if _, err := io.CopyBuffer(w, onlyReader{s.file}, make([]byte, copyBuffer)); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
	}
	for _, m := range s.mem {
		if _, err := w.Write(m); err != nil {
			return err
		}
	}
	return nil
}

// close drops the scratch file, if any.
func (s *blockSpill) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// copyBuffer is the buffer of copies from file to file.
const copyBuffer = 1 << 20

// onlyReader hides a reader's WriteTo, so that io.CopyBuffer uses the
// buffer it is given (an *os.File's WriteTo would pick its own).
type onlyReader struct{ io.Reader }

// writeFile writes a database to path, atomically: magic, h as JSON, the
// blocks' bytes (data, in order: dataBytes of them, which writeData
// writes) and the index, then the trailer.
func writeFile(path, magic string, h *Header, dataBytes uint64, writeData func(io.Writer) error, index []byte, noSync bool) error {
	hdr, err := json.Marshal(h)
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var pre []byte
	pre = append(pre, magic...)
	pre = binary.LittleEndian.AppendUint32(pre, uint32(len(hdr)))
	pre = append(pre, hdr...)
	if _, err := f.Write(pre); err != nil {
		return err
	}
	if err := writeData(f); err != nil {
		return err
	}
	trailer := binary.LittleEndian.AppendUint64(index, uint64(len(pre))+dataBytes)
	trailer = append(trailer, trailerMagic...)
	if _, err := f.Write(trailer); err != nil {
		return err
	}
	if noSync {
		return f.CommitNoSync()
	}
	return f.Commit()
}

// encoders are the zstd encoders of blocks by level and concurrency,
// kept for the process: an encoder allocates its tables (about a
// megabyte at the default level) on first use, which the kernel then
// faults in page by page, and a cluster worker writes a database for
// each unit. An encoder runs as many EncodeAll calls at once as its
// concurrency, so that is WriteOptions.Workers (a block's bytes do not
// depend on it).
var encoders sync.Map // encoderKey → *zstd.Encoder

type encoderKey struct {
	fast    bool
	workers int
}

// blockEncoder returns the encoder of the blocks o asks for.
func blockEncoder(o WriteOptions) (*zstd.Encoder, error) {
	k := encoderKey{o.Fast, o.Workers}
	if e, ok := encoders.Load(k); ok {
		return e.(*zstd.Encoder), nil
	}
	level := zstd.SpeedDefault
	if o.Fast {
		level = zstd.SpeedFastest
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(o.Workers))
	if err != nil {
		return nil, err
	}
	if prev, loaded := encoders.LoadOrStore(k, e); loaded {
		e.Close()
		return prev.(*zstd.Encoder), nil
	}
	return e, nil
}
