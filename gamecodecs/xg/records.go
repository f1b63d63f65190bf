package xg

import "fmt"

// Sizes of XG's fixed records.
const (
	recordSize  = 2560 // TSaveRec
	rolloutSize = 2184 // TRolloutContext
)

// File versions at which fields were added to TSaveRec.
const (
	v8  = 8
	v24 = 24
	v25 = 25
	v26 = 26
	v27 = 27
	v28 = 28
	v30 = 30
)

// The match header's magic number ("DMLI") and the newest file version XG
// itself accepts ("compatibility is broken" above it).
const (
	recordMagic        = 0x494C4D44
	MaxSaveFileVersion = 40
)

// decodeRecord decodes one 2560-byte TSaveRec. version is the file version
// from the match header; a match header carries its own.
func decodeRecord(b []byte, version int) (Record, error) {
	if len(b) != recordSize {
		return nil, fmt.Errorf("%w: record of %d bytes", ErrFormat, len(b))
	}
	d := &decoder{b: b, off: 9} // after Previous, Next and EntryType
	switch t := EntryType(b[8]); t {
	case TypeMatchHeader:
		return decodeMatchHeader(d)
	case TypeGameHeader:
		return decodeGameHeader(d, version), nil
	case TypeCube:
		return decodeCube(d, version), nil
	case TypeMove:
		return decodeMove(d, version), nil
	case TypeGameFooter:
		return decodeGameFooter(d), nil
	case TypeMatchFooter:
		return decodeMatchFooter(d), nil
	case TypeComment, TypeMissing:
		return &UnusedEntry{Kind: t}, nil
	default:
		return nil, fmt.Errorf("%w: unknown record type %d", ErrFormat, t)
	}
}

func decodeMatchHeader(d *decoder) (*MatchHeader, error) {
	h := &MatchHeader{}
	h.SPlayer1 = d.shortString(40)
	h.SPlayer2 = d.shortString(40)
	h.MatchLength = d.integer()
	h.Variation = d.integer()
	h.Crawford = d.boolean()
	h.Jacoby = d.boolean()
	h.Beaver = d.boolean()
	h.AutoDouble = d.boolean()
	h.Elo1 = d.double()
	h.Elo2 = d.double()
	h.Exp1 = d.integer()
	h.Exp2 = d.integer()
	h.Date = DateTime(d.double())
	h.SEvent = d.shortString(128)
	h.GameID = d.integer()
	h.CompLevel1 = d.integer()
	h.CompLevel2 = d.integer()
	h.CountForElo = d.boolean()
	h.AddToProfile1 = d.boolean()
	h.AddToProfile2 = d.boolean()
	h.SLocation = d.shortString(128)
	h.GameMode = d.integer()
	h.Imported = d.boolean()
	h.SRound = d.shortString(128)
	h.Invert = d.integer()
	h.Version = d.integer()
	h.Magic = d.u32()
	if h.Magic != recordMagic {
		return nil, fmt.Errorf("%w: match header magic %#x, want %#x", ErrFormat, h.Magic, recordMagic)
	}
	if h.Version < 0 || h.Version > MaxSaveFileVersion {
		return nil, fmt.Errorf("%w: file version %d (XG reads 0..%d)", ErrVersion, h.Version, MaxSaveFileVersion)
	}
	h.MoneyInitG = d.integer()
	h.MoneyInitScore = [2]int{d.integer(), d.integer()}
	h.Entered = d.boolean()
	h.Counted = d.boolean()
	h.UnratedImp = d.boolean()
	h.CommentHeaderMatch = d.integer()
	h.CommentFooterMatch = d.integer()
	h.IsMoneyMatch = d.boolean()
	h.WinMoney = d.single()
	h.LoseMoney = d.single()
	h.Currency = d.integer()
	h.FeeMoney = d.single()
	h.TableStake = d.single()
	h.SiteID = d.integer()
	// Later fields sit at the end of the variant; older files leave that
	// space undefined, so they are read only from the version that added them.
	v := h.Version
	if v < v8 {
		return h, nil
	}
	h.CubeLimit = d.integer()
	h.AutoDoubleMax = d.integer()
	if v < v24 {
		return h, nil
	}
	h.Transcribed = d.boolean()
	h.Event = d.wideString(129)
	h.Player1 = d.wideString(129)
	h.Player2 = d.wideString(129)
	h.Location = d.wideString(129)
	h.Round = d.wideString(129)
	if v < v25 {
		return h, nil
	}
	h.TimeSetting = decodeTimeSetting(d.sub(4, 32))
	if v < v26 {
		return h, nil
	}
	h.TotTimeDelayMove = d.integer()
	h.TotTimeDelayCube = d.integer()
	h.TotTimeDelayMoveDone = d.integer()
	h.TotTimeDelayCubeDone = d.integer()
	if v < v30 {
		return h, nil
	}
	h.Transcriber = d.wideString(129)
	return h, nil
}

