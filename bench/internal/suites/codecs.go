package suites

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/gamecodecs/egf"
	"github.com/tiersolve/tiersolve/gamecodecs/gnubgid"
	"github.com/tiersolve/tiersolve/gamecodecs/xg"
)

// Codecs is the suite of the game-format codecs: eXtreme Gammon files
// (the real matches of the XG corpus, read in place), GNU Backgammon
// Position and Match IDs, and EGF xiangqi games.
func Codecs() harness.Suite {
	return harness.Suite{
		Name: "codecs",
		Doc:  "codec throughput: XG matches (the corpus, read in place), gnubg Position/Match IDs, EGF games",
		Groups: func(cfg harness.Config) []harness.Group {
			xgSkip := ""
			if cfg.XGCorpus == "" {
				xgSkip = "no XG corpus folder found (give --xg-corpus DIR)"
			} else if names, _ := filepath.Glob(filepath.Join(cfg.XGCorpus, "*.xg")); len(names) == 0 {
				xgSkip = "no .xg files in " + cfg.XGCorpus
			}
			est := 4 * (childStart + 300*time.Millisecond)
			return []harness.Group{
				{ID: "codecs/xg", Table: "codecs", Title: "XG: decode every corpus file; list its decisions", Level: harness.Quick,
					Skip: xgSkip, Estimate: est / 2,
					Variants: []harness.Variant{
						{Name: "decode", Kind: results.KindSubject, Job: harness.NewJob("xg", codecArgs{Op: "decode"})},
						{Name: "decisions", Kind: results.KindSubject, Job: harness.NewJob("xg", codecArgs{Op: "decisions"})},
					}},
				{ID: "codecs/gnubgid", Table: "codecs", Title: "gnubg IDs: 10,000 random positions and match states", Level: harness.Quick,
					Estimate: est,
					Variants: []harness.Variant{
						{Name: "position-decode", Kind: results.KindSubject, Job: harness.NewJob("gnubgid", codecArgs{Op: "position-decode"})},
						{Name: "position-encode", Kind: results.KindSubject, Job: harness.NewJob("gnubgid", codecArgs{Op: "position-encode"})},
						{Name: "match-decode", Kind: results.KindSubject, Job: harness.NewJob("gnubgid", codecArgs{Op: "match-decode"})},
						{Name: "match-encode", Kind: results.KindSubject, Job: harness.NewJob("gnubgid", codecArgs{Op: "match-encode"})},
					}},
				{ID: "codecs/egf", Table: "codecs", Title: "EGF: a game of 400 moves", Level: harness.Quick,
					Estimate: est / 2,
					Variants: []harness.Variant{
						{Name: "parse", Kind: results.KindSubject, Job: harness.NewJob("egf", codecArgs{Op: "parse"})},
						{Name: "marshal", Kind: results.KindSubject, Job: harness.NewJob("egf", codecArgs{Op: "marshal"})},
					}},
			}
		},
		Jobs: map[string]harness.JobFunc{"xg": harness.JobOf(runXG), "gnubgid": harness.JobOf(runGnubgID), "egf": harness.JobOf(runEGF)},
		Columns: []harness.Column{
			{Key: "mb_per_s", Header: "MB/s", Format: "%.1f"},
			{Key: "items_per_s", Header: "items/s", Format: "si"},
			{Key: "fact:items", Header: "items are"},
		},
	}
}

// codecArgs name the operation timed.
type codecArgs struct {
	Op string `json:"op"`
}

// codecSample is the sample of an operation over size bytes and n items
// (records, IDs, moves) that took sec seconds.
func codecSample(sec float64, size, n int, items string) harness.Sample {
	m := map[string]float64{"items_per_s": perSecond(float64(n), sec)}
	if size > 0 {
		m["mb_per_s"] = perSecond(float64(size), sec) / 1e6
	}
	return harness.Sample{Seconds: sec, Metrics: m, Facts: map[string]string{"items": items}}
}

func runXG(_ context.Context, env harness.JobEnv, a codecArgs) (harness.Sample, error) {
	names, err := filepath.Glob(filepath.Join(env.Config.XGCorpus, "*.xg"))
	if err != nil || len(names) == 0 {
		return harness.Sample{}, fmt.Errorf("no .xg files in %q: %v", env.Config.XGCorpus, err)
	}
	var files [][]byte
	var decoded []*xg.File
	size, records, decisions := 0, 0, 0
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return harness.Sample{}, err
		}
		f, err := xg.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return harness.Sample{}, fmt.Errorf("%s: %w", n, err)
		}
		ds, err := f.Decisions()
		if err != nil {
			return harness.Sample{}, fmt.Errorf("%s: %w", n, err)
		}
		files, decoded = append(files, data), append(decoded, f)
		size, records, decisions = size+len(data), records+len(f.Records), decisions+len(ds)
	}
	switch a.Op {
	case "decode":
		sec, _, err := harness.Repeat(env.MinSample, func() error {
			for _, data := range files {
				if _, err := xg.NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
					return err
				}
			}
			return nil
		})
		return codecSample(sec, size, records, "records"), err
	case "decisions":
		sec, _, err := harness.Repeat(env.MinSample, func() error {
			for _, f := range decoded {
				if _, err := f.Decisions(); err != nil {
					return err
				}
			}
			return nil
		})
		return codecSample(sec, 0, decisions, "decisions"), err
	}
	return harness.Sample{}, fmt.Errorf("unknown xg operation %q", a.Op)
}

