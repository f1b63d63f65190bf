package valuedb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sync/errgroup"
)

// DB reads one tier's database. Lookups are safe for concurrent use.
type DB struct {
	name      string
	f         *os.File
	h         Header
	dataStart int64
	index     []uint64 // block offsets from dataStart, Blocks+1 of them
	dec       *zstd.Decoder
	ownDec    bool // dec is this DB's, not one of decoders

	mu    sync.Mutex
	cache map[int][]byte // decompressed blocks
	order []int          // cache eviction order (FIFO)

	// shared, when set (OpenCached), holds the decompressed blocks in
	// place of cache, under owner.
	shared *BlockCache
	owner  uint64

	// unpacked, when set (Unpack), is the file of the database's records
	// decompressed, from which misses of shared are read; its segments
	// are cached under segOwner (a dense owner: NewDenseOwner), set before
	// unpacked is.
	unpacked    atomic.Pointer[os.File]
	segOwner    uint64
	unpackMu    sync.Mutex
	unpackTried bool
}

// cacheBlocks is how many decompressed blocks a DB keeps for lookups.
const cacheBlocks = 64

// Open opens a database and checks its framing; the data is checked as it
// is read (zstd frame checksums) or all at once by Verify.
func Open(name string) (*DB, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	d, err := open(f, name)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("valuedb %s: %w", name, err)
	}
	return d, nil
}

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

func open(f *os.File, name string) (*DB, error) {
	fr, err := readFrame(f)
	if err != nil {
		return nil, err
	}
	d := &DB{name: name, f: f, h: fr.h, dataStart: fr.dataStart, index: fr.index, cache: map[int][]byte{}}
	if d.dec, d.ownDec, err = blockDecoder(uint64(d.h.BlockRecords*d.h.RecordBytes) + 1<<16); err != nil {
		return nil, err
	}
	return d, nil
}

// decoders are the zstd decoders of blocks by the most a block may
// decode to (a power of two), kept for the process as encoders are: a
// decoder's buffers are allocated on first use, and a cluster worker
// opens databases for each unit. At most maxDecoders sizes are kept (a
// database of another block size gets a decoder of its own). A decoder
// runs as many DecodeAll calls at once as there are cores.
var (
	decodersMu sync.Mutex
	decoders   = map[uint64]*zstd.Decoder{}
)

const maxDecoders = 8

// blockDecoder returns a decoder of blocks of at most limit bytes, and
// whether it is the caller's own, to close.
func blockDecoder(limit uint64) (dec *zstd.Decoder, own bool, err error) {
	limit = 1 << bits.Len64(limit-1)
	decodersMu.Lock()
	defer decodersMu.Unlock()
	if d := decoders[limit]; d != nil {
		return d, false, nil
	}
	if dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(limit)); err != nil {
		return nil, false, err
	}
	if len(decoders) == maxDecoders {
		return dec, true, nil
	}
	decoders[limit] = dec
	return dec, false, nil
}

// frame is a database's framing: its header, where its blocks start and
// their offsets from there.
type frame struct {
	h         Header
	dataStart int64
	index     []uint64 // Blocks+1 offsets
}

// readFrame reads and checks the framing of the database in f: magic,
// header, trailer and index.
func readFrame(f *os.File) (*frame, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var pre [12]byte
	if _, err := f.ReadAt(pre[:], 0); err != nil || string(pre[:8]) != magic && string(pre[:8]) != magicV2 {
		return nil, formatErr("bad magic")
	}
	hlen := int64(binary.LittleEndian.Uint32(pre[8:]))
	if hlen > maxHeaderLen || 12+hlen+16 > size {
		return nil, formatErr("header length %d", hlen)
	}
	hdr := make([]byte, hlen)
	if _, err := f.ReadAt(hdr, 12); err != nil {
		return nil, err
	}
	fr := &frame{dataStart: 12 + hlen}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fr.h); err != nil {
		return nil, formatErr("header: %v", err)
	}
	h := fr.h
	if err := checkKind(string(pre[:8]), h); err != nil {
		return nil, err
	}
	if h.BlockRecords <= 0 || h.BlockRecords > maxBlockRecords ||
		uint64(h.Blocks) != (h.Count+uint64(h.BlockRecords)-1)/uint64(h.BlockRecords) {
		return nil, formatErr("header %+v is inconsistent", h)
	}
	var tr [16]byte
	if _, err := f.ReadAt(tr[:], size-16); err != nil || string(tr[8:]) != trailerMagic {
		return nil, formatErr("bad trailer")
	}
	indexOff := int64(binary.LittleEndian.Uint64(tr[:8]))
	// The index's size follows from the header, and must fit the file.
	if indexOff < fr.dataStart || indexOff+8*int64(h.Blocks+1)+16 != size {
		return nil, formatErr("index at %d does not fit %d blocks in %d bytes", indexOff, h.Blocks, size)
	}
	raw := make([]byte, 8*(h.Blocks+1))
	if _, err := f.ReadAt(raw, indexOff); err != nil {
		return nil, err
	}
	fr.index = make([]uint64, h.Blocks+1)
	for i := range fr.index {
		fr.index[i] = binary.LittleEndian.Uint64(raw[8*i:])
		if i > 0 && fr.index[i] < fr.index[i-1] {
			return nil, formatErr("index not ascending at block %d", i)
		}
	}
	if fr.index[0] != 0 || int64(fr.index[h.Blocks]) != indexOff-fr.dataStart {
		return nil, formatErr("index does not cover the data")
	}
	return fr, nil
}

