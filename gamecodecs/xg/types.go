package xg

import (
	"fmt"
	"math"
	"time"
)

// Position is XG's PositionEngine: 26 signed counts seen from one player.
// Index 1..24 are that player's points 1..24, 25 is the player's bar and 0
// the opponent's bar; positive counts are the player's checkers, negative
// ones the opponent's.
type Position [26]int8

// Flip returns the same position seen from the other player
// (f[i] = -p[25-i]).
func (p Position) Flip() Position {
	var f Position
	for i := range p {
		f[i] = -p[25-i]
	}
	return f
}

// DateTime is a Delphi TDateTime: days since 1899-12-30, the fraction being
// the time of day. XG stores local time without a zone.
type DateTime float64

// delphiEpoch is day 0 of a TDateTime.
var delphiEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)

// Time converts d to a time.Time in UTC (XG does not record a zone). Values
// outside years 1..9999 give the zero Time.
func (d DateTime) Time() time.Time {
	f := float64(d)
	// Delphi's own valid range; also keeps the Duration below from overflowing.
	if math.IsNaN(f) || f < -693593 || f > 2958466 {
		return time.Time{}
	}
	days := math.Floor(f)
	ms := math.Round((f - days) * 86400e3)
	return delphiEpoch.AddDate(0, 0, int(days)).Add(time.Duration(ms) * time.Millisecond)
}

// GUID is a Windows GUID as stored (D1 uint32, D2 and D3 uint16, all
// little-endian, then 8 bytes).
type GUID [16]byte

// String formats g as {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}.
func (g GUID) String() string {
	const hex = "0123456789ABCDEF"
	order := []int{3, 2, 1, 0, -1, 5, 4, -1, 7, 6, -1, 8, 9, -1, 10, 11, 12, 13, 14, 15}
	b := []byte{'{'}
	for _, i := range order {
		if i < 0 {
			b = append(b, '-')
			continue
		}
		b = append(b, hex[g[i]>>4], hex[g[i]&15])
	}
	return string(append(b, '}'))
}

// EntryType is the kind of a TSaveRec record (Typesave).
type EntryType uint8

// The record kinds, as stored in the EntryType byte.
const (
	TypeMatchHeader EntryType = iota // tsHeaderMatch
	TypeGameHeader                   // tsHeaderGame
	TypeCube                         // tsCube
	TypeMove                         // tsMove
	TypeGameFooter                   // tsFooterGame
	TypeMatchFooter                  // tsFooterMatch
	TypeComment                      // tsComment, unused by XG
	TypeMissing                      // tsMissing, unused by XG
)

var entryTypeNames = [...]string{
	"match_header", "game_header", "cube", "move", "game_footer", "match_footer", "comment", "missing",
}

// String returns the snake_case name of t ("match_header", "cube", ...).
func (t EntryType) String() string {
	if int(t) < len(entryTypeNames) {
		return entryTypeNames[t]
	}
	return "unknown"
}

// Record is one decoded TSaveRec: *MatchHeader, *GameHeader, *CubeEntry,
// *MoveEntry, *GameFooter, *MatchFooter or *UnusedEntry.
type Record interface {
	Type() EntryType
}

// TimeSetting is XG's TTimeSetting (match clock).
type TimeSetting struct {
	ClockType    int  // 0 none, 1 Fischer, 2 Bronstein
	PerGame      bool // time resets after each game
	Time1        int  // initial time, seconds
	Time2        int  // time added (Fischer) or reserved (Bronstein) per move, seconds
	Penalty      int  // point penalty when running out of time
	TimeLeft1    int  // time left, player 1
	TimeLeft2    int  // time left, player 2
	PenaltyMoney int  // money penalty when running out of time
}

