package xg

import (
	"errors"
	"testing"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
)

// fromBoard is the inverse of Board: gnubg's board to XG's position in the
// view of the side on roll.
func fromBoard(b gnubgid.Board) Position {
	var p Position
	for i := range 24 {
		p[i+1] += int8(b[1][i])
		p[24-i] -= int8(b[0][i])
	}
	p[PointBar] = int8(b[1][24])
	p[0] = -int8(b[0][24])
	return p
}

func TestBoardStart(t *testing.T) {
	b, err := Board(startPos)
	if err != nil {
		t.Fatal(err)
	}
	id, err := gnubgid.EncodePosition(b)
	if err != nil || id != "4HPwATDgc/ABMA" {
		t.Errorf("start position ID %q, %v; want 4HPwATDgc/ABMA", id, err)
	}
	if b[0] != b[1] {
		t.Errorf("start position not symmetric: %v", b)
	}
}

// TestBoardRoundTrip checks Board against its inverse on gnubg's vectors'
// kind of positions: every position ID decodes, converts to XG and back.
func TestBoardRoundTrip(t *testing.T) {
	for _, id := range []string{"4HPwATDgc/ABMA", "yBM8SFjgOeYAWA", "AwAAYnc3AAAAAA", "AAAAxgwhSCMAAA", "AQAAUAklmZQBAA"} {
		b, err := gnubgid.DecodePosition(id)
		if err != nil {
			t.Fatal(err)
		}
		p := fromBoard(b)
		got, err := Board(p)
		if err != nil || got != b {
			t.Errorf("%s: Board(fromBoard) = %v, %v; want %v", id, got, err, b)
		}
		// The flipped position is the same board with the sides swapped.
		fb, err := Board(p.Flip())
		if err != nil || fb[0] != b[1] || fb[1] != b[0] {
			t.Errorf("%s: flipped board %v, %v", id, fb, err)
		}
	}
	if _, err := Board(Position{25: -1}); err == nil {
		t.Error("negative own bar accepted")
	}
	if _, err := Board(Position{1: 16}); err == nil {
		t.Error("16 checkers accepted")
	}
}

func TestFlip(t *testing.T) {
	p := Position{-1, 2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -4, 0, 0, 0, 0, 1, 2}
	f := p.Flip()
	if f[0] != -2 || f[25] != 1 || f[1] != -1 || f[24] != -2 {
		t.Errorf("Flip = %v", f)
	}
	if f.Flip() != p {
		t.Error("Flip is not an involution")
	}
}

// The expected strings below were produced by GNU Backgammon 1.07
// (gnubg.movetupletostring) for the same positions and steps.
func TestFormatMoveGnubg(t *testing.T) {
	tests := []struct {
		posID string
		steps []int // (from, to) pairs, 25 bar, 0 off
		want  string
	}{
		{"4HPwATDgc/ABMA", []int{24, 23, 13, 8}, "24/23 13/8"},
		{"4HPwATDgc/ABMA", []int{8, 3, 6, 3}, "8/3 6/3"},
		{"4HPwATDgc/ABMA", []int{13, 11, 11, 9, 13, 11, 11, 9}, "13/9(2)"},
		{"4HPwATDgc/ABMA", []int{24, 23, 23, 22, 22, 21, 21, 20}, "24/20"},
		{"4HPwATDgc/ABMA", []int{6, 5, 5, 4, 4, 3, 3, 2}, "6/2"},
		{"4HPwATDgc/ABMA", []int{6, 5, 6, 5, 6, 5, 5, 4}, "6/4 6/5(2)"},
		{"4HPwATDgc/ABMA", []int{13, 7, 13, 7, 8, 2, 8, 2}, "13/7(2) 8/2(2)"},
		{"yBM8SFjgOeYAWA", []int{25, 21, 21, 17, 17, 13, 13, 9}, "bar/21*/17*/9"},
		{"yBM8SFjgOeYAWA", []int{25, 23, 13, 7}, "bar/23 13/7*"},
		{"yBM8SFjgOeYAWA", []int{13, 7, 7, 5}, "13/7*/5*"},
		{"yBM8SFjgOeYAWA", []int{11, 7, 7, 5}, "11/7*/5*"},
		{"yBM8SFjgOeYAWA", []int{8, 7, 8, 7}, "8/7*(2)"},
		{"yBM8SFjgOeYAWA", []int{13, 7, 8, 7}, "13/7* 8/7"},
		{"yBM8SFjgOeYAWA", []int{6, 5, 6, 5, 8, 7, 8, 7}, "8/7*(2) 6/5*(2)"},
		{"yBM8SFjgOeYAWA", []int{24, 21, 24, 21, 21, 18, 21, 18}, "24/21*/18(2)"},
		{"yBM8SFjgOeYAWA", []int{25, 21, 21, 17, 13, 9, 13, 9}, "bar/21*/17* 13/9(2)"},
		{"AwAAYnc3AAAAAA", []int{6, 0, 6, 0}, "6/off(2)"},
		{"AwAAYnc3AAAAAA", []int{6, 1, 5, 0}, "6/1* 5/off"},
		{"AwAAYnc3AAAAAA", []int{6, 4, 4, 0}, "6/off"},
		{"AwAAYnc3AAAAAA", []int{2, 0, 2, 0, 3, 0, 3, 0}, "3/off(2) 2/off(2)"},
		{"AwAAYnc3AAAAAA", []int{5, 0, 5, 0, 4, 0, 4, 0}, "5/off(2) 4/off(2)"},
	}
	for _, tt := range tests {
		b, err := gnubgid.DecodePosition(tt.posID)
		if err != nil {
			t.Fatal(err)
		}
		p := fromBoard(b)
		var steps []Step
		for i := 0; i < len(tt.steps); i += 2 {
			steps = append(steps, Step{tt.steps[i], tt.steps[i+1]})
		}
		if got := FormatMove(p, steps); got != tt.want {
			t.Errorf("%s %v: FormatMove = %q, want %q", tt.posID, tt.steps, got, tt.want)
		}
		// Every one of these plays is legal: Apply must accept it.
		if _, err := p.Apply(steps); err != nil {
			t.Errorf("%s %v: Apply: %v", tt.posID, tt.steps, err)
		}
	}
}

