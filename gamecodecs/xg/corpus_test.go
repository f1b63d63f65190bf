package xg

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
)

// Facts about the real matches, read off XG's own screens and checked by
// replaying every game.
var corpusFacts = []struct {
	file      string
	version   int
	counts    [6]int // records by type: match header, game header, cube, move, game footer, match footer
	p1, p2    string
	length    int
	event     string
	final     [2]int
	winner    int
	decisions int
}{
	{"1-Intermediate-Round1-Unger-Kozoman-11pt.xg", 30, [6]int{1, 5, 235, 234, 5, 1}, "Kévin UNGER", "Davor KOZOMAN", 11, "Aachen Backgammon Festival", [2]int{0, 11}, -1, 369},
	{"2-Intermediate-Round2-Unger-Lahme-7pt.xg", 30, [6]int{1, 8, 359, 356, 8, 1}, "Kévin UNGER", "Susanne LAHME", 7, "Aachen Backgammon Festival", [2]int{5, 7}, -1, 511},
	{"Lux_Heuler-Franzosen_7_point_match_12.08.2024.xg", 30, [6]int{1, 7, 257, 254, 7, 1}, "Lux Heuler", "Franzosen", 7, "Doppel WM", [2]int{2, 8}, -1, 353},
	{"Squire-Joergensen-Harmand-Unger_7pt_18-08-2024.xg", 30, [6]int{1, 8, 339, 337, 8, 1}, "Squire/Jørgensen", "Harmand/Unger", 7, "World Doubles Championship", [2]int{7, 6}, 1, 452},
	{"charlot1-charlot2_7p_2025-11-08-2305.xg", 32, [6]int{1, 4, 192, 189, 4, 1}, "charlot1", "charlot2", 7, "", [2]int{7, 2}, 1, 279},
	{"match_with_comment.xg", 32, [6]int{1, 8, 184, 179, 8, 1}, "Nicolas HARMAND", "Kévin UNGER", 9, "Entrainement live", [2]int{4, 10}, -1, 307},
	{"ronde1-UngerHarmand-FriebeJacobi-7pt.xg", 32, [6]int{1, 4, 198, 196, 4, 1}, "Kévin UNGER Nicolas HARMAND", "FRIEBE JACOBI", 7, "Aachen Backgammon Festival", [2]int{1, 7}, -1, 291},
	{"ronde3-UngerHarmand-HuyckLarsen.xg", 32, [6]int{1, 4, 183, 182, 4, 1}, "Kévin UNGER Nicolas HARMAND", "Johan HUYCK Michael LARSEN", 7, "Aachen Backgammon Festival", [2]int{1, 7}, -1, 267},
	{"test.xg", 32, [6]int{1, 7, 337, 334, 7, 1}, "Kévin Unger", "Maxence Job", 7, "HSBT Paris 2023", [2]int{7, 4}, 1, 533},
}

