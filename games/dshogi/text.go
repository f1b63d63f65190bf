package dshogi

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/tiersolve/tiersolve/tiergame"
)

// Format returns the text form of position h of tier t (see the package
// documentation), "F:gle/.c./.C./ELG:-" for the start.
func (g *Game) Format(t tiergame.Tier, h tiergame.Position) string {
	if t >= numTiers || uint64(h) >= g.TierSize(t) {
		return fmt.Sprintf("(no position: tier %d hash %d)", t, h)
	}
	var p pos
	g.l.decode(t, uint64(h), &p, nil)
	return p.String()
}

// String is the text form of p.
func (p *pos) String() string {
	var b strings.Builder
	b.WriteString("FS"[p.turn : p.turn+1])
	b.WriteByte(':')
	for s := range squares {
		if s > 0 && s%cols == 0 {
			b.WriteByte('/')
		}
		b.WriteByte(pieceLetters[p.sq[s]])
	}
	b.WriteByte(':')
	n := b.Len()
	for side := range 2 {
		for typ := range numTypes {
			for range p.hand[side][typ] {
				b.WriteByte(pieceLetters[codeOf(side, typ)])
			}
		}
	}
	if b.Len() == n {
		b.WriteByte('-')
	}
	return b.String()
}

// errSyntax is wrapped by the errors of Parse for text that is not in the
// text form.
var errSyntax = errors.New(`want SIDE:ROW/ROW/ROW/ROW:HANDS, e.g. "F:gle/.c./.C./ELG:-"`)

// Parse reads the text form of a position. It accepts exactly the
// positions of the variant: every piece of the variant on the board or
// in a hand, and the lions and the side to move those of one of the three
// tiers.
func (g *Game) Parse(s string) (tiergame.Tier, tiergame.Position, error) {
	p, err := g.parse(s)
	if err != nil {
		return 0, 0, fmt.Errorf("dshogi position %q: %w", s, err)
	}
	t, h := g.l.encode(&p, false)
	if t == numTiers {
		return 0, 0, fmt.Errorf("dshogi position %q: %w", s, errLions(&p))
	}
	return t, h, nil
}

func (g *Game) parse(s string) (pos, error) {
	var p pos
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return p, errSyntax
	}
	switch parts[0] {
	case "F":
		p.turn = forest
	case "S":
		p.turn = sky
	default:
		return p, fmt.Errorf("side to move %q: want F (forest) or S (sky)", parts[0])
	}
	rowsText := strings.Split(parts[1], "/")
	if len(rowsText) != rows {
		return p, fmt.Errorf("%d rows: %w", len(rowsText), errSyntax)
	}
	for r, row := range rowsText {
		if len(row) != cols {
			return p, fmt.Errorf("row %d %q: want %d squares", r+1, row, cols)
		}
		for c := range cols {
			code := strings.IndexByte(pieceLetters, row[c])
			if code < 0 {
				return p, fmt.Errorf("square %s: %q is no piece (want . or one of LGECH lgech)", squareName(r*cols+c), row[c])
			}
			if code != empty {
				p.put(r*cols+c, uint8(code))
			}
		}
	}
	if parts[2] != "-" {
		for i := range len(parts[2]) {
			code := strings.IndexByte(pieceLetters, parts[2][i])
			if code <= lionS || code >= henF {
				return p, fmt.Errorf("hand %q: %q cannot be in a hand (want G E C g e c, or - for none)", parts[2], parts[2][i])
			}
			p.hand[sideOf(uint8(code))][handType[code]]++
		}
	}
	if p.set[lionF]&(p.set[lionF]-1) != 0 || p.set[lionS]&(p.set[lionS]-1) != 0 {
		return p, errors.New("more than one lion of a side")
	}
	if p.set[lionF] == 0 && p.set[lionS] == 0 {
		return p, errors.New("no lion on the board")
	}
	for typ := range numTypes {
		n := int(p.hand[forest][typ] + p.hand[sky][typ])
		for _, code := range typeCodes[typ] {
			n += bits.OnesCount16(p.set[code])
		}
		if n != g.l.total[typ] {
			return p, fmt.Errorf("%d %ss on the board and in the hands, want %d (pieces=%s)", n, typeNames[typ], g.l.total[typ], g.pieces)
		}
	}
	return p, nil
}

var typeNames = [numTypes]string{"giraffe", "elephant", "chick"}

// errLions explains why p's lions and side to move are those of no
// position.
func errLions(p *pos) error {
	fl, sl := p.lion(forest), p.lion(sky)
	switch {
	case fl == noSq && p.turn == sky, sl == noSq && p.turn == forest:
		return errors.New("a lion is taken but its captor is to move: the game ended")
	case fl != noSq && farForest&(1<<fl) != 0 && sl != noSq && farSky&(1<<sl) != 0:
		return errors.New("both lions on their far ranks")
	default:
		return errors.New("a lion is on its far rank but its owner is to move: the game ended")
	}
}

// squareName names square s: column a-c, row 1-4 from the top.
func squareName(s int) string {
	return string(rune('a'+s%cols)) + string(rune('1'+s/cols))
}

// moveName names move m of p.
func (p *pos) moveName(m move) string {
	to := squareName(int(m.to))
	if m.isDrop() {
		typ := int(-1 - m.from)
		return string(pieceLetters[codeOf(p.turn, typ)]) + "*" + to
	}
	code := p.sq[m.from]
	sep := "-"
	if p.sq[m.to] != empty {
		sep = "x"
	}
	name := string(pieceLetters[code]) + squareName(int(m.from)) + sep + to
	if (code == chickF || code == chickS) && farRank(p.turn)&(1<<m.to) != 0 {
		name += "+"
	}
	return name
}
