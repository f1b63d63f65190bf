// Package gnubgid encodes and decodes GNU Backgammon's Position IDs and
// Match IDs, the short strings gnubg shows under its board and accepts in
// "set gnubgid POSID:MATCHID".
//
// A Position ID is the base64 form (standard alphabet, no padding, 14
// characters) of an 80-bit key: for each side, for each of its 25 slots,
// as many 1-bits as checkers followed by one 0-bit, packed LSB-first.
// A Match ID is the base64 form (12 characters) of a 72-bit key whose
// fields are described on [Match].
//
// The decoders are stricter than gnubg in one respect: gnubg ignores bits
// it does not use (padding bits of the last base64 character, bits after
// the 50th slot, bits 67..71 of the match key) and silently normalises a
// few fields; this package rejects such IDs with [ErrNonCanonical], so
// that whenever DecodeX succeeds, EncodeX gives back the very same string.
// Everything gnubg rejects is rejected too.
package gnubgid

import (
	"errors"
	"fmt"
	"strings"
)

// Lengths of the IDs in characters.
const (
	PositionIDLen = 14
	MatchIDLen    = 12
)

// Limits taken from gnubg: it refuses Match IDs with a match length over
// 64 (its MAXSCORE), and the key has 4 bits for log2 of the cube.
const (
	MaxMatchLength = 64
	MaxCube        = 1 << 15
	MaxCheckers    = 15
)

// Errors callers may test with errors.Is. Every error returned by this
// package wraps one of these.
var (
	ErrLength          = errors.New("wrong length")
	ErrBadChar         = errors.New("invalid base64 character")
	ErrNonCanonical    = errors.New("non-canonical encoding (gnubg would normalise it)")
	ErrNegative        = errors.New("negative checker count")
	ErrTooManyCheckers = errors.New("more than 15 checkers on one side")
	ErrSharedPoint     = errors.New("both sides on the same point")
	ErrClosedBoards    = errors.New("both sides on the bar against closed boards")
	ErrInvalidMatch    = errors.New("invalid match state")
)

// Board is a backgammon position in gnubg's anBoard order:
// Board[0] is the side NOT on roll, Board[1] the side on roll. Each side
// has 25 slots: index 0..23 are points 1..24 counted from that side's own
// home board, index 24 is the bar. Checkers borne off are not stored.
type Board [2][25]int

// Validate reports whether gnubg would accept b: counts are non-negative,
// each side has at most 15 checkers, no point is held by both sides
// (b[0][i] > 0 && b[1][23-i] > 0), and not both sides are on the bar
// against closed home boards (gnubg's CheckPosition refuses that too).
func (b Board) Validate() error {
	for side := range b {
		total := 0
		for slot, n := range b[side] {
			if n < 0 {
				return fmt.Errorf("side %d slot %d: %w", side, slot, ErrNegative)
			}
			total += n
		}
		if total > MaxCheckers {
			return fmt.Errorf("side %d has %d checkers: %w", side, total, ErrTooManyCheckers)
		}
	}
	for i := 0; i < 24; i++ {
		if b[0][i] > 0 && b[1][23-i] > 0 {
			return fmt.Errorf("point %d of side 0 (point %d of side 1): %w", i+1, 24-i, ErrSharedPoint)
		}
	}
	if b[0][24] > 0 && b[1][24] > 0 && closed(b[0]) && closed(b[1]) {
		return ErrClosedBoards
	}
	return nil
}

// closed reports whether a side holds all six home points.
func closed(side [25]int) bool {
	for i := 0; i < 6; i++ {
		if side[i] < 2 {
			return false
		}
	}
	return true
}

// EncodePosition returns the 14-character Position ID of b.
func EncodePosition(b Board) (string, error) {
	if err := b.Validate(); err != nil {
		return "", fmt.Errorf("gnubgid: encode position: %w", err)
	}
	var key [10]byte
	bit := 0
	for side := range b {
		for _, n := range b[side] {
			for ; n > 0; n-- {
				key[bit/8] |= 1 << (bit % 8)
				bit++
			}
			bit++ // the separating 0-bit
		}
	}
	return encode64(key[:]), nil
}

