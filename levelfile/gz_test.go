package levelfile

import (
	"bytes"
	stdflate "compress/flate"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

// TestStoreChunk: stored chunks, alone or next to compressed ones, form a
// deflate stream that the standard library inflates, of exactly
// storedSize bytes each.
func TestStoreChunk(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{
		{0}, {1}, {maxStoredBlock}, {maxStoredBlock + 1}, {2*maxStoredBlock + 7},
		{5, 0, 9}, {maxStoredBlock, maxStoredBlock}, {1 << 20, 3},
	} {
		for _, compressedLast := range []bool{false, true} {
			var stream, want bytes.Buffer
			for i, n := range sizes {
				raw := make([]byte, n)
				for k := range raw {
					raw[k] = byte(r.UintN(256))
				}
				want.Write(raw)
				last := i == len(sizes)-1 && !compressedLast
				before := stream.Len()
				storeChunk(&stream, raw, last)
				if got := int64(stream.Len() - before); got != storedSize(int64(n)) {
					t.Fatalf("sizes %v: chunk %d stored in %d bytes, storedSize says %d", sizes, i, got, storedSize(int64(n)))
				}
			}
			if compressedLast {
				tail := []byte("a compressed chunk ends the stream")
				want.Write(tail)
				if err := compressChunk(&stream, tail, DefaultLevel, true, nil); err != nil {
					t.Fatal(err)
				}
			}
			got, err := io.ReadAll(stdflate.NewReader(&stream))
			if err != nil {
				t.Fatalf("sizes %v: %v", sizes, err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("sizes %v: inflated %d bytes, want %d", sizes, len(got), want.Len())
			}
		}
	}
}

// TestPackedTypesNeedNoWork: the sizes of types 1 and 2 are known before
// encoding them, so a race they lose never encodes them, and a file of
// either type is exactly its raw bytes in stored blocks.
func TestPackedTypesNeedNoWork(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := randomSet(r, 0, 3<<20, 0.5) // type 3 wins by far
	_, res := writeBytes(t, s, nil)
	if res.Header.Type != Type3 {
		t.Fatalf("chose type %d, want 3", res.Header.Type)
	}
	for _, typ := range []Type{Type1, Type2} {
		c := res.Candidates[typ]
		if c.RawDone != 0 || c.Complete {
			t.Errorf("type %d: encoded %d bytes in a race it cannot win", typ, c.RawDone)
		}
		_, one := writeBytes(t, s, &WriteOptions{Types: Types(typ)})
		p := newPlan(setStats(s), typ, Spec, "", false, false)
		want := int64(gzipFraming)
		for _, ch := range p.chunks {
			want += storedSize(ch.raw)
		}
		if one.Bytes != want || c.Size != want {
			t.Errorf("type %d: file of %d bytes, race bound %d, want %d", typ, one.Bytes, c.Size, want)
		}
	}
}

// TestHuffmanOnlyBound: type 0's lower bound, a bit per byte, holds for
// Huffman-only chunks of any content, runs of one byte included (where
// match searching would beat it by far).
func TestHuffmanOnlyBound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	inputs := [][]byte{
		bytes.Repeat([]byte{'7'}, 1<<20),
		bytes.Repeat([]byte("1 "), 300_000),
		[]byte("9"),
	}
	digits := make([]byte, 700_000)
	for i := range digits {
		digits[i] = "0123456789 "[r.UintN(11)]
	}
	inputs = append(inputs, digits)
	for _, in := range inputs {
		for _, last := range []bool{false, true} {
			var out bytes.Buffer
			if err := compressChunk(&out, in, flate.HuffmanOnly, last, nil); err != nil {
				t.Fatal(err)
			}
			if lb := int64(len(in)) / 8; int64(out.Len()) < lb {
				t.Errorf("%d bytes compressed to %d, below the bound %d", len(in), out.Len(), lb)
			}
		}
	}
}

// TestCRC32Combine: the CRC of A and B put together, from theirs and B's
// length, is the CRC of A||B, for lengths of B around every power of two
// up to a megabyte.
func TestCRC32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 1<<20+1)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	lens := []int{0}
	for n := 1; n <= 1<<20; n <<= 1 {
		lens = append(lens, n-1, n, n+1)
	}
	for _, alen := range []int{0, 1, 100} {
		a := data[:alen]
		for _, blen := range lens {
			b := data[alen : alen+min(blen, len(data)-alen)]
			want := crc32.ChecksumIEEE(data[:alen+len(b)])
			if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), uint64(len(b))); got != want {
				t.Errorf("A of %d bytes, B of %d: %08x, want %08x", len(a), len(b), got, want)
			}
		}
	}
}