// MatchHeader is the first record of a file (tsHeaderMatch). Fields
// introduced by a later file version are zero when Version is older.
type MatchHeader struct {
	SPlayer1, SPlayer2 string   // player names, ANSI copy for XG1 (see Player1, Player2)
	MatchLength        int      // 99999 for an unlimited session (money)
	Variation          int      // 0 backgammon, 1 Nackgammon, 2 Hypergammon, 3 Longgammon
	Crawford           bool     // Crawford rule in use
	Jacoby             bool     // Jacoby rule in use
	Beaver             bool     // beavers allowed
	AutoDouble         bool     // automatic doubles in use
	Elo1, Elo2         float64  // players' ratings
	Exp1, Exp2         int      // players' experience
	Date               DateTime // date of the match
	SEvent             string   // event name, ANSI copy (see Event)
	GameID             int      // game id; negated when the players are swapped
	CompLevel1         int      // player 1 level (PLAYERLEVEL table)
	CompLevel2         int      // player 2 level
	CountForElo        bool     // the session counts for the rating
	AddToProfile1      bool     // the session counts for player 1's profile
	AddToProfile2      bool     // the session counts for player 2's profile
	SLocation          string   // location, ANSI copy (see Location)
	GameMode           int      // 0 free, 1 tutor, 2 teaching, 3 coaching, 4 competition, 5 iron man, 6 custom
	Imported           bool     // imported from a site
	SRound             string   // round, ANSI copy (see Round)
	Invert             int      // negated when the board is swapped
	Version            int      // file version (SaveFileVersion)
	Magic              uint32   // MagicNumber, 0x494C4D44
	MoneyInitG         int      // games played before, from the money profile
	MoneyInitScore     [2]int   // score before, from the money profile
	Entered            bool     // entered in the profile
	Counted            bool     // already counted in the profile's rating
	UnratedImp         bool     // unrated on the site it was imported from
	CommentHeaderMatch int      // comment line index (-1 none)
	CommentFooterMatch int      // comment line index (-1 none)
	IsMoneyMatch       bool     // played for real money
	WinMoney           float32  // amount for the winner
	LoseMoney          float32  // amount for the loser
	Currency           int      // currency code (0 dollar, 1 euro, ...)
	FeeMoney           float32  // rake
	TableStake         float32  // largest amount that can be lost (not implemented by XG)
	SiteID             int      // site id (0 GammonSite, 1 FIBS, ...)

	CubeLimit     int // v8: largest cube value
	AutoDoubleMax int // v8: how many automatic doubles are allowed

	Transcribed bool   // v24: the match was transcribed
	Event       string // v24: event name
	Player1     string // v24: player 1 name
	Player2     string // v24: player 2 name
	Location    string // v24: location
	Round       string // v24: round

	TimeSetting TimeSetting // v25: match clock

	TotTimeDelayMove     int // v26: checker plays marked for a delayed rollout
	TotTimeDelayCube     int // v26: cube actions marked for a delayed rollout
	TotTimeDelayMoveDone int // v26: delayed checker-play rollouts done
	TotTimeDelayCubeDone int // v26: delayed cube rollouts done

	Transcriber string // v30: name of the transcriber
}

// Type returns TypeMatchHeader.
func (*MatchHeader) Type() EntryType { return TypeMatchHeader }

// PlayerName returns player n's name (1 or 2), the Unicode one when the
// file has it.
func (h *MatchHeader) PlayerName(n int) string {
	u, a := h.Player1, h.SPlayer1
	if n == 2 {
		u, a = h.Player2, h.SPlayer2
	}
	if u != "" {
		return u
	}
	return a
}

// EventName returns the event name, the Unicode one when the file has it.
func (h *MatchHeader) EventName() string {
	if h.Event != "" {
		return h.Event
	}
	return h.SEvent
}

// Unlimited reports whether the session has no match length (money play).
func (h *MatchHeader) Unlimited() bool { return h.MatchLength == 99999 || h.MatchLength <= 0 }

// GameHeader starts a game (tsHeaderGame).
type GameHeader struct {
	Score1, Score2     int      // score at the start of the game
	CrawfordApply      bool     // this is the Crawford game
	PosInit            Position // initial position (XG may leave it zero)
	GameNumber         int      // from 1
	InProgress         bool     // the game is not finished
	CommentHeaderGame  int      // comment line index (-1 none)
	CommentFooterGame  int      // comment line index (-1 none)
	NumberOfAutoDouble int      // v26: automatic doubles at the start; the cube is worth 2^n more
}