func TestApply(t *testing.T) {
	// Player on roll has a checker on the bar; opponent blots on 22 and 20.
	p := Position{0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, 0, -1, 0, -1, 0, 2, 1}
	got, err := p.Apply([]Step{{PointBar, 22}, {22, 20}})
	if err != nil {
		t.Fatal(err)
	}
	want := p
	want[PointBar], want[22], want[20], want[0] = 0, 0, 1, -2
	if got != want {
		t.Errorf("Apply = %v, want %v", got, want)
	}
	for _, bad := range [][]Step{
		{{5, 4}},           // empty point
		{{13, 12}},         // made point
		{{8, 9}},           // backwards
		{{26, 20}},         // no such point
		{{PointBar, -1}},   // no such point
		{{6, 1}, {6, 1}},   // fine, then
		{{24, 12}, {8, 0}}, // made point 12 first
	} {
		if len(bad) == 2 && bad[0] == bad[1] {
			continue
		}
		if _, err := p.Apply(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("Apply(%v) error %v, want ErrFormat", bad, err)
		}
	}
}

// TestStepsSplit checks that pairs covering several dice are split into
// single-die steps, choosing the route that gives PositionEnd.
func TestStepsSplit(t *testing.T) {
	// Own: 24 (3), 13 (4), 8 (3), 6 (5). Opponent: blot on 18, point on 19,
	// 5 on 12 (its mid-point), 2 on 4, 5 on 3.
	p := Position{0, 0, 0, -5, -2, 0, 5, 0, 3, 0, 0, 0, -5, 4, 0, 0, 0, 0, -1, -2, 0, 0, 0, 0, 3, 0}
	tests := []struct {
		name  string
		moves [8]int // as XG stores them
		dice  [2]int
		route []Step // what was played, one die a step
		want  string
	}{
		{"6-1 through the blot", [8]int{23, 16, -1, -1, -1, -1, -1, -1}, [2]int{6, 1},
			[]Step{{24, 18}, {18, 17}}, "24/18*/17"},
		{"6-1 round the blot", [8]int{23, 16, -1, -1, -1, -1, -1, -1}, [2]int{6, 1},
			[]Step{{24, 23}, {23, 17}}, "24/17"},
		{"5-2 past the point", [8]int{23, 16, -1, -1, -1, -1, -1, -1}, [2]int{5, 2},
			[]Step{{24, 22}, {22, 17}}, "24/17"},
		{"6-6 in two pairs", [8]int{12, 0, 23, 17, -1, -1, -1, -1}, [2]int{6, 6},
			[]Step{{13, 7}, {7, 1}, {24, 18}}, "24/18* 13/1"},
		{"single-die pairs", [8]int{23, 17, 7, 5, -1, -1, -1, -1}, [2]int{6, 2},
			[]Step{{24, 18}, {8, 6}}, "24/18* 8/6"},
	}
	for _, tt := range tests {
		end, err := p.Apply(tt.route)
		if err != nil {
			t.Fatalf("%s: bad test route: %v", tt.name, err)
		}
		m := &MoveEntry{ActifP: 1, Played: true, PositionI: p, PositionEnd: end, Moves: tt.moves, Dice: tt.dice}
		steps, err := m.Steps()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if after, err := p.Apply(steps); err != nil || after != end {
			t.Errorf("%s: steps %v replay to %v, %v", tt.name, steps, after, err)
		}
		if got := FormatMove(p, steps); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}

	// 11/off with 6-5 stored as one pair (seen in a real file).
	bear := Position{0, 2, 0, 4, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0}
	m := &MoveEntry{ActifP: 1, Played: true, PositionI: bear, Moves: [8]int{10, -1, -1, -1, -1, -1, -1, -1}, Dice: [2]int{6, 5}}
	m.PositionEnd = bear
	m.PositionEnd[11] = 0
	steps, err := m.Steps()
	if err != nil || len(steps) != 2 || FormatMove(bear, steps) != "11/off" {
		t.Errorf("11/off: %v %v %q", steps, err, FormatMove(bear, steps))
	}
	if after, err := bear.Apply(steps); err != nil || after != m.PositionEnd {
		t.Errorf("11/off replays to %v, %v", after, err)
	}
}

func TestStepsErrors(t *testing.T) {
	for _, moves := range [][8]int{
		{25, 20, -1, -1, -1, -1, -1, -1},
		{5, 7, -1, -1, -1, -1, -1, -1},
		{-5, 2, -1, -1, -1, -1, -1, -1},
	} {
		m := &MoveEntry{ActifP: 1, Played: true, Moves: moves, Dice: [2]int{3, 1}}
		if _, err := m.Steps(); !errors.Is(err, ErrFormat) {
			t.Errorf("%v: error %v, want ErrFormat", moves, err)
		}
	}
}

func TestStepsNotPlayed(t *testing.T) {
	m := &MoveEntry{ActifP: 1, PositionI: startPos, Dice: [2]int{3, 1}}
	if steps, err := m.Steps(); steps != nil || err != nil {
		t.Errorf("unplayed move: %v, %v", steps, err)
	}
}