// Header returns the database's metadata.
func (d *DB) Header() Header { return d.h }

// Close closes the file.
func (d *DB) Close() error {
	d.closeUnpacked()
	if d.shared != nil {
		d.shared.Drop(d.owner)
		d.shared.Reserve(-d.indexBytes())
	}
	if d.ownDec {
		d.dec.Close()
	}
	return d.f.Close()
}

// block returns block b decompressed, and checks its length.
func (d *DB) block(b int) ([]byte, error) { return d.blockInto(b, nil, nil) }

// blockInto is block decompressed into dst's room, the compressed bytes
// read into comp's (either may be nil: then allocated).
func (d *DB) blockInto(b int, dst, comp []byte) ([]byte, error) {
	lo, hi := d.index[b], d.index[b+1]
	if uint64(cap(comp)) < hi-lo {
		comp = make([]byte, hi-lo)
	}
	comp = comp[:hi-lo]
	if _, err := d.f.ReadAt(comp, d.dataStart+int64(lo)); err != nil {
		return nil, fmt.Errorf("valuedb %s: block %d: %w", d.name, b, err)
	}
	if d.shared != nil {
		d.shared.CountRead(len(comp))
	}
	want := min(uint64(d.h.BlockRecords), d.h.Count-uint64(b)*uint64(d.h.BlockRecords)) * uint64(d.h.RecordBytes)
	if uint64(cap(dst)) < want {
		dst = make([]byte, 0, want)
	}
	raw, err := d.dec.DecodeAll(comp, dst[:0])
	if err != nil {
		return nil, fmt.Errorf("valuedb %s: block %d: %w: %v", d.name, b, ErrFormat, err)
	}
	if uint64(len(raw)) != want {
		return nil, fmt.Errorf("valuedb %s: block %d: %w: %d bytes, want %d", d.name, b, ErrFormat, len(raw), want)
	}
	if d.h.Kind == "" {
		if i := beyondRemoteness(raw, d.h.RecordBytes, d.h.MaxRemoteness); i >= 0 {
			return nil, fmt.Errorf("valuedb %s: block %d: %w: record %d's remoteness is beyond the header's %d", d.name, b, ErrFormat, i, d.h.MaxRemoteness)
		}
	}
	return raw, nil
}

// beyondRemoteness returns the index of the first record in raw (width
// bytes each, as encodeRecords stores them) whose remoteness is above
// maxRem, or -1. Readers size what they hold of a record by the header's
// largest remoteness (the solver's cells), so a record beyond it is as
// malformed as a bad length.
func beyondRemoteness(raw []byte, width, maxRem int) int {
	if width == 1 {
		for i, b := range raw {
			if int(b&63) > maxRem {
				return i
			}
		}
		return -1
	}
	for i := 0; i+1 < len(raw); i += 2 {
		if int(binary.LittleEndian.Uint16(raw[i:])&(1<<14-1)) > maxRem {
			return i / 2
		}
	}
	return -1
}

// Lookup returns the record of the position with the given rank.
func (d *DB) Lookup(rank uint64) (Record, error) {
	if rank >= d.h.Count {
		return 0, fmt.Errorf("valuedb %s: rank %d out of %d", d.name, rank, d.h.Count)
	}
	if d.h.Kind != "" {
		return 0, fmt.Errorf("valuedb %s: %w: it holds %s records", d.name, ErrKind, d.h.Kind)
	}
	if u := d.unpacked.Load(); u != nil {
		return d.lookupUnpacked(u, rank)
	}
	// The cache hit stays inline (not blockOf): this is the look-up of
	// every query.
	if d.shared != nil {
		return d.lookupShared(rank)
	}
	b := int(rank / uint64(d.h.BlockRecords))
	d.mu.Lock()
	raw, ok := d.cache[b]
	d.mu.Unlock()
	if !ok {
		var err error
		if raw, err = d.cacheBlock(b); err != nil {
			return 0, err
		}
	}
	i := int(rank%uint64(d.h.BlockRecords)) * d.h.RecordBytes
	return decodeRecord(raw[i:], d.h.RecordBytes), nil
}