func openCorpus(t *testing.T, name string) *File {
	t.Helper()
	corpusFiles(t)
	f, err := Open(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCorpusMatches(t *testing.T) {
	if len(corpusFiles(t)) != len(corpusFacts) {
		t.Errorf("corpus has %d files, the table %d", len(corpusFiles(t)), len(corpusFacts))
	}
	for _, want := range corpusFacts {
		t.Run(want.file, func(t *testing.T) {
			f := openCorpus(t, want.file)
			var counts [6]int
			for _, r := range f.Records {
				counts[r.Type()]++
			}
			h := f.MatchHeader()
			if f.Version != want.version || counts != want.counts {
				t.Errorf("version %d counts %v, want %d %v", f.Version, counts, want.version, want.counts)
			}
			if h.PlayerName(1) != want.p1 || h.PlayerName(2) != want.p2 || h.MatchLength != want.length || h.EventName() != want.event {
				t.Errorf("header %q %q %d %q", h.PlayerName(1), h.PlayerName(2), h.MatchLength, h.EventName())
			}
			// The ANSI copies are the Unicode names in Windows-1252.
			if h.SPlayer1 != h.Player1 || h.SPlayer2 != h.Player2 || h.SEvent != h.Event {
				t.Errorf("ANSI names %q %q %q differ from %q %q %q", h.SPlayer1, h.SPlayer2, h.SEvent, h.Player1, h.Player2, h.Event)
			}
			if !h.Crawford || h.Jacoby || h.Magic != recordMagic {
				t.Errorf("rules Crawford %v Jacoby %v magic %#x", h.Crawford, h.Jacoby, h.Magic)
			}
			mf, ok := f.Records[len(f.Records)-1].(*MatchFooter)
			if !ok || [2]int{mf.Score1, mf.Score2} != want.final || mf.Winner != want.winner {
				t.Errorf("match footer %+v, want score %v winner %d", f.Records[len(f.Records)-1], want.final, want.winner)
			}
			if len(f.Index) != 2 || !reflect.DeepEqual(f.Index[0], f.Records[0]) || !reflect.DeepEqual(f.Index[1], f.Records[len(f.Records)-1]) {
				t.Error("temp.xgi is not the first and last record")
			}
			if f.Header.HeaderVersion != 1 || f.Header.HeaderSize != headerSize || len(f.Thumbnail) < 4 ||
				string(f.Thumbnail[:2]) != "\xff\xd8" || f.Archive.Version != 1 || f.Archive.Offset != int64(headerSize)+int64(len(f.Thumbnail)) {
				t.Errorf("container: header %+v thumbnail %d bytes, archive %+v", f.Header.HeaderVersion, len(f.Thumbnail), f.Archive)
			}
			ds, err := f.Decisions()
			if err != nil || len(ds) != want.decisions {
				t.Errorf("%d decisions, %v; want %d", len(ds), err, want.decisions)
			}
		})
	}
}

// TestCorpusTestXG checks individual fields of one match against what XG
// shows for it.
func TestCorpusTestXG(t *testing.T) {
	f := openCorpus(t, "test.xg")
	h := f.MatchHeader()
	if h.Round != "Tableau Or 2" || h.SRound != "Tableau Or 2" || h.Location != "Paris, Fédération Française de Bridge" ||
		h.SLocation != h.Location || h.Transcriber != "Kévin Unger" || h.GameMode != 0 || h.SiteID != -1 {
		t.Errorf("header details: %+v", h)
	}
	if got := h.Date.Time(); !got.Equal(time.Date(2023, 11, 26, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("date %v", got)
	}
	if f.Header.SaveName != "Kévin Unger vs. Maxence Job, 7 point match7-4" || f.Header.GameName != "Played on Paris, Fédération Française de Bridge" {
		t.Errorf("rich header %q %q", f.Header.SaveName, f.Header.GameName)
	}
	g := f.Records[1].(*GameHeader)
	if g.GameNumber != 1 || g.Score1 != 0 || g.Score2 != 0 || g.CrawfordApply || g.CommentHeaderGame != -1 {
		t.Errorf("game 1 header %+v", g)
	}
	open := f.Records[2].(*CubeEntry)
	if open.Actif != 1 || open.Double != -2 || open.DiceRolled != "51" || open.Position != startPos || open.CubeAction() != "" {
		t.Errorf("opening cube record %+v", open)
	}
	m := f.Records[3].(*MoveEntry)
	if m.ActifP != 1 || m.Dice != [2]int{5, 1} || m.Moves != [8]int{12, 7, 23, 22, -1, -1, -1, -1} || m.PositionI != startPos || !m.Played {
		t.Errorf("first move %+v", m)
	}
	// Player 1 doubles at 0-0 and player 2 passes.
	c := f.Records[62].(*CubeEntry)
	gf := f.Records[63].(*GameFooter)
	if c.Actif != 1 || c.Double != 1 || c.Take != 0 || c.CubeAction() != "double/pass" ||
		gf.Winner != 1 || gf.PointsWon != 1 || gf.Termination != 0 || gf.Score1 != 1 || gf.Score2 != 0 {
		t.Errorf("game 1 ends %+v %+v", c, gf)
	}
	// Game 2: player 1 doubles, player 2 takes and owns the 2-cube.
	c = f.Records[87].(*CubeEntry)
	m = f.Records[88].(*MoveEntry)
	if c.CubeAction() != "double/take" || m.CubeA != -1 || m.DataMoves.Cube != 2 || m.DataMoves.CubePos != -1 {
		t.Errorf("double/take: %+v then CubeA %d", c, m.CubeA)
	}
}

// TestCorpusReplay replays every game: each checker play, applied to the
// position before it, gives the stored position after it and the position
// of the next record; scores carry from game to game; XG's own analysis
// (when present) agrees with the position, dice, cube and score.
func TestCorpusReplay(t *testing.T) {
	for _, name := range corpusFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			h := f.MatchHeader()
			var (
				game    *GameHeader
				next    *Position // player 1's view after the last move
				score   [2]int
				invalid int
			)
			for i, r := range f.Records {
				switch r := r.(type) {
				case *GameHeader:
					if [2]int{r.Score1, r.Score2} != score {
						t.Errorf("record %d: game starts at %d-%d, previous game ended %v", i, r.Score1, r.Score2, score)
					}
					game, next = r, nil
				case *CubeEntry:
					if next != nil && r.Position != *next {
						t.Errorf("record %d: cube position %v, previous move left %v", i, r.Position, *next)
					}
				case *MoveEntry:
					if next != nil && r.PositionI != *next {
						t.Errorf("record %d: move position %v, previous move left %v", i, r.PositionI, *next)
					}
					if !r.Played {
						continue
					}
					if r.InvalidM != 0 {
						invalid++
					}
					steps, err := r.Steps()
					if err != nil {
						t.Fatalf("record %d: %v", i, err)
					}
					after, err := r.Before().Apply(steps)
					if err != nil || after != r.PositionEnd {
						t.Errorf("record %d: %v replays to %v, %v; stored %v", i, steps, after, err, r.PositionEnd)
					}
					p1 := viewOf(r.PositionEnd, r.ActifP)
					next = &p1
					checkAnalysis(t, i, h, game, r)
				case *GameFooter:
					// The winner gains PointsWon, though XG sometimes stops
					// the score at the match length.
					w, l := 0, 1
					if r.Winner != 1 {
						w, l = 1, 0
					}
					got := [2]int{r.Score1, r.Score2}
					full := score[w] + r.PointsWon
					if got[l] != score[l] || got[w] > full || got[w] < min(full, h.MatchLength) {
						t.Errorf("record %d: game ends %v after %v, %d points to player %d", i, got, score, r.PointsWon, w+1)
					}
					score = got
				}
			}
			// One move in the corpus is marked invalid by XG (14/11 8/5 with 4-3).
			if invalid > 1 {
				t.Errorf("%d invalid moves", invalid)
			}
		})
	}
}

