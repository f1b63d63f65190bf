package xg

import (
	"fmt"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
)

// Decision is one decision of the match in the view of the player on roll:
// a cube decision (the player may double before rolling) or a checker play.
type Decision struct {
	Record   int       // index into File.Records
	Game     int       // game number, from 1
	Kind     EntryType // TypeCube or TypeMove
	Player   int       // XG player on roll: 1 or 2
	Position Position  // position before the decision, Player's view
	Dice     [2]int    // dice rolled as XG stores them; 0,0 for a cube decision

	Steps  []Step // the checker play (moves only)
	Move   string // the checker play in gnubg notation ("24/23 13/8", "bar/22*"); "" when no move was possible
	Action string // the cube action (cube decisions only), see CubeAction

	Board      gnubgid.Board // Position in gnubg's order
	Match      gnubgid.Match // the match state; XG's player 1 is gnubg's player 0
	PositionID string        // gnubg Position ID of Board
	MatchID    string        // gnubg Match ID of Match
}

// CubeAction describes the cube record's outcome: "no double",
// "double/take", "double/pass", "double/beaver", or "" when no double was
// possible (XG writes Double = -2 or -1 then).
func (c *CubeEntry) CubeAction() string {
	switch {
	case c.Double == 0:
		return "no double"
	case c.Double != 1:
		return ""
	case c.Take == 1:
		return "double/take"
	case c.Take == 2:
		return "double/beaver"
	default:
		return "double/pass"
	}
}

// Decisions lists the match's decisions in order: each cube record where a
// double was possible (Double 0 or 1) and each checker play that was
// played. Records XG keeps for other reasons (the opening roll, a cube the
// player could not turn, a roll after which the game was resigned) are left
// out. It fails on a record that cannot be expressed as gnubg IDs, such as
// a match longer than gnubg's 64 points.
func (f *File) Decisions() ([]Decision, error) {
	h := f.MatchHeader()
	if h == nil {
		return nil, fmt.Errorf("xg: %w: no match header", ErrFormat)
	}
	var out []Decision
	var game *GameHeader
	for i, r := range f.Records {
		var d Decision
		switch r := r.(type) {
		case *GameHeader:
			game = r
			continue
		case *CubeEntry:
			if r.CubeAction() == "" {
				continue
			}
			d = Decision{Kind: TypeCube, Player: r.OnRoll(), Position: r.Before(), Action: r.CubeAction()}
			if game == nil {
				return nil, fmt.Errorf("xg: record %d: %w: cube record before any game header", i, ErrFormat)
			}
			d.Match = matchState(h, game, r.CubeB, d.Player)
		case *MoveEntry:
			if !r.Played {
				continue
			}
			if game == nil {
				return nil, fmt.Errorf("xg: record %d: %w: move record before any game header", i, ErrFormat)
			}
			steps, err := r.Steps()
			if err != nil {
				return nil, fmt.Errorf("xg: record %d: %w", i, err)
			}
			d = Decision{Kind: TypeMove, Player: r.Mover(), Position: r.Before(), Dice: r.Dice, Steps: steps}
			d.Move = FormatMove(d.Position, steps)
			d.Match = matchState(h, game, r.CubeA, d.Player)
			d.Match.Dice = r.Dice
		default:
			continue
		}
		d.Record, d.Game = i, game.GameNumber
		var err error
		if d.Board, err = Board(d.Position); err == nil {
			d.PositionID, err = gnubgid.EncodePosition(d.Board)
		}
		if err == nil {
			d.MatchID, err = gnubgid.EncodeMatch(d.Match)
		}
		if err != nil {
			return nil, fmt.Errorf("xg: record %d: %w", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// matchState builds the gnubg match state before a decision of player
// (1 or 2) with XG cube field cube (0 centred, +n 2^n owned by player 1,
// -n owned by player 2).
func matchState(h *MatchHeader, g *GameHeader, cube, player int) gnubgid.Match {
	m := gnubgid.Match{
		CubeOwner: -1,
		Move:      player - 1,
		Turn:      player - 1,
		Crawford:  g.CrawfordApply,
		GameState: gnubgid.GamePlaying,
		Score:     [2]int{g.Score1, g.Score2},
	}
	exp := cube
	switch {
	case cube > 0:
		m.CubeOwner = 0
	case cube < 0:
		m.CubeOwner = 1
		exp = -cube
	}
	// Automatic doubles at the start of a (money) game raise the stake
	// without showing on XG's cube.
	exp += g.NumberOfAutoDouble
	m.Cube = 1 << min(max(exp, 0), 30) // out-of-range values fail in EncodeMatch
	if h.Unlimited() {
		m.Crawford = false
		m.Jacoby = h.Jacoby
	} else {
		m.MatchLength = h.MatchLength
	}
	return m
}

// Board converts p, in the view of the player on roll, to gnubg's board:
// Board[1] is the player on roll, Board[0] the opponent, each counted from
// its own home board with the bar in slot 24.
func Board(p Position) (gnubgid.Board, error) {
	var b gnubgid.Board
	if err := p.check(); err != nil {
		return b, err
	}
	for i := range 24 {
		if n := p[i+1]; n > 0 {
			b[1][i] = int(n)
		}
		if n := p[24-i]; n < 0 {
			b[0][i] = int(-n)
		}
	}
	b[1][24] = int(p[PointBar])
	b[0][24] = int(-p[0])
	return b, b.Validate()
}