// Type returns TypeGameHeader.
func (*GameHeader) Type() EntryType { return TypeGameHeader }

// EvalLevel is XG's TEvalLevel.
type EvalLevel struct {
	Level    int16 // PLAYERLEVEL table
	IsDouble bool  // the analysis assumes a double on the next move
	Fill1    byte
}

// Eval is an evaluation (TResult): lose backgammon, lose gammon, lose
// single, win single, win gammon, win backgammon, normalized equity.
type Eval [7]float32

// BestMove is XG's EngineStructBestMove, the analysis of a checker play.
type BestMove struct {
	Pos        Position      // position analysed, mover's view
	Dice       [2]int        // dice
	Level      int           // analysis level requested
	Score      [2]int        // score
	Cube       int           // cube value 1, 2, 4, ...
	CubePos    int           // 0 centred, 1 the mover owns it, -1 the opponent
	Crawford   int           // 1 Crawford game
	Jacoby     int           // 1 Jacoby rule
	NMoves     int           // number of candidate moves (at most 32)
	PosPlayed  [32]Position  // position after each candidate
	Moves      [32][8]int8   // each candidate as (from, to) pairs, -1 ends the list
	EvalLevel  [32]EvalLevel // analysis level of each candidate
	Eval       [32]Eval      // evaluation of each candidate
	Irrelevant bool          // does not count as a decision (Irrevalent)
	Met        int8          // unused
	Choice0    int8          // 1-ply choice (index into PosPlayed)
	Choice3    int8          // 3-ply choice (index into PosPlayed)
}

// DoubleAction is XG's EngineStructDoubleAction, the analysis of a cube
// decision.
type DoubleAction struct {
	Pos           Position // position analysed
	Level         int      // analysis level performed
	Score         [2]int   // score
	Cube          int      // cube value 1, 2, 4, ...
	CubePos       int      // 0 centred, 1 the player owns it, -1 the opponent
	Jacoby        int      // 1 Jacoby rule
	Crawford      int16    // 1 Crawford game
	Met           int16    // unused
	FlagDouble    int16    // 1 double
	IsBeaver      int16    // a double would be a beaver
	Eval          Eval     // evaluation with no double
	EquB          float32  // equity, no double
	EquDouble     float32  // equity, double/take
	EquDrop       float32  // equity, double/drop
	LevelRequest  int16    // analysis level requested
	DoubleChoice3 int16    // 3-ply choice: double + 2*take
	EvalDouble    Eval     // evaluation after double/take
}

// CubeEntry is a cube decision (tsCube): the player on roll may double
// before rolling.
type CubeEntry struct {
	Actif                  int          // player on roll: 1 player 1, -1 player 2
	Double                 int          // 1 doubled, 0 not; XG writes -2 where no double was possible
	Take                   int          // 1 take, 0 drop, 2 beaver; -1 when there was no double
	BeaverR                int          // 1 beaver accepted, 2 raccoon
	RaccoonR               int          // 1 raccoon accepted
	CubeB                  int          // cube: 0 centred, +n 2^n owned by player 1, -n by player 2
	Position               Position     // position, player 1's view
	DoubleD                DoubleAction // analysis
	ErrCube                float64      // error doubling (-1000 when not analysed)
	DiceRolled             string       // the dice rolled next, as two digits
	ErrTake                float64      // error taking (-1000 when not analysed)
	RolloutIndexD          int          // rollout index into Rollouts (-1 none)
	CompChoiceD            int          // 3-ply choice: double + 2*take
	AnalyzeC               int          // analysis level
	ErrBeaver              float64      // error beavering (-1000 when not analysed)
	ErrRaccoon             float64      // error raccooning (-1000 when not analysed)
	AnalyzeCR              int          // analysis level requested
	InValid                int          // 0 ok, 1 error, 2 invalid
	TutorCube              int8         // initial double in tutor mode
	TutorTake              int8         // initial take in tutor mode
	ErrTutorCube           float64      // error doubling in tutor mode
	ErrTutorTake           float64      // error taking in tutor mode
	FlaggedDouble          bool         // the cube action is flagged
	CommentCube            int          // comment line index (-1 none)
	EditedCube             bool         // v24: the position was edited here
	TimeDelayCube          bool         // v26: marked for a delayed rollout
	TimeDelayCubeDone      bool         // v26: the delayed rollout is done
	NumberOfAutoDoubleCube int          // v27: automatic doubles in this game
	TimeBot, TimeTop       int          // v28: time left for both players
}

