// Package query answers a position of a solved run as `tierd query --json`
// prints it: its value and every move's, in a game with dice its chances
// and a roll's plays, in a bearoff the doubling cube; and the line of best
// play from it (Mainline).
package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tiersolve/tiersolve/gamecodecs/met"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Errors that callers test (errors.Is); the errors returned wrap them with
// what was wrong.
var (
	// ErrBadPosition marks position text the game cannot parse.
	ErrBadPosition = errors.New("bad position")
	// ErrUnreachable marks a position that the run did not solve: not
	// reachable from its start (or seeds).
	ErrUnreachable = errors.New("position not reachable in the run")
	// ErrNotInRun marks a position of a tier the run does not hold.
	ErrNotInRun = errors.New("tier not in the run")
	// ErrBadOption marks options that do not fit the run or each other
	// (tierd query reports them as usage errors).
	ErrBadOption = errors.New("bad option")
)

// tagged is an error whose message is err's alone that also matches tag:
// tierd query prints the message as it always did, and callers can still
// tell what kind of error it is.
type tagged struct {
	err error
	tag error
}

func (e *tagged) Error() string              { return e.err.Error() }
func (e *tagged) Unwrap() []error            { return []error{e.err, e.tag} }
func tag(tag, err error) error               { return &tagged{err: err, tag: tag} }
func tagf(t error, f string, a ...any) error { return tag(t, fmt.Errorf(f, a...)) }

// Options are the flags of tierd query beyond the position. The zero
// value asks for the plain answer.
type Options struct {
	// Roll, in a game with dice, asks for every play of that outcome
	// ("31" or "13"), best first.
	Roll string
	// Cube is where the bearoff's cube is, seen from the player on roll:
	// "centered" (the default), "owned" or "opponent".
	Cube string
	// CubeValue is the cube's value in match play (0: 1).
	CubeValue int
	// Match is the match's length in points, for match play (with Score).
	Match int
	// Score is "A-B": the points the player on roll and the opponent need.
	Score string
	// Crawford says the game is the Crawford game.
	Crawford bool
	// Table is the match equity table of match play; when nil it is read
	// from MetFile (default met.DefaultFile).
	Table   *met.Table
	MetFile string
	// Memory bounds the match winning chances' memory ("4GiB"; default
	// bearoff.MaxMatchMemory).
	Memory string
	// CubeAsked says a cube option was given even at its zero value
	// (tierd query sets it for any cube flag on the command line), so
	// that a run without a cube refuses it.
	CubeAsked bool
}

// cubeAsked reports whether any option of the cube was asked for (Table
// and Memory are a caller's resources, not a question).
func (o *Options) cubeAsked() bool {
	return o.CubeAsked || o.Cube != "" || o.CubeValue != 0 || o.Match != 0 || o.Score != "" || o.Crawford || o.MetFile != ""
}

// Answer is the answer to a position: *Result for a game without chance,
// *ChanceResult for one with. Its JSON form (encoding/json) is what
// tierd query --json prints.
type Answer interface {
	// WriteText writes the answer as tierd query prints it without --json.
	WriteText(w io.Writer) error
}

// Parse reads position text of game g; its errors wrap ErrBadPosition.
func Parse(g tiergame.Game, text string) (tiergame.Tier, tiergame.Position, error) {
	t, p, err := g.Parse(text)
	if err != nil {
		return 0, 0, tag(ErrBadPosition, fmt.Errorf("position %q: %w", text, err))
	}
	if uint64(p) >= g.TierSize(t) {
		return 0, 0, tagf(ErrBadPosition, "position %q: hash %d outside tier %s", text, p, g.TierName(t))
	}
	return t, p, nil
}

// Position answers position (t, p) of run o with opts: the chance answer
// in a game with dice, else the plain one.
func Position(ctx context.Context, o *oracle.Oracle, t tiergame.Tier, p tiergame.Position, opts Options) (Answer, error) {
	cq, err := newCubeQuery(ctx, &opts, o, t, p)
	if err != nil {
		return nil, err
	}
	if cg, ok := o.Game.(tiergame.Chance); ok {
		return chance(o, cg, t, p, opts.Roll, cq)
	}
	if opts.Roll != "" {
		return nil, tagf(ErrBadOption, "--roll: %s has no dice", o.Game.Name())
	}
	return Plain(o, t, p)
}

// AppendPositionJSON appends the JSON of Position's answer to b, as
// encoding/json's Encoder writes it (its newline included). A position
// without chance and without cube options, a server's most asked, is
// answered in a pooled Result, encoded without reflection: less garbage
// an answer than Position and an Encoder make.
func AppendPositionJSON(b []byte, ctx context.Context, o *oracle.Oracle, t tiergame.Tier, p tiergame.Position, opts Options) ([]byte, error) {
	if _, chance := o.Game.(tiergame.Chance); !chance && !opts.cubeAsked() && opts.Roll == "" {
		res := results.Get().(*Result)
		defer results.Put(res)
		if err := PlainInto(res, o, t, p); err != nil {
			return b, err
		}
		return res.AppendJSON(b), nil
	}
	ans, err := Position(ctx, o, t, p, opts)
	if err != nil {
		return b, err
	}
	js, err := json.Marshal(ans)
	if err != nil {
		return b, err
	}
	return append(append(b, js...), '\n'), nil
}

// results are AppendPositionJSON's Results.
var results = sync.Pool{New: func() any { return new(Result) }}

// lookupErr tags an oracle's error by what callers test.
func lookupErr(err error, unreachable string, a ...any) error {
	switch {
	case errors.Is(err, oracle.ErrUnreachable):
		return tagf(ErrUnreachable, unreachable, a...)
	case errors.Is(err, oracle.ErrTierNotSolved):
		return tag(ErrNotInRun, err)
	}
	return err
}