func decodeTimeSetting(d *decoder) TimeSetting {
	return TimeSetting{
		ClockType:    d.integer(),
		PerGame:      d.boolean(),
		Time1:        d.integer(),
		Time2:        d.integer(),
		Penalty:      d.integer(),
		TimeLeft1:    d.integer(),
		TimeLeft2:    d.integer(),
		PenaltyMoney: d.integer(),
	}
}

func decodeGameHeader(d *decoder, v int) *GameHeader {
	g := &GameHeader{}
	g.Score1 = d.integer()
	g.Score2 = d.integer()
	g.CrawfordApply = d.boolean()
	g.PosInit = d.position()
	g.GameNumber = d.integer()
	g.InProgress = d.boolean()
	g.CommentHeaderGame = d.integer()
	g.CommentFooterGame = d.integer()
	if v >= v26 {
		g.NumberOfAutoDouble = d.integer()
	}
	return g
}

func decodeDoubleAction(d *decoder) DoubleAction {
	var a DoubleAction
	a.Pos = d.position()
	a.Level = d.integer()
	a.Score = [2]int{d.integer(), d.integer()}
	a.Cube = d.integer()
	a.CubePos = d.integer()
	a.Jacoby = d.integer()
	a.Crawford = d.i16()
	a.Met = d.i16()
	a.FlagDouble = d.i16()
	a.IsBeaver = d.i16()
	a.Eval = decodeEval(d)
	a.EquB = d.single()
	a.EquDouble = d.single()
	a.EquDrop = d.single()
	a.LevelRequest = d.i16()
	a.DoubleChoice3 = d.i16()
	a.EvalDouble = decodeEval(d)
	return a
}

func decodeEval(d *decoder) Eval {
	var e Eval
	for i := range e {
		e[i] = d.single()
	}
	return e
}

func decodeCube(d *decoder, v int) *CubeEntry {
	c := &CubeEntry{}
	c.Actif = d.integer()
	c.Double = d.integer()
	c.Take = d.integer()
	c.BeaverR = d.integer()
	c.RaccoonR = d.integer()
	c.CubeB = d.integer()
	c.Position = d.position()
	c.DoubleD = decodeDoubleAction(d.sub(4, 132))
	c.ErrCube = d.double()
	c.DiceRolled = d.shortString(2)
	c.ErrTake = d.double()
	c.RolloutIndexD = d.integer()
	c.CompChoiceD = d.integer()
	c.AnalyzeC = d.integer()
	c.ErrBeaver = d.double()
	c.ErrRaccoon = d.double()
	c.AnalyzeCR = d.integer()
	c.InValid = d.integer()
	c.TutorCube = d.i8()
	c.TutorTake = d.i8()
	c.ErrTutorCube = d.double()
	c.ErrTutorTake = d.double()
	c.FlaggedDouble = d.boolean()
	c.CommentCube = d.integer()
	if v < v24 {
		return c
	}
	c.EditedCube = d.boolean()
	if v < v26 {
		return c
	}
	c.TimeDelayCube = d.boolean()
	c.TimeDelayCubeDone = d.boolean()
	if v < v27 {
		return c
	}
	c.NumberOfAutoDoubleCube = d.integer()
	if v < v28 {
		return c
	}
	c.TimeBot = d.integer()
	c.TimeTop = d.integer()
	return c
}

func decodeBestMove(d *decoder) BestMove {
	var m BestMove
	m.Pos = d.position()
	m.Dice = [2]int{d.integer(), d.integer()}
	m.Level = d.integer()
	m.Score = [2]int{d.integer(), d.integer()}
	m.Cube = d.integer()
	m.CubePos = d.integer()
	m.Crawford = d.integer()
	m.Jacoby = d.integer()
	m.NMoves = d.integer()
	for i := range m.PosPlayed {
		m.PosPlayed[i] = d.position()
	}
	for i := range m.Moves {
		for j := range m.Moves[i] {
			m.Moves[i][j] = d.i8()
		}
	}
	for i := range m.EvalLevel {
		e := d.sub(2, 4)
		m.EvalLevel[i] = EvalLevel{Level: e.i16(), IsDouble: e.boolean(), Fill1: e.u8()}
	}
	for i := range m.Eval {
		m.Eval[i] = decodeEval(d)
	}
	m.Irrelevant = d.boolean()
	m.Met = d.i8()
	m.Choice0 = d.i8()
	m.Choice3 = d.i8()
	return m
}

