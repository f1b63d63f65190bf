package gnubgid

import "fmt"

// Game states stored in Match.GameState (gnubg's gamestate enum).
const (
	GameNone     = 0 // no game started
	GamePlaying  = 1
	GameOver     = 2
	GameResigned = 3
	GameDropped  = 4 // ended by a dropped cube
)

// Match is the state carried by a Match ID. Bit numbers below count from 0
// (the seed text counts from 1); the key is LSB-first.
//
//	bits  0-3   log2 of the cube value
//	bits  4-5   cube owner: 0, 1, or 3 = centred
//	bit   6     player on roll (or who rolled)
//	bit   7     Crawford game
//	bits  8-10  game state
//	bit  11     whose decision it is
//	bit  12     a double is offered
//	bits 13-14  resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
//	bits 15-17, 18-20  the dice, larger first; 0 = not rolled
//	bits 21-35  match length, 0 = money game
//	bits 36-50, 51-65  scores of player 0 and player 1
//	bit  66     NOT Jacoby
//
// Bit 66 belongs to gnubg's "extended" Match ID (the default build of gnubg
// 1.07): gnubg writes it as !fJacoby, so Jacoby is true exactly when bit 66
// is 0. In match play gnubg's cube info has Jacoby off, which is why gnubg
// prints match IDs ending in bit 66 = 1 (the seed's example becomes
// QYkqASAAIAAE); the seed text predates the bit, so its QYkqASAAIAAA
// decodes with Jacoby true. Both re-encode to themselves. This agrees with
// every gnubg vector: jacoby_in_cubeinfo == 1 exactly where bit 66 is 0.
// The zero Match therefore encodes with bit 66 set, as gnubg does.
type Match struct {
	Cube        int    // cube value: 1, 2, 4, ..., 32768 (stored as log2)
	CubeOwner   int    // -1 centred (stored as 3), 0 or 1
	Move        int    // player on roll, or who rolled: 0 or 1
	Crawford    bool   // this is the Crawford game
	GameState   int    // GameNone .. GameDropped
	Turn        int    // player whose decision it is: 0 or 1
	Doubled     bool   // a double is being offered
	Resigned    int    // 0 none, 1 single, 2 gammon, 3 backgammon
	Dice        [2]int // 0,0 = not rolled; each 1..6 otherwise; encoded larger first
	MatchLength int    // 0 = money game, else 1..MaxMatchLength
	Score       [2]int // scores of player 0 and 1
	Jacoby      bool   // stored inverted in bit 66; see above
}

// Validate reports whether m can be encoded and would be accepted by
// gnubg. Beyond the field ranges it applies gnubg's own checks: match
// length at most 64, scores at most the match length, no Crawford game in
// money play. It also requires the dice to be both 0 or both 1..6, which
// gnubg's ID parser does not check but its "set dice" does.
func (m Match) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidMatch)
	}
	if m.Cube < 1 || m.Cube > MaxCube || m.Cube&(m.Cube-1) != 0 {
		return bad("cube %d is not a power of two from 1 to %d", m.Cube, MaxCube)
	}
	if m.CubeOwner < -1 || m.CubeOwner > 1 {
		return bad("cube owner %d not -1, 0 or 1", m.CubeOwner)
	}
	if m.Move != 0 && m.Move != 1 {
		return bad("player on roll %d not 0 or 1", m.Move)
	}
	if m.Turn != 0 && m.Turn != 1 {
		return bad("turn %d not 0 or 1", m.Turn)
	}
	if m.GameState < GameNone || m.GameState > GameDropped {
		return bad("game state %d not 0..4", m.GameState)
	}
	if m.Resigned < 0 || m.Resigned > 3 {
		return bad("resignation %d not 0..3", m.Resigned)
	}
	d0, d1 := m.Dice[0], m.Dice[1]
	if !(d0 == 0 && d1 == 0) && (d0 < 1 || d0 > 6 || d1 < 1 || d1 > 6) {
		return bad("dice %d-%d: want 0-0 or two of 1..6", d0, d1)
	}
	if m.MatchLength < 0 || m.MatchLength > MaxMatchLength {
		return bad("match length %d not 0..%d", m.MatchLength, MaxMatchLength)
	}
	limit := 1<<15 - 1 // money play: any 15-bit score
	if m.MatchLength > 0 {
		limit = m.MatchLength
	} else if m.Crawford {
		return bad("Crawford game in money play")
	}
	for i, s := range m.Score {
		if s < 0 || s > limit {
			return bad("score %d of player %d not 0..%d", s, i, limit)
		}
	}
	return nil
}