// DecodePosition parses a 14-character Position ID.
func DecodePosition(id string) (Board, error) {
	b, err := decodePosition(id)
	if err != nil {
		return Board{}, fmt.Errorf("gnubgid: position ID %q: %w", id, err)
	}
	return b, nil
}

func decodePosition(id string) (Board, error) {
	var b Board
	if len(id) != PositionIDLen {
		return b, fmt.Errorf("%d characters, want %d: %w", len(id), PositionIDLen, ErrLength)
	}
	var key [11]byte // 84 bits of base64; the last 4 must be zero
	if err := decode64(key[:], id); err != nil {
		return b, err
	}
	// Errors gnubg reports take precedence over bits it would ignore.
	var count [2]int
	extra := -1 // first 1-bit after the last slot
	slot := 0   // 0..49 over both sides; 50 once every slot is closed
	for bit := 0; bit < 80; bit++ {
		one := key[bit/8]>>(bit%8)&1 == 1
		switch {
		case slot == 50:
			if one && extra < 0 {
				extra = bit
			}
		case !one:
			slot++
		default:
			side := slot / 25
			b[side][slot%25]++
			if count[side]++; count[side] > MaxCheckers {
				return b, fmt.Errorf("side %d: %w", side, ErrTooManyCheckers)
			}
		}
	}
	// Fewer than 50 zero-bits means more than 30 one-bits: caught above.
	if err := b.Validate(); err != nil {
		return b, err
	}
	if extra >= 0 {
		return b, fmt.Errorf("bit %d set after the last slot: %w", extra, ErrNonCanonical)
	}
	if key[10] != 0 {
		return b, fmt.Errorf("base64 padding bits set: %w", ErrNonCanonical)
	}
	return b, nil
}

// DecodeCombined parses gnubg's combined "POSID:MATCHID" form.
func DecodeCombined(s string) (Board, Match, error) {
	pos, match, ok := strings.Cut(s, ":")
	if !ok {
		return Board{}, Match{}, fmt.Errorf("gnubgid: %q: want POSID:MATCHID: %w", s, ErrLength)
	}
	b, err := DecodePosition(pos)
	if err != nil {
		return Board{}, Match{}, err
	}
	m, err := DecodeMatch(match)
	if err != nil {
		return Board{}, Match{}, err
	}
	return b, m, nil
}

// EncodeCombined returns gnubg's combined "POSID:MATCHID" form.
func EncodeCombined(b Board, m Match) (string, error) {
	pos, err := EncodePosition(b)
	if err != nil {
		return "", err
	}
	match, err := EncodeMatch(m)
	if err != nil {
		return "", err
	}
	return pos + ":" + match, nil
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeTable maps a byte to its 6-bit value, or 0xFF.
var decodeTable = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// decode64 unpacks the 6-bit groups of s MSB-first into dst, which must
// hold at least len(s)*6 bits. A hand-written loop rather than
// encoding/base64, which skips '\r' and '\n' and would let such IDs through.
func decode64(dst []byte, s string) error {
	acc, nbits, j := uint(0), 0, 0
	for i := 0; i < len(s); i++ {
		v := decodeTable[s[i]]
		if v == 0xFF {
			return fmt.Errorf("%q at offset %d: %w", s[i], i, ErrBadChar)
		}
		acc = acc<<6 | uint(v)
		nbits += 6
		if nbits >= 8 {
			nbits -= 8
			dst[j] = byte(acc >> nbits)
			j++
		}
	}
	if nbits > 0 {
		dst[j] = byte(acc << (8 - nbits))
	}
	return nil
}

// encode64 is base64 with the standard alphabet and no padding.
func encode64(src []byte) string {
	out := make([]byte, 0, (len(src)*8+5)/6)
	acc, nbits := uint(0), 0
	for _, c := range src {
		acc = acc<<8 | uint(c)
		nbits += 8
		for nbits >= 6 {
			nbits -= 6
			out = append(out, alphabet[acc>>nbits&0x3F])
		}
	}
	if nbits > 0 {
		out = append(out, alphabet[acc<<(6-nbits)&0x3F])
	}
	return string(out)
}
