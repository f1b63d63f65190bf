package xg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"
)

// corpusDir holds real XG matches, read in place.
const corpusDir = "../../../shared/corpus/xg"

// corpusFiles returns the real matches, skipping the test when the corpus
// folder is missing entirely.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(corpusDir); os.IsNotExist(err) {
		t.Skipf("corpus %s not present", corpusDir)
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.xg"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .xg files in %s: %v", corpusDir, err)
	}
	return files
}

// Writers for synthetic records, at the offsets of the Delphi layout.

func newRecord(t EntryType) []byte {
	b := make([]byte, recordSize)
	b[8] = byte(t)
	return b
}

func putI32(b []byte, off, v int) { binary.LittleEndian.PutUint32(b[off:], uint32(int32(v))) }

func putF64(b []byte, off int, v float64) {
	binary.LittleEndian.PutUint64(b[off:], math.Float64bits(v))
}

func putShort(b []byte, off int, s string) {
	b[off] = byte(len(s))
	copy(b[off+1:], s)
}

func putWide(b []byte, off int, s string) {
	for i, u := range utf16.Encode([]rune(s)) {
		binary.LittleEndian.PutUint16(b[off+2*i:], u)
	}
}

func putPos(b []byte, off int, p Position) {
	for i, n := range p {
		b[off+i] = byte(n)
	}
}

func matchHeaderRec(version int, p1, p2 string, length int) []byte {
	b := newRecord(TypeMatchHeader)
	putShort(b, 9, p1)
	putShort(b, 50, p2)
	putI32(b, 92, length)
	b[100] = 1 // Crawford
	putI32(b, 552, version)
	putI32(b, 556, recordMagic)
	putI32(b, 576, -1)
	putI32(b, 580, -1)
	if version >= 24 {
		putWide(b, 880, p1)
		putWide(b, 1138, p2)
	}
	return b
}

func gameHeaderRec(game, score1, score2 int) []byte {
	b := newRecord(TypeGameHeader)
	putI32(b, 12, score1)
	putI32(b, 16, score2)
	putI32(b, 48, game)
	putI32(b, 56, -1)
	putI32(b, 60, -1)
	return b
}

// cubeRec writes a cube record; pos is in player 1's view.
func cubeRec(actif, double, take, cubeB int, pos Position) []byte {
	b := newRecord(TypeCube)
	putI32(b, 12, actif)
	putI32(b, 16, double)
	putI32(b, 20, take)
	putI32(b, 32, cubeB)
	putPos(b, 36, pos)
	putI32(b, 292, -1)
	return b
}

// moveRec writes a move record: before in player 1's view, after in the
// mover's, moves as XG stores them.
func moveRec(actif int, before, after Position, moves [8]int, dice [2]int, cubeA int) []byte {
	b := newRecord(TypeMove)
	putPos(b, 9, before)
	putPos(b, 35, after)
	putI32(b, 64, actif)
	for i, m := range moves {
		putI32(b, 68+4*i, m)
	}
	putI32(b, 100, dice[0])
	putI32(b, 104, dice[1])
	putI32(b, 108, cubeA)
	b[2308] = 1 // Played
	putI32(b, 2524, -1)
	return b
}

func gameFooterRec(score1, score2, winner, points, termination int) []byte {
	b := newRecord(TypeGameFooter)
	putI32(b, 12, score1)
	putI32(b, 16, score2)
	putI32(b, 24, winner)
	putI32(b, 28, points)
	putI32(b, 32, termination)
	return b
}

func matchFooterRec(score1, score2, winner int) []byte {
	b := newRecord(TypeMatchFooter)
	putI32(b, 12, score1)
	putI32(b, 16, score2)
	putI32(b, 20, winner)
	return b
}

// startPos is the opening position in either player's view.
var startPos = Position{0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0}

// tinyMatch is a one-game 1-point match: player 1 opens with 5-1
// (24/23 13/8), player 2 doubles, player 1 passes.
func tinyMatch() []byte {
	after := Position{0, -2, 0, 0, 0, 0, 5, 0, 4, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -5, 0, 0, 0, 1, 1, 0}
	return bytes.Join([][]byte{
		matchHeaderRec(30, "Alice", "Bob", 1),
		gameHeaderRec(1, 0, 0),
		cubeRec(1, -2, -1, 0, startPos),
		moveRec(1, startPos, after, [8]int{12, 7, 23, 22, -1, -1, -1, -1}, [2]int{5, 1}, 0),
		cubeRec(-1, 1, 0, 0, after),
		gameFooterRec(0, 1, -1, 1, 0),
		matchFooterRec(0, 1, -1),
	}, nil)
}

// member is one file of a synthetic archive.
type member struct {
	name   string
	data   []byte
	stored bool
	packed []byte // the compressed stream to store instead of data's
}

func zlibBytes(data []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// buildXG writes an XG container holding members; edit, when not nil, may
// change each 532-byte registry entry before the registry is compressed.
// The archive CRC is computed last, over the final bytes.
func buildXG(thumb []byte, members []member, edit func(i int, entry []byte)) []byte {
	hdr := make([]byte, headerSize)
	copy(hdr, "RGMH")
	binary.LittleEndian.PutUint32(hdr[4:], 1)
	binary.LittleEndian.PutUint32(hdr[8:], headerSize)
	binary.LittleEndian.PutUint32(hdr[20:], uint32(len(thumb)))
	putWide(hdr, 40, "test game")

	var body, reg []byte
	for i, m := range members {
		packed := m.packed
		switch {
		case packed != nil:
		case m.stored:
			packed = m.data
		default:
			packed = zlibBytes(m.data)
		}
		e := make([]byte, registryEntrySize)
		putShort(e, 0, m.name)
		putI32(e, 512, len(m.data))
		putI32(e, 516, len(packed))
		putI32(e, 520, len(body))
		binary.LittleEndian.PutUint32(e[524:], crc32.ChecksumIEEE(m.data))
		if m.stored {
			e[528] = 1
		}
		e[529] = 2
		if edit != nil {
			edit(i, e)
		}
		body = append(body, packed...)
		reg = append(reg, e...)
	}
	creg := zlibBytes(reg)
	archive := append(body, creg...)
	rec := make([]byte, archiveRecordSize)
	binary.LittleEndian.PutUint32(rec[0:], crc32.ChecksumIEEE(archive))
	putI32(rec, 4, len(members))
	putI32(rec, 8, 1)
	putI32(rec, 12, len(creg))
	putI32(rec, 16, len(body))
	putI32(rec, 20, 1)
	return bytes.Join([][]byte{hdr, thumb, archive, rec}, nil)
}

// buildMatch wraps temp.xg data in a container with a thumbnail and index.
func buildMatch(records []byte) []byte {
	index := append(append([]byte{}, records[:recordSize]...), records[len(records)-recordSize:]...)
	return buildXG([]byte("\xff\xd8jpeg\xff\xd9"), []member{
		{name: "temp.xg", data: records},
		{name: "temp.xgi", data: index},
	}, nil)
}

func decodeBytes(t testing.TB, data []byte) *File {
	t.Helper()
	f, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
