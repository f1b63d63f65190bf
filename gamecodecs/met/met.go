// Package met reads GNU Backgammon's match equity tables: the XML files
// gnubg ships in its met/ folder (/usr/share/gnubg/met/*.xml on Debian;
// Kazaross-XG2.xml is gnubg's default), described by gnubg's met.dtd.
//
// A table gives the chance that a player wins the match from a score,
// before a game starts, the score told as the points each player still
// needs ("away"). Its pre-Crawford table is for games that are not
// post-Crawford: row i, column j is the chance of player 0 needing i+1
// points against player 1 needing j+1 (a row at 1-away is the Crawford
// game). Its post-Crawford table, for either player or one for each, is
// the chance of the trailer needing n+1 points against a leader at 1-away
// in a post-Crawford game. Player 0 and 1 are gnubg's: tables are
// symmetric but for the Jacoby ones (jac050.xml, jac100.xml), which tell
// them apart.
//
// Only explicit tables are read; gnubg's tables by formula (type "mec"
// or "zadeh" in mec.xml and zadeh.xml) are refused with ErrUnsupported.
// A table covers matches up to its length; gnubg extends shorter tables
// by a formula, this package does not.
package met

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// DefaultFile is gnubg's default table as Debian installs it.
const DefaultFile = "/usr/share/gnubg/met/Kazaross-XG2.xml"

// MaxLength is the longest match a table may cover: gnubg's MAXSCORE.
const MaxLength = 64

// maxFile bounds the bytes read: gnubg's largest table is 52 KB.
const maxFile = 4 << 20

// Errors callers test with errors.Is.
var (
	// ErrFormat marks a file that is not a valid match equity table.
	ErrFormat = errors.New("invalid match equity table")
	// ErrUnsupported marks a valid table this package does not read (a
	// table by formula).
	ErrUnsupported = errors.New("unsupported match equity table")
	// ErrLength marks a score beyond the table's length.
	ErrLength = errors.New("score beyond the match equity table")
)

// Table is a match equity table.
type Table struct {
	Name, Description string
	// Length is the longest match the table covers: scores of up to
	// Length away.
	Length int
	pre    [][]float64  // pre[i][j]: player 0 at i+1 away, player 1 at j+1
	post   [2][]float64 // post[p][n]: player p trailing at n+1 away, post-Crawford
}

// The XML elements of met.dtd.
type (
	xmlTable struct {
		XMLName xml.Name `xml:"met"`
		Info    struct {
			Name        string `xml:"name"`
			Description string `xml:"description"`
			Length      string `xml:"length"`
		} `xml:"info"`
		Pre  xmlPart   `xml:"pre-crawford-table"`
		Post []xmlPart `xml:"post-crawford-table"`
	}
	xmlPart struct {
		Type   string   `xml:"type,attr"`
		Player string   `xml:"player,attr"`
		Rows   []xmlRow `xml:"row"`
	}
	xmlRow struct {
		ME []string `xml:"me"`
	}
)

// ReadFile reads the table in the file at path.
func ReadFile(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("met %s: %w", path, err)
	}
	return t, nil
}