// Type returns TypeCube.
func (*CubeEntry) Type() EntryType { return TypeCube }

// MoveEntry is a checker play (tsMove).
type MoveEntry struct {
	PositionI              Position // position before the move, player 1's view
	PositionEnd            Position // position after the move, the mover's view
	ActifP                 int      // mover: 1 player 1, -1 player 2
	Moves                  [8]int   // (from, to) pairs, mover's view, 0-based; 24 bar, -2 off, -1 unused
	Dice                   [2]int   // dice rolled
	CubeA                  int      // cube: 0 centred, +n 2^n owned by player 1, -n by player 2
	ErrorM                 float64  // unused
	NMoveEval              int      // number of candidates (at most 32)
	DataMoves              BestMove // analysis
	Played                 bool     // the move was played
	ErrMove                float64  // error (-1000 when not analysed)
	ErrLuck                float64  // luck of the roll
	CompChoice             int      // the engine's choice (index into DataMoves)
	InitEq                 float64  // equity before the roll
	RolloutIndexM          [32]int  // rollout index of each candidate (-1 none)
	AnalyzeM               int      // analysis level of the move
	AnalyzeL               int      // analysis level of the luck
	InvalidM               int      // 0 ok, 1 error, 2 invalid
	PositionTutor          Position // position after the initial move in tutor mode
	Tutor                  int8     // index of the initial move in tutor mode
	ErrTutorMove           float64  // initial error in tutor mode
	Flagged                bool     // the move is flagged
	CommentMove            int      // comment line index (-1 none)
	EditedMove             bool     // v24: the position was edited here
	TimeDelayMove          uint32   // v26: bit list, candidates marked for a delayed rollout
	TimeDelayMoveDone      uint32   // v26: bit list, delayed rollouts done
	NumberOfAutoDoubleMove int      // v27: automatic doubles in this game
	Filler                 [4]int   // zero
}

// Type returns TypeMove.
func (*MoveEntry) Type() EntryType { return TypeMove }

// GameFooter ends a game (tsFooterGame).
type GameFooter struct {
	Score1, Score2 int     // score after the game (Score1g, Score2g)
	CrawfordApply  bool    // the next game is the Crawford game (CrawfordApplyg)
	Winner         int     // 1 player 1, -1 player 2
	PointsWon      int     // points scored
	Termination    int     // 0 drop, 1 single, 2 gammon, 3 backgammon; +100 resigned, +1000 settled
	ErrResign      float64 // error resigning (-1000 when not analysed)
	ErrTakeResign  float64 // error accepting the resignation
	Eval           [7]float64
	EvalLevel      int
}

// Type returns TypeGameFooter.
func (*GameFooter) Type() EntryType { return TypeGameFooter }

// Ending describes Termination: "drop", "single", "gammon" or
// "backgammon", after "resigned " or "settled " when so.
func (g *GameFooter) Ending() string {
	kinds := []string{"drop", "single", "gammon", "backgammon"}
	t := g.Termination
	prefix := ""
	switch {
	case t >= 1000:
		prefix, t = "settled ", t-1000
	case t >= 100:
		prefix, t = "resigned ", t-100
	}
	if t < 0 || t >= len(kinds) {
		return fmt.Sprintf("termination %d", g.Termination)
	}
	return prefix + kinds[t]
}