// checkAnalysis compares a move with XG's analysis of it, which is in the
// mover's view with the score as points to go.
func checkAnalysis(t *testing.T, i int, h *MatchHeader, g *GameHeader, m *MoveEntry) {
	t.Helper()
	a := m.DataMoves
	if a.NMoves == 0 {
		return
	}
	away := [2]int{h.MatchLength - g.Score1, h.MatchLength - g.Score2}
	if m.ActifP == -1 {
		away[0], away[1] = away[1], away[0]
	}
	cube, owner := 1, 0
	if m.CubeA != 0 {
		cube = 1 << max(m.CubeA, -m.CubeA)
		owner = m.ActifP
		if m.CubeA < 0 {
			owner = -owner
		}
	}
	if a.Pos != m.Before() || (a.Dice != m.Dice && a.Dice != [2]int{m.Dice[1], m.Dice[0]}) || a.Score != away || a.Cube != cube || a.CubePos != owner ||
		(a.Crawford == 1) != g.CrawfordApply {
		t.Errorf("record %d: analysis pos %v dice %v score %v cube %d/%d crawford %d; move %v %v away %v cube %d/%d game %+v",
			i, a.Pos, a.Dice, a.Score, a.Cube, a.CubePos, a.Crawford, m.Before(), m.Dice, away, cube, owner, g)
	}
}