func decodeMove(d *decoder, v int) *MoveEntry {
	m := &MoveEntry{}
	m.PositionI = d.position()
	m.PositionEnd = d.position()
	m.ActifP = d.integer()
	for i := range m.Moves {
		m.Moves[i] = d.integer()
	}
	m.Dice = [2]int{d.integer(), d.integer()}
	m.CubeA = d.integer()
	m.ErrorM = d.double()
	m.NMoveEval = d.integer()
	m.DataMoves = decodeBestMove(d.sub(4, 2184))
	m.Played = d.boolean()
	m.ErrMove = d.double()
	m.ErrLuck = d.double()
	m.CompChoice = d.integer()
	m.InitEq = d.double()
	for i := range m.RolloutIndexM {
		m.RolloutIndexM[i] = d.integer()
	}
	m.AnalyzeM = d.integer()
	m.AnalyzeL = d.integer()
	m.InvalidM = d.integer()
	m.PositionTutor = d.position()
	m.Tutor = d.i8()
	m.ErrTutorMove = d.double()
	m.Flagged = d.boolean()
	m.CommentMove = d.integer()
	// The version-gated fields come before Filler, so they are always read
	// to keep the offsets and only kept when the version has them.
	edited := d.boolean()
	delay, delayDone := d.u32(), d.u32()
	autoDoubles := d.integer()
	if v >= v24 {
		m.EditedMove = edited
	}
	if v >= v26 {
		m.TimeDelayMove, m.TimeDelayMoveDone = delay, delayDone
	}
	if v >= v27 {
		m.NumberOfAutoDoubleMove = autoDoubles
	}
	for i := range m.Filler {
		m.Filler[i] = d.integer()
	}
	return m
}

func decodeGameFooter(d *decoder) *GameFooter {
	g := &GameFooter{}
	g.Score1 = d.integer()
	g.Score2 = d.integer()
	g.CrawfordApply = d.boolean()
	g.Winner = d.integer()
	g.PointsWon = d.integer()
	g.Termination = d.integer()
	g.ErrResign = d.double()
	g.ErrTakeResign = d.double()
	for i := range g.Eval {
		g.Eval[i] = d.double()
	}
	g.EvalLevel = d.integer()
	return g
}

func decodeMatchFooter(d *decoder) *MatchFooter {
	return &MatchFooter{
		Score1: d.integer(),
		Score2: d.integer(),
		Winner: d.integer(),
		Elo1:   d.double(),
		Elo2:   d.double(),
		Exp1:   d.integer(),
		Exp2:   d.integer(),
		Date:   DateTime(d.double()),
	}
}

// decodeRollout decodes one 2184-byte TRolloutContext.
func decodeRollout(d *decoder) RolloutContext {
	var r RolloutContext
	r.Truncated = d.boolean()
	r.ErrorLimited = d.boolean()
	r.Truncate = d.integer()
	r.MinRoll = d.integer()
	r.ErrorLimit = d.double()
	r.MaxRoll = d.integer()
	r.Level1 = d.integer()
	r.Level2 = d.integer()
	r.LevelCut = d.integer()
	r.Variance = d.boolean()
	r.Cubeless = d.boolean()
	r.Time = d.boolean()
	r.Level1C = d.integer()
	r.Level2C = d.integer()
	r.TimeLimit = d.u32()
	r.TruncateBO = d.integer()
	r.RandomSeed = d.integer()
	r.RandomSeedI = d.integer()
	r.RollBoth = d.boolean()
	r.SearchInterval = d.single()
	r.Met = d.integer()
	r.FirstRoll = d.boolean()
	r.DoDouble = d.boolean()
	r.Extent = d.boolean()
	r.Rolled = d.integer()
	r.DoubleFirst = d.boolean()
	for _, a := range []*[37]float64{&r.Sum1, &r.SumSquare1, &r.Sum2, &r.SumSquare2, &r.Stdev1, &r.Stdev2} {
		for i := range a {
			a[i] = d.double()
		}
	}
	for i := range r.RolledD {
		r.RolledD[i] = d.integer()
	}
	r.Error1 = d.single()
	r.Error2 = d.single()
	r.Result1 = decodeEval(d)
	r.Result2 = decodeEval(d)
	r.Mwc1 = d.single()
	r.Mwc2 = d.single()
	r.PrevLevel = d.integer()
	r.PrevEval = decodeEval(d)
	r.PrevND = d.single()
	r.PrevD = d.single()
	r.Duration = d.single()
	r.LevelTrunc = d.integer()
	r.Rolled2 = d.integer()
	r.MultipleMin = d.integer()
	r.MultipleStopAll = d.boolean()
	r.MultipleStopOne = d.boolean()
	r.MultipleStopAllValue = d.single()
	r.MultipleStopOneValue = d.single()
	r.AsTake = d.boolean()
	r.Rotation = d.integer()
	r.UserInterrupted = d.boolean()
	r.VerMaj = d.u16()
	r.VerMin = d.u16()
	r.Fixed = d.integer()
	r.Filler[0] = d.integer()
	return r
}