// MatchFooter ends the match (tsFooterMatch).
type MatchFooter struct {
	Score1, Score2 int      // final score (Score1m, Score2m)
	Winner         int      // 1 player 1, -1 player 2 (WinnerM)
	Elo1, Elo2     float64  // ratings after the match (Elo1m, Elo2m)
	Exp1, Exp2     int      // experience after the match (exp1m, exp2m)
	Date           DateTime // end of the match (Datem)
}

// Type returns TypeMatchFooter.
func (*MatchFooter) Type() EntryType { return TypeMatchFooter }

// UnusedEntry is a record of a kind XG declares but does not use
// (tsComment, tsMissing); it carries nothing else.
type UnusedEntry struct {
	Kind EntryType
}

// Type returns the record's kind.
func (u *UnusedEntry) Type() EntryType { return u.Kind }

// RolloutContext is XG's TRolloutContext, one record of temp.xgr.
type RolloutContext struct {
	// Inputs.
	Truncated      bool    // the rollout is truncated
	ErrorLimited   bool    // stop when the confidence interval is below ErrorLimit
	Truncate       int     // truncation level
	MinRoll        int     // minimum games
	ErrorLimit     float64 // confidence interval that stops the rollout
	MaxRoll        int     // maximum games
	Level1         int     // checker-play level before LevelCut
	Level2         int     // checker-play level from LevelCut on
	LevelCut       int     // cut-off between Level1 and Level2
	Variance       bool    // variance reduction
	Cubeless       bool    // cubeless rollout
	Time           bool    // time limited
	Level1C        int     // cube level before LevelCut
	Level2C        int     // cube level from LevelCut on
	TimeLimit      uint32  // time limit, minutes
	TruncateBO     int     // at the bear-off database: 0 if dead cube, 1 always, 2 never
	RandomSeed     int     // seed used (RandomSeedI + position hash)
	RandomSeedI    int     // seed entered
	RollBoth       bool    // roll both lines (no double, double/take)
	SearchInterval float32 // 1 normal, 1.5 large, 2 huge, 4 gigantic
	Met            int     // unused
	FirstRoll      bool    // a first-roll rollout
	DoDouble       bool    // roll both lines in a multiple rollout
	Extent         bool    // the rollout was extended

	// Outputs.
	Rolled      int         // games rolled
	DoubleFirst bool        // a double happens at once
	Sum1        [37]float64 // sum of equities per first roll
	SumSquare1  [37]float64 // sum of squared equities per first roll
	Sum2        [37]float64 // the same, double/take line
	SumSquare2  [37]float64
	Stdev1      [37]float64 // standard deviation per first roll
	Stdev2      [37]float64 // the same, double/take line
	RolledD     [37]int     // games per first roll
	Error1      float32     // 95% confidence interval
	Error2      float32     // the same, double/take line
	Result1     Eval        // evaluation
	Result2     Eval        // evaluation, double/take line
	Mwc1        float32     // match-winning chance of Result1
	Mwc2        float32     // match-winning chance of Result2
	PrevLevel   int         // analysis level before the rollout
	PrevEval    Eval        // evaluation before the rollout
	PrevND      float32     // no-double equity before the rollout
	PrevD       float32     // double equity before the rollout
	Duration    float32     // seconds

	LevelTrunc int // input: level used at truncation

	Rolled2              int     // games rolled, double/take line
	MultipleMin          int     // multiple rollout: minimum games
	MultipleStopAll      bool    // stop all when one move reaches MultipleStopAllValue
	MultipleStopOne      bool    // stop one move under MultipleStopOneValue
	MultipleStopAllValue float32 // e.g. 99.9%
	MultipleStopOneValue float32 // e.g. 0.01%
	AsTake               bool    // checker play uses the double/take cube in both lines
	Rotation             int     // 0 36 dice, 1 21 dice (XG1), 2 30 dice (first roll)
	UserInterrupted      bool    // interrupted by the user
	VerMaj, VerMin       uint16  // engine version of the rollout (2.10: 2, 10)
	Fixed                int     // unused
	Filler               [1]int  // unused
}
