package review

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/egf"
	"github.com/tiersolve/tiersolve/internal/xq"
)

var update = flag.Bool("update", false, "rewrite the fixtures in testdata/egf")

// egfFixture is a xiangqi game of our own, written as EGF for the tests of
// import, solve --from and review: a start position and moves in ICCS.
type egfFixture struct {
	file  string
	start string // FEN
	moves []string
}

// EndgameFixture is testdata/egf/endgame.egf: red's chariot takes the
// last advisor (K+R v K+A becomes K+R v K), then misses the fastest mate,
// then gives the chariot away (K v K, a draw).
var endgameFixture = egfFixture{
	file:  "endgame.egf",
	start: "3k5/4a4/9/9/9/9/9/9/R8/4K4 w",
	moves: []string{
		"a1a8", "d9e9", // the chariot comes up; the general steps aside
		"a8e8", "e9f9", // the chariot takes the advisor with check
		"e8e7", "f9f8", // a slower move
		"e7f7", "f8f7", // the chariot given away
		"e0d0", "f7e7", // a draw
	},
}

// egfGame builds the fixture as an EGF game, checking every move with the
// rules.
func (f egfFixture) egfGame() (*egf.Game, error) {
	b, side, err := xq.ParseFEN(f.start)
	if err != nil {
		return nil, err
	}
	if err := b.Check(side); err != nil {
		return nil, err
	}
	g := egf.NewGame()
	g.Start = egf.Board{}
	g.StartSide = egf.Side(side)
	var next [2][xq.NumKinds]egf.Piece
	first := [xq.NumKinds]egf.Piece{xq.King: 1, xq.Advisor: 2, xq.Elephant: 4, xq.Horse: 6, xq.Chariot: 8, xq.Cannon: 10, xq.Soldier: 12}
	for s := xq.Square(0); s < xq.NumSquares; s++ {
		p := b.At(s)
		if p == xq.NoPiece {
			continue
		}
		code := &next[p.Side()][p.Kind()]
		if *code == 0 {
			*code = first[p.Kind()] + 16*egf.Piece(p.Side())
		}
		g.Start[s] = *code // an egf Board is indexed like xq's squares
		*code++
	}
	codes := g.Start
	for i, name := range f.moves {
		m, err := xq.ParseMove(name)
		if err != nil {
			return nil, err
		}
		legal := false
		for _, x := range b.LegalMoves(side, nil) {
			legal = legal || x == m
		}
		if !legal {
			return nil, fmt.Errorf("move %d %s is not legal in %s", i+1, name, b.FEN(side))
		}
		from := egf.SquareAt(m.From.File(), m.From.Rank()+1)
		to := egf.SquareAt(m.To.File(), m.To.Rank()+1)
		g.Moves = append(g.Moves, egf.Move{From: from, To: to, Captured: codes[m.To]})
		codes[m.To], codes[m.From] = codes[m.From], 0
		b.Play(m)
		side = side.Other()
	}
	g.MovesDone = len(g.Moves)
	g.Header.Event = "tiersolve test fixture"
	g.Header.Description = f.start
	return g, nil
}

// TestEGFFixtures checks that testdata/egf holds the fixtures' bytes
// (go test ./review -run EGFFixtures -update rewrites them).
func TestEGFFixtures(t *testing.T) {
	for _, f := range []egfFixture{endgameFixture} {
		g, err := f.egfGame()
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "testdata", "egf", f.file)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, data) {
			t.Fatalf("%s differs from the fixture's definition (%v): go test ./review -run EGFFixtures -update", path, err)
		}
	}
}