// gnubgItems is how many IDs of each kind one repetition handles.
const gnubgItems = 10000

// randomBoard puts each side's 15 checkers on random slots of its 25
// (24 points and the bar), never both sides on one point: side 0's point
// i is side 1's point 23-i.
func randomBoard(r *rand.Rand) gnubgid.Board {
	var b gnubgid.Board
	for side := range 2 {
		for n := 0; n < 15; {
			slot := r.IntN(25)
			if slot < 24 && b[1-side][23-slot] > 0 {
				continue
			}
			b[side][slot]++
			n++
		}
	}
	return b
}

// randomMatch is a valid match state: a match to 1..25 points with legal
// scores, a cube, dice or none.
func randomMatch(r *rand.Rand) gnubgid.Match {
	m := gnubgid.Match{Cube: 1 << r.IntN(7), CubeOwner: r.IntN(3) - 1, Move: r.IntN(2), GameState: gnubgid.GamePlaying,
		MatchLength: 1 + r.IntN(25)}
	m.Turn = m.Move
	m.Score = [2]int{r.IntN(m.MatchLength), r.IntN(m.MatchLength)}
	if r.IntN(2) == 0 {
		m.Dice = [2]int{1 + r.IntN(6), 1 + r.IntN(6)}
		if m.Dice[0] < m.Dice[1] {
			m.Dice[0], m.Dice[1] = m.Dice[1], m.Dice[0]
		}
	}
	return m
}

func runGnubgID(_ context.Context, env harness.JobEnv, a codecArgs) (harness.Sample, error) {
	r := rand.New(rand.NewPCG(1, 2))
	boards := make([]gnubgid.Board, gnubgItems)
	matches := make([]gnubgid.Match, gnubgItems)
	posIDs := make([]string, gnubgItems)
	matchIDs := make([]string, gnubgItems)
	for i := range boards {
		boards[i], matches[i] = randomBoard(r), randomMatch(r)
		var err error
		if posIDs[i], err = gnubgid.EncodePosition(boards[i]); err != nil {
			return harness.Sample{}, fmt.Errorf("board %v: %w", boards[i], err)
		}
		if matchIDs[i], err = gnubgid.EncodeMatch(matches[i]); err != nil {
			return harness.Sample{}, fmt.Errorf("match %+v: %w", matches[i], err)
		}
	}
	var op func(i int) error
	switch a.Op {
	case "position-decode":
		op = func(i int) error { _, err := gnubgid.DecodePosition(posIDs[i]); return err }
	case "position-encode":
		op = func(i int) error { _, err := gnubgid.EncodePosition(boards[i]); return err }
	case "match-decode":
		op = func(i int) error { _, err := gnubgid.DecodeMatch(matchIDs[i]); return err }
	case "match-encode":
		op = func(i int) error { _, err := gnubgid.EncodeMatch(matches[i]); return err }
	default:
		return harness.Sample{}, fmt.Errorf("unknown gnubgid operation %q", a.Op)
	}
	sec, _, err := harness.Repeat(env.MinSample, func() error {
		for i := range gnubgItems {
			if err := op(i); err != nil {
				return err
			}
		}
		return nil
	})
	return codecSample(sec, 0, gnubgItems, "IDs"), err
}

// egfGame plays horses out and back, 400 moves: a long legal game.
func egfGame() (*egf.Game, error) {
	g := egf.NewGame()
	b := g.Start
	for range 100 {
		for _, mv := range [][2]string{{"h1", "g3"}, {"h10", "g8"}, {"g3", "h1"}, {"g8", "h10"}} {
			from, err := egf.ParseSquare(mv[0])
			if err != nil {
				return nil, err
			}
			to, err := egf.ParseSquare(mv[1])
			if err != nil {
				return nil, err
			}
			g.Moves = append(g.Moves, egf.Move{From: from, To: to, Captured: b.At(to)})
			b.Set(to, b.At(from))
			b.Set(from, 0)
		}
	}
	g.MovesDone = len(g.Moves)
	return g, nil
}

func runEGF(_ context.Context, env harness.JobEnv, a codecArgs) (harness.Sample, error) {
	g, err := egfGame()
	if err != nil {
		return harness.Sample{}, err
	}
	data, err := g.MarshalBinary()
	if err != nil {
		return harness.Sample{}, err
	}
	var op func() error
	switch a.Op {
	case "parse":
		op = func() error { _, err := egf.Parse(data); return err }
	case "marshal":
		op = func() error { _, err := g.MarshalBinary(); return err }
	default:
		return harness.Sample{}, errors.New("unknown egf operation " + a.Op)
	}
	sec, _, err := harness.Repeat(env.MinSample, op)
	return codecSample(sec, len(data), len(g.Moves), "moves"), err
}
