package levelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

// A candidate file is compressed as a sequence of independent deflate
// chunks (like pigz without its dictionary carry-over): each chunk is
// compressed on its own, ends with a sync flush (so it ends on a byte
// boundary) and the last one ends the stream. The chunks join into one gzip
// member that any gzip reader (zlib's gzread included) decompresses. The
// compressed size of a chunk depends only on its bytes, so:
//   - chunks compress in parallel on all cores, in any order;
//   - a file's size is the sum of its chunks' sizes plus 18 bytes of gzip
//     framing, whatever the scheduling, which keeps the choice of the
//     smallest type exact and deterministic.

// gzipHeader is the 10-byte gzip member header: no flags, mtime 0, no extra
// flags, OS 3 (Unix), as zlib writes it.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}

// gzipFraming is the size of the gzip header and trailer.
const gzipFraming = 10 + 8

// gzipTrailer returns the 8-byte gzip trailer for data with the given CRC-32
// and length.
func gzipTrailer(crc uint32, size uint64) []byte {
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:4], crc)
	binary.LittleEndian.PutUint32(t[4:], uint32(size))
	return t[:]
}

// compressors pools deflate writers per level. Reset returns a writer to
// the state of a new one (TestResetIsFresh checks the output is identical).
var compressors sync.Map // level -> *sync.Pool

func getCompressor(level int) *flate.Writer {
	p, _ := compressors.LoadOrStore(level, &sync.Pool{})
	if w, ok := p.(*sync.Pool).Get().(*flate.Writer); ok {
		return w
	}
	w, err := flate.NewWriter(io.Discard, level)
	if err != nil {
		panic(err) // levels are validated before use
	}
	return w
}

func putCompressor(level int, w *flate.Writer) {
	p, _ := compressors.Load(level)
	p.(*sync.Pool).Put(w)
}

// errAborted reports a chunk whose compression was stopped.
var errAborted = errors.New("levelfile: chunk compression stopped")

// stopCheckBytes is how much raw data compressChunk feeds between looks at
// its stop flag: a dropped candidate wastes at most about this much work.
const stopCheckBytes = 64 << 10

// compressChunk appends the deflate form of raw to dst: sync-flushed when
// it is not the last chunk, ending the stream when it is. A chunk that
// would come out larger than storing it is stored instead, so no chunk
// exceeds storedSize(len(raw)), an upper bound the race relies on. It
// returns errAborted, leaving dst unusable, once stop is set.
func compressChunk(dst *bytes.Buffer, raw []byte, level int, last bool, stop *atomic.Bool) error {
	w := getCompressor(level)
	defer putCompressor(level, w)
	start := dst.Len()
	w.Reset(dst)
	for rest := raw; len(rest) > 0; {
		n := min(len(rest), stopCheckBytes)
		if _, err := w.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
		if stop != nil && stop.Load() {
			return errAborted
		}
	}
	var err error
	if last {
		err = w.Close()
	} else {
		err = w.Flush()
	}
	if err != nil {
		return err
	}
	if int64(dst.Len()-start) > storedSize(int64(len(raw))) {
		dst.Truncate(start)
		storeChunk(dst, raw, last)
	}
	return nil
}

// maxStoredBlock is the most bytes a stored deflate block holds (its LEN
// field is 16 bits).
const maxStoredBlock = 1<<16 - 1

// storeChunk appends raw to dst as stored deflate blocks, the last one
// final when last is set. Stored blocks end on a byte boundary, so chunks
// need no flush between them.
//
// Types 1 and 2 (packed fields) are stored, not compressed: deflate
// finds almost nothing to take out of strictly ascending numbers packed
// bit to bit (LAYOUT.md: under 1% on random sets, 2.8% at most on real
// tiers), and a stored size is known from the raw size alone, so the race
// rules these types in or out without encoding them.
func storeChunk(dst *bytes.Buffer, raw []byte, last bool) {
	for {
		n := min(len(raw), maxStoredBlock)
		var final byte
		if last && n == len(raw) {
			final = 1
		}
		dst.Write([]byte{final, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)})
		dst.Write(raw[:n])
		if raw = raw[n:]; len(raw) == 0 {
			return
		}
	}
}

// storedSize is the size storeChunk gives n raw bytes: at least one block.
func storedSize(n int64) int64 {
	return n + 5*max(1, (n+maxStoredBlock-1)/maxStoredBlock)
}

// crc32Combine returns the CRC-32 (IEEE) of A||B from crcA, crcB and len(B),
// by zlib's method: append len2 zero bytes to A's CRC using the CRC's
// polynomial arithmetic over GF(2), then XOR B's.
func crc32Combine(crc1, crc2 uint32, len2 uint64) uint32 {
	if len2 == 0 {
		return crc1
	}
	// Operators over GF(2) that append 2^k zero bits to a CRC: next holds
	// the one for the last k, and squaring it into op gives the one for
	// k+1; then the two swap.
	var a, b [32]uint32
	op, next := a[:], b[:]
	next[0] = 0xedb88320 // the reflected polynomial: one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		next[n] = row
		row <<= 1
	}
	gf2Square(op, next) // two zero bits
	gf2Square(next, op) // four zero bits
	// From one zero byte on, each bit of len2 in turn.
	for ; len2 != 0; len2 >>= 1 {
		gf2Square(op, next)
		if len2&1 != 0 {
			crc1 = gf2Times(op, crc1)
		}
		op, next = next, op
	}
	return crc1 ^ crc2
}

func gf2Times(mat []uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat []uint32) {
	for n := range 32 {
		square[n] = gf2Times(mat, mat[n])
	}
}

// chunkCRC is the CRC-32 of a raw chunk.
func chunkCRC(raw []byte) uint32 { return crc32.ChecksumIEEE(raw) }