func TestCorpusComments(t *testing.T) {
	f := openCorpus(t, "match_with_comment.xg")
	if len(f.Comments) != 2 {
		t.Fatalf("%d comments, want 2", len(f.Comments))
	}
	for i, c := range f.Comments {
		if !strings.HasPrefix(c, `{\rtf1\ansi`) || !strings.HasSuffix(c, "}") || strings.ContainsAny(c, "\x01\x02") ||
			!strings.Contains(c, "\r\n") {
			t.Errorf("comment %d: %q", i, c)
		}
	}
	if !strings.Contains(f.Comments[0], "coup assez difficile") || !strings.Contains(f.Comments[1], `les double 66 sont toujpurs difficiles \'e0 trouver`) {
		t.Errorf("comment text: %q", f.Comments)
	}
	var used []int
	for _, r := range f.Records {
		if m, ok := r.(*MoveEntry); ok && m.CommentMove >= 0 {
			used = append(used, m.CommentMove)
			if _, ok := f.Comment(m.CommentMove); !ok {
				t.Errorf("comment %d missing", m.CommentMove)
			}
		}
	}
	if !reflect.DeepEqual(used, []int{0, 1}) {
		t.Errorf("moves refer to comments %v, want [0 1]", used)
	}
	if _, ok := f.Comment(-1); ok {
		t.Error("comment -1 found")
	}
}

// TestCorpusDecisions checks the gnubg view of the decisions.
func TestCorpusDecisions(t *testing.T) {
	f := openCorpus(t, "test.xg")
	ds, err := f.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	first := ds[0]
	if first.PositionID != "4HPwATDgc/ABMA" || first.Move != "24/23 13/8" || first.Kind != TypeMove || first.Player != 1 {
		t.Errorf("first decision %+v", first)
	}
	want := gnubgid.Match{Cube: 1, CubeOwner: -1, Move: 0, Turn: 0, GameState: gnubgid.GamePlaying, Dice: [2]int{5, 1}, MatchLength: 7}
	if m, err := gnubgid.DecodeMatch(first.MatchID); err != nil || m != want {
		t.Errorf("first match ID %s = %+v, %v; want %+v", first.MatchID, m, err, want)
	}
	// Player 2 answers 6-1 with 13/7 8/7, seen from player 2's side.
	second, third := ds[1], ds[2]
	if second.Kind != TypeCube || second.Action != "no double" || second.Player != 2 || second.Match.Move != 1 || second.Match.Dice != [2]int{} ||
		third.Move != "13/7 8/7" || third.Dice != [2]int{6, 1} || third.PositionID != second.PositionID {
		t.Errorf("second and third decisions %+v %+v", second, third)
	}

	for _, d := range ds {
		if d.Record == 88 && (d.Match.Cube != 2 || d.Match.CubeOwner != 1) {
			t.Errorf("after the take, cube %d owner %d; want 2 owned by gnubg player 1", d.Match.Cube, d.Match.CubeOwner)
		}
	}

	// In every match, the IDs decode to the decision's board and match
	// state, which carry the game's score and Crawford flag.
	var crawford, owned int
	for _, name := range corpusFiles(t) {
		f, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := f.Decisions()
		if err != nil {
			t.Fatal(err)
		}
		length := f.MatchHeader().MatchLength
		for _, d := range ds {
			b, m, err := gnubgid.DecodeCombined(d.PositionID + ":" + d.MatchID)
			if err != nil || b != d.Board || m != d.Match {
				t.Fatalf("%s record %d: IDs %s:%s decode to %v %+v, %v", name, d.Record, d.PositionID, d.MatchID, b, m, err)
			}
			g := gameOf(f, d.Record)
			if m.Score != [2]int{g.Score1, g.Score2} || m.Crawford != g.CrawfordApply || m.MatchLength != length || m.Jacoby ||
				m.Move != d.Player-1 || m.Turn != m.Move || m.GameState != gnubgid.GamePlaying {
				t.Errorf("%s record %d: match %+v in game %+v", name, d.Record, m, g)
			}
			if m.Crawford {
				crawford++
			}
			if m.CubeOwner >= 0 {
				owned++
			}
		}
	}
	if crawford == 0 || owned == 0 {
		t.Errorf("no Crawford (%d) or owned-cube (%d) decisions", crawford, owned)
	}
}

func gameOf(f *File, rec int) *GameHeader {
	for i := rec; i >= 0; i-- {
		if g, ok := f.Records[i].(*GameHeader); ok {
			return g
		}
	}
	return nil
}