// blockOf returns the block holding the record of the given rank, from
// the cache or else read (and cached).
func (d *DB) blockOf(rank uint64) ([]byte, error) {
	b := int(rank / uint64(d.h.BlockRecords))
	if d.shared != nil {
		if raw, ok := d.shared.Get(BlockKey{d.owner, uint64(b)}); ok {
			return raw, nil
		}
		return d.cacheBlock(b)
	}
	d.mu.Lock()
	raw, ok := d.cache[b]
	d.mu.Unlock()
	if ok {
		return raw, nil
	}
	return d.cacheBlock(b)
}

// cacheBlock reads block b and keeps it in the cache, dropping the oldest
// block when the cache is full.
func (d *DB) cacheBlock(b int) ([]byte, error) {
	raw, err := d.block(b)
	if err != nil {
		return nil, err
	}
	if d.shared != nil {
		d.shared.Add(BlockKey{d.owner, uint64(b)}, raw)
		return raw, nil
	}
	d.mu.Lock()
	if len(d.order) >= cacheBlocks {
		delete(d.cache, d.order[0])
		d.order = d.order[1:]
	}
	d.cache[b] = raw
	d.order = append(d.order, b)
	d.mu.Unlock()
	return raw, nil
}

// ReadAll decodes every record, decompressing blocks on workers goroutines
// (0 means GOMAXPROCS).
func (d *DB) ReadAll(workers int) ([]Record, error) {
	out := make([]Record, d.h.Count)
	return out, d.ReadAllInto(out, workers)
}

// ReadAllInto decodes every record into dst, which must hold exactly the
// database's count, decompressing blocks on workers goroutines.
func (d *DB) ReadAllInto(dst []Record, workers int) error {
	if uint64(len(dst)) != d.h.Count {
		return fmt.Errorf("valuedb %s: %d records, not %d", d.name, d.h.Count, len(dst))
	}
	if d.h.Kind != "" {
		return fmt.Errorf("valuedb %s: %w: it holds %s records", d.name, ErrKind, d.h.Kind)
	}
	return d.eachBlock(workers, func(raw []byte, base int) {
		decodeRecords(dst[base:base+len(raw)/d.h.RecordBytes], raw, d.h.RecordBytes) // block checked the length
	})
}

// EachBlock decodes the records block by block on workers goroutines (0
// means GOMAXPROCS) and calls f with each block's records and the rank of
// the first; f must not keep recs. A caller that keeps the records in a
// form of its own does not hold them whole, decoded, as ReadAll does.
func (d *DB) EachBlock(workers int, f func(base uint64, recs []Record)) error {
	return d.EachBlockIn(workers, 0, d.h.Count, f)
}

// EachBlockIn is EachBlock of the records of ranks [lo, hi) only: the
// blocks that hold them are read, and f gets those records alone.
func (d *DB) EachBlockIn(workers int, lo, hi uint64, f func(base uint64, recs []Record)) error {
	if lo > hi || hi > d.h.Count {
		return fmt.Errorf("valuedb %s: ranks [%d, %d) of %d", d.name, lo, hi, d.h.Count)
	}
	if d.h.Kind != "" {
		return fmt.Errorf("valuedb %s: %w: it holds %s records", d.name, ErrKind, d.h.Kind)
	}
	var pool sync.Pool
	per := uint64(d.h.BlockRecords)
	return d.eachBlockIn(workers, int(lo/per), int((hi+per-1)/per), func(raw []byte, base int) {
		n := len(raw) / d.h.RecordBytes
		buf, _ := pool.Get().(*[]Record)
		if buf == nil || cap(*buf) < n {
			b := make([]Record, n)
			buf = &b
		}
		recs := (*buf)[:n]
		decodeRecords(recs, raw, d.h.RecordBytes)
		from, to := max(lo, uint64(base)), min(hi, uint64(base+n))
		f(from, recs[from-uint64(base):to-uint64(base)])
		pool.Put(buf)
	})
}

// eachBlock decompresses every block on workers goroutines (0 means
// GOMAXPROCS) and calls f with it and the rank of its first record.
func (d *DB) eachBlock(workers int, f func(raw []byte, base int)) error {
	return d.eachBlockIn(workers, 0, d.h.Blocks, f)
}

// eachBlockIn is eachBlock of blocks [lo, hi).
func (d *DB) eachBlockIn(workers, lo, hi int, f func(raw []byte, base int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for b := lo; b < hi; b++ {
		g.Go(func() error {
			raw, err := d.block(b)
			if err != nil {
				return err
			}
			f(raw, b*d.h.BlockRecords)
			return nil
		})
	}
	return g.Wait()
}

// Verify checks the CRC-32C of the blocks and index recorded in the header.
func (d *DB) Verify() error {
	r := io.NewSectionReader(d.f, d.dataStart, int64(d.index[d.h.Blocks])+8*int64(d.h.Blocks+1))
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, r); err != nil {
		return err
	}
	if h.Sum32() != d.h.CRC32C {
		return fmt.Errorf("valuedb %s: %w", d.name, ErrChecksum)
	}
	return nil
}