// Read reads a table from r (at most 4 MiB).
func Read(r io.Reader) (*Table, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrFormat, maxFile)
	}
	var x xmlTable
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	t := &Table{Name: strings.TrimSpace(x.Info.Name), Description: strings.TrimSpace(x.Info.Description)}
	n, err := strconv.Atoi(strings.TrimSpace(x.Info.Length))
	switch {
	case err != nil && isFormula(x.Pre.Type):
		return nil, fmt.Errorf("%w: a table by formula (%q)", ErrUnsupported, x.Pre.Type)
	case err != nil:
		return nil, fmt.Errorf("%w: length %q", ErrFormat, x.Info.Length)
	case isFormula(x.Pre.Type):
		return nil, fmt.Errorf("%w: a pre-Crawford table by formula (%q)", ErrUnsupported, x.Pre.Type)
	case n < 1 || n > MaxLength:
		return nil, fmt.Errorf("%w: length %d, want 1 to %d", ErrFormat, n, MaxLength)
	case !explicit(x.Pre.Type):
		return nil, fmt.Errorf("%w: pre-Crawford table of type %q", ErrFormat, x.Pre.Type)
	}
	t.Length = n
	if t.pre, err = rows(x.Pre.Rows, n, n, "pre-Crawford"); err != nil {
		return nil, err
	}
	// The post-Crawford table needs the trailer at up to n-1 away (the
	// first post-Crawford score of an n-point match); gnubg reads no more.
	var have [2]bool
	for _, p := range x.Post {
		if isFormula(p.Type) {
			return nil, fmt.Errorf("%w: a post-Crawford table by formula (%q)", ErrUnsupported, p.Type)
		}
		if !explicit(p.Type) {
			return nil, fmt.Errorf("%w: post-Crawford table of type %q", ErrFormat, p.Type)
		}
		var players []int
		switch p.Player {
		case "both", "":
			players = []int{0, 1}
		case "0":
			players = []int{0}
		case "1":
			players = []int{1}
		default:
			return nil, fmt.Errorf("%w: post-Crawford table of player %q", ErrFormat, p.Player)
		}
		r, err := rows(p.Rows, 1, n-1, "post-Crawford")
		if err != nil {
			return nil, err
		}
		for _, pl := range players {
			if have[pl] {
				return nil, fmt.Errorf("%w: two post-Crawford tables for player %d", ErrFormat, pl)
			}
			have[pl], t.post[pl] = true, r[0]
		}
	}
	for pl, ok := range have {
		if !ok {
			return nil, fmt.Errorf("%w: no post-Crawford table for player %d", ErrFormat, pl)
		}
	}
	return t, nil
}

// isFormula reports whether a table's type is one of gnubg's formulas.
func isFormula(typ string) bool { return typ == "mec" || typ == "zadeh" }

// explicit reports whether a table's type gives its values.
func explicit(typ string) bool { return typ == "explicit" || typ == "" }

// rows reads the first want rows of at least cols values each, every one
// a probability.
func rows(xs []xmlRow, want, cols int, what string) ([][]float64, error) {
	if len(xs) < want {
		return nil, fmt.Errorf("%w: %s table has %d rows, want %d", ErrFormat, what, len(xs), want)
	}
	out := make([][]float64, want)
	for i := range out {
		if len(xs[i].ME) < cols {
			return nil, fmt.Errorf("%w: %s table row %d has %d values, want %d", ErrFormat, what, i+1, len(xs[i].ME), cols)
		}
		out[i] = make([]float64, cols)
		for j := range out[i] {
			v, err := strconv.ParseFloat(strings.TrimSpace(xs[i].ME[j]), 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
				return nil, fmt.Errorf("%w: %s table row %d value %d: %q is not a probability", ErrFormat, what, i+1, j+1, xs[i].ME[j])
			}
			out[i][j] = v
		}
	}
	return out, nil
}

// Win returns the chance that player 0 wins the match when player 0 needs
// away0 points and player 1 away1, before a game: a post-Crawford game
// when postCrawford is set (one of them then needs 1 point), else a game
// before the Crawford game or the Crawford game itself. A player who needs
// no more points (away 0 or less) has won. It fails with ErrLength beyond
// the table's length.
func (t *Table) Win(away0, away1 int, postCrawford bool) (float64, error) {
	switch {
	case away0 <= 0:
		return 1, nil
	case away1 <= 0:
		return 0, nil
	case away0 > t.Length || away1 > t.Length:
		return 0, fmt.Errorf("%w: %d-away against %d-away, the table %q goes to %d", ErrLength, away0, away1, t.Name, t.Length)
	case !postCrawford:
		return t.pre[away0-1][away1-1], nil
	case away0 == 1 && away1 < t.Length: // at 1-away each, as gnubg reads it too

		return 1 - t.post[1][away1-1], nil
	case away1 == 1 && away0 < t.Length:
		return t.post[0][away0-1], nil
	}
	return 0, fmt.Errorf("%w: a post-Crawford game at %d-away against %d-away", ErrLength, away0, away1)
}