// EncodeMatch returns the 12-character Match ID of m.
func EncodeMatch(m Match) (string, error) {
	if err := m.Validate(); err != nil {
		return "", fmt.Errorf("gnubgid: encode match: %w", err)
	}
	var k matchKey
	k.put(0, 4, log2(m.Cube))
	k.put(4, 2, m.CubeOwner&3) // -1 becomes 3
	k.put(6, 1, m.Move)
	k.put(7, 1, b2i(m.Crawford))
	k.put(8, 3, m.GameState)
	k.put(11, 1, m.Turn)
	k.put(12, 1, b2i(m.Doubled))
	k.put(13, 2, m.Resigned)
	hi, lo := m.Dice[0], m.Dice[1]
	if lo > hi {
		hi, lo = lo, hi
	}
	k.put(15, 3, hi)
	k.put(18, 3, lo)
	k.put(21, 15, m.MatchLength)
	k.put(36, 15, m.Score[0])
	k.put(51, 15, m.Score[1])
	k.put(66, 1, b2i(!m.Jacoby))
	return encode64(k[:]), nil
}

// DecodeMatch parses a 12-character Match ID.
func DecodeMatch(id string) (Match, error) {
	m, err := decodeMatch(id)
	if err != nil {
		return Match{}, fmt.Errorf("gnubgid: match ID %q: %w", id, err)
	}
	return m, nil
}

func decodeMatch(id string) (Match, error) {
	var m Match
	if len(id) != MatchIDLen {
		return m, fmt.Errorf("%d characters, want %d: %w", len(id), MatchIDLen, ErrLength)
	}
	var k matchKey
	if err := decode64(k[:], id); err != nil {
		return m, err
	}
	if k.get(67, 5) != 0 {
		return m, fmt.Errorf("unused bits 67-71 set: %w", ErrNonCanonical)
	}
	m.Cube = 1 << k.get(0, 4)
	switch owner := k.get(4, 2); owner {
	case 0, 1:
		m.CubeOwner = owner
	case 3:
		m.CubeOwner = -1
	default: // gnubg reads 2 as centred, which re-encodes as 3
		return m, fmt.Errorf("cube owner 2: %w", ErrNonCanonical)
	}
	m.Move = k.get(6, 1)
	m.Crawford = k.get(7, 1) == 1
	m.GameState = k.get(8, 3)
	m.Turn = k.get(11, 1)
	m.Doubled = k.get(12, 1) == 1
	m.Resigned = k.get(13, 2)
	m.Dice = [2]int{k.get(15, 3), k.get(18, 3)}
	m.MatchLength = k.get(21, 15)
	m.Score = [2]int{k.get(36, 15), k.get(51, 15)}
	m.Jacoby = k.get(66, 1) == 0
	if err := m.Validate(); err != nil {
		return m, err
	}
	if m.Dice[0] < m.Dice[1] { // gnubg accepts and swaps them
		return m, fmt.Errorf("dice %d-%d stored smaller first: %w", m.Dice[0], m.Dice[1], ErrNonCanonical)
	}
	return m, nil
}

// matchKey is the 72-bit match key, LSB-first.
type matchKey [9]byte

func (k *matchKey) put(pos, n, v int) {
	for i := 0; i < n; i++ {
		if v>>i&1 == 1 {
			k[(pos+i)/8] |= 1 << ((pos + i) % 8)
		}
	}
}

func (k *matchKey) get(pos, n int) int {
	v := 0
	for i := 0; i < n; i++ {
		v |= int(k[(pos+i)/8]>>((pos+i)%8)&1) << i
	}
	return v
}

func log2(n int) int {
	i := 0
	for n > 1 {
		n >>= 1
		i++
	}
	return i
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
