// Package valuedb stores the solved values of a tier: one file per tier,
// records indexed by the rank of a position in the tier's level file (so
// the size follows the reachable count, not the hash space), in blocks that
// decompress independently, so a lookup reads one block.
//
// Three kinds of records share the layout: values and remoteness (version
// 1, Write), probabilities for games with chance (version 2 of kind
// "probability", WriteProbs), and several probability-like values a
// position for chance games with planes (version 2 of kind "planes",
// WritePlanes).
//
// Layout (all integers little-endian; see LAYOUT.md):
//
//	magic      "TSVDB01\n", or "TSVDB02\n" for records of the header's kind
//	hlen       uint32: length of the header
//	header     JSON: game, option, tier, count, counts by value, record
//	           width, records per block, number of blocks, CRC-32C of the
//	           blocks and index
//	blocks     one zstd frame (with its content checksum) per block
//	index      blocks+1 uint64 offsets of the blocks, from the first block
//	trailer    uint64 offset of the index from the file start, "TSVDBEND"
package valuedb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Record is a position's value and remoteness, as the solver keeps them in
// memory: the value in the top 3 bits, the remoteness in the low 13.
type Record uint16

// MaxRemoteness is the largest remoteness a Record holds.
const MaxRemoteness = 1<<13 - 1

// Make returns the record of a value and remoteness.
func Make(v tiergame.Value, remoteness int) Record {
	return Record(uint16(v)<<13 | uint16(remoteness))
}

// Value is the record's value.
func (r Record) Value() tiergame.Value { return tiergame.Value(r >> 13) }

// Remoteness is the record's remoteness (0 for draws).
func (r Record) Remoteness() int { return int(r & MaxRemoteness) }

// String is "win in 5", "draw", ...
func (r Record) String() string {
	if r.Value() == tiergame.Draw || r.Value() == tiergame.Undecided {
		return r.Value().String()
	}
	return fmt.Sprintf("%v in %d", r.Value(), r.Remoteness())
}

// Header is the metadata of a tier's database.
type Header struct {
	Game     string `json:"game"`
	Option   string `json:"option"`
	Tier     uint64 `json:"tier"`
	TierName string `json:"tier_name"`
	Count    uint64 `json:"count"`
	Win      uint64 `json:"win"`
	Lose     uint64 `json:"lose"`
	Tie      uint64 `json:"tie"`
	Draw     uint64 `json:"draw"`
	// MaxRemoteness is the largest remoteness stored.
	MaxRemoteness int `json:"max_remoteness"`
	// RecordBytes is 1 (value in 2 bits, remoteness in 6) when every
	// remoteness is below 64, else 2 (2 and 14 bits).
	RecordBytes  int    `json:"record_bytes"`
	BlockRecords int    `json:"block_records"`
	Blocks       int    `json:"blocks"`
	CRC32C       uint32 `json:"crc32c"`
	// Kind is "" for value and remoteness records (format version 1) and
	// KindProbability for probabilities (version 2; see WriteProbs).
	Kind string `json:"kind,omitempty"`
	// Mean is the mean probability of a probability database.
	Mean float64 `json:"mean,omitempty"`
	// Planes names the values of a record of a database of planes
	// (KindPlanes), in order, separated by commas ("centered,owned,
	// opponent"), so that a Header stays comparable; see PlaneNames.
	Planes string `json:"planes,omitempty"`
}

// PlaneNames returns the names of the planes of a database of planes.
func (h Header) PlaneNames() []string {
	if h.Planes == "" {
		return nil
	}
	return strings.Split(h.Planes, ",")
}

// Errors callers test with errors.Is.
var (
	// ErrFormat marks a file that is not a valid value database.
	ErrFormat = errors.New("invalid value database")
	// ErrChecksum marks data that does not match its checksum.
	ErrChecksum = errors.New("value database checksum mismatch")
)

const (
	magic        = "TSVDB01\n" // value and remoteness records
	magicV2      = "TSVDB02\n" // records of the kind the header names
	trailerMagic = "TSVDBEND"
	// DefaultBlockRecords records per block: small enough that a lookup
	// decompresses little, large enough that zstd has context.
	DefaultBlockRecords = 1 << 15
	maxHeaderLen        = 1 << 16
	maxBlockRecords     = 1 << 24
)

// encodeRecords stores recs in dst, width bytes each: the value as 0 win,
// 1 lose, 2 tie, 3 draw in the top 2 bits, the remoteness below (which
// must fit: 6 bits in 1 byte, 14 in 2), and returns dst. The records must
// have a value (Write checks).
func encodeRecords(dst []byte, recs []Record, width int) []byte {
	if width == 1 {
		for i, r := range recs {
			dst[i] = byte((r>>13-1)<<6 | r&63)
		}
		return dst
	}
	for i, r := range recs {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16((r>>13-1)<<14|r&MaxRemoteness))
	}
	return dst
}

// maxRemotenessOf is the largest remoteness a record of width bytes
// holds: 6 bits in one byte, MaxRemoteness in two.
func maxRemotenessOf(width int) int {
	if width == 1 {
		return 63
	}
	return MaxRemoteness
}

// decodeRecords reads into dst the records encodeRecords stored in raw.
func decodeRecords(dst []Record, raw []byte, width int) {
	if width == 1 {
		for i, b := range raw[:len(dst)] {
			dst[i] = Record(uint16(b>>6+1)<<13 | uint16(b&63))
		}
		return
	}
	for i := range dst {
		x := binary.LittleEndian.Uint16(raw[2*i:])
		dst[i] = Record((x>>14+1)<<13 | x&(1<<14-1))
	}
}

// decodeRecord reads a record that encodeRecords stored.
func decodeRecord(b []byte, width int) Record {
	if width == 1 {
		return Record(uint16(b[0]>>6+1)<<13 | uint16(b[0]&63))
	}
	x := uint16(b[0]) | uint16(b[1])<<8
	return Record((x>>14+1)<<13 | x&(1<<14-1))
}
