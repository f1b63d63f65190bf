package xg

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestLayoutSizes checks that each decoder ends where the Delphi layout
// says its record ends, so that every read stays inside the record.
func TestLayoutSizes(t *testing.T) {
	at9 := func(typ EntryType) *decoder { return &decoder{b: newRecord(typ), off: 9} }
	tests := []struct {
		name string
		run  func() int
		want int
	}{
		{"match header v40", func() int {
			d := &decoder{b: matchHeaderRec(40, "", "", 1), off: 9}
			if _, err := decodeMatchHeader(d); err != nil {
				t.Fatal(err)
			}
			return d.off
		}, 2218},
		{"game header v26", func() int { d := at9(TypeGameHeader); decodeGameHeader(d, 26); return d.off }, 68},
		{"cube v28", func() int { d := at9(TypeCube); decodeCube(d, 28); return d.off }, 312},
		{"move", func() int { d := at9(TypeMove); decodeMove(d, 40); return d.off }, recordSize},
		{"move v1", func() int { d := at9(TypeMove); decodeMove(d, 1); return d.off }, recordSize},
		{"game footer", func() int { d := at9(TypeGameFooter); decodeGameFooter(d); return d.off }, 116},
		{"match footer", func() int { d := at9(TypeMatchFooter); decodeMatchFooter(d); return d.off }, 56},
		{"rollout", func() int { d := &decoder{b: make([]byte, rolloutSize)}; decodeRollout(d); return d.off }, rolloutSize},
		{"best move", func() int { d := &decoder{b: make([]byte, 2184)}; decodeBestMove(d); return d.off }, 2184},
		{"double action", func() int { d := &decoder{b: make([]byte, 132)}; decodeDoubleAction(d); return d.off }, 132},
		{"time setting", func() int { d := &decoder{b: make([]byte, 32)}; decodeTimeSetting(d); return d.off }, 32},
	}
	for _, tt := range tests {
		if got := tt.run(); got != tt.want {
			t.Errorf("%s: decoder ends at %d, want %d", tt.name, got, tt.want)
		}
	}
}

func putF32(b []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(v))
}

// TestFieldOffsets writes a value at a field's offset and reads it back
// through the decoder. Offsets marked "spec" were confirmed on real files
// (specs/xg.md); the others follow from the alignment rule.
func TestFieldOffsets(t *testing.T) {
	mh := func(r Record) *MatchHeader { return r.(*MatchHeader) }
	gh := func(r Record) *GameHeader { return r.(*GameHeader) }
	cu := func(r Record) *CubeEntry { return r.(*CubeEntry) }
	mv := func(r Record) *MoveEntry { return r.(*MoveEntry) }
	gf := func(r Record) *GameFooter { return r.(*GameFooter) }
	mf := func(r Record) *MatchFooter { return r.(*MatchFooter) }
	pos := Position{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, 25}
	tests := []struct {
		name  string
		typ   EntryType
		put   func(b []byte)
		check func(r Record) bool
	}{
		{"MatchLength 92 spec", TypeMatchHeader, func(b []byte) { putI32(b, 92, 11) }, func(r Record) bool { return mh(r).MatchLength == 11 }},
		{"AutoDouble 103", TypeMatchHeader, func(b []byte) { b[103] = 1 }, func(r Record) bool { return mh(r).AutoDouble }},
		{"Elo1 104 spec", TypeMatchHeader, func(b []byte) { putF64(b, 104, 1650.5) }, func(r Record) bool { return mh(r).Elo1 == 1650.5 }},
		{"Exp2 124", TypeMatchHeader, func(b []byte) { putI32(b, 124, 77) }, func(r Record) bool { return mh(r).Exp2 == 77 }},
		{"Date 128 spec", TypeMatchHeader, func(b []byte) { putF64(b, 128, 45000.5) }, func(r Record) bool { return mh(r).Date == 45000.5 }},
		{"SEvent 136 spec", TypeMatchHeader, func(b []byte) { putShort(b, 136, "Caf\xe9 \x80") }, func(r Record) bool { return mh(r).SEvent == "Café €" }},
		{"GameId 268 spec", TypeMatchHeader, func(b []byte) { putI32(b, 268, -42) }, func(r Record) bool { return mh(r).GameID == -42 }},
		{"CompLevel2 276", TypeMatchHeader, func(b []byte) { putI32(b, 276, 1001) }, func(r Record) bool { return mh(r).CompLevel2 == 1001 }},
		{"AddToProfile2 282", TypeMatchHeader, func(b []byte) { b[282] = 1 }, func(r Record) bool { return mh(r).AddToProfile2 }},
		{"SLocation 283", TypeMatchHeader, func(b []byte) { putShort(b, 283, "Aachen") }, func(r Record) bool { return mh(r).SLocation == "Aachen" }},
		{"GameMode 412", TypeMatchHeader, func(b []byte) { putI32(b, 412, 4) }, func(r Record) bool { return mh(r).GameMode == 4 }},
		{"Imported 416", TypeMatchHeader, func(b []byte) { b[416] = 1 }, func(r Record) bool { return mh(r).Imported }},
		{"SRound 417 (full 128 bytes)", TypeMatchHeader, func(b []byte) {
			s := make([]byte, 128)
			for i := range s {
				s[i] = 'a' + byte(i%26)
			}
			putShort(b, 417, string(s))
		}, func(r Record) bool { return len(mh(r).SRound) == 128 && mh(r).SRound[127] == 'a'+127%26 }},
		{"Invert 548", TypeMatchHeader, func(b []byte) { putI32(b, 548, -1) }, func(r Record) bool { return mh(r).Invert == -1 }},
		{"MoneyInitScore 564", TypeMatchHeader, func(b []byte) { putI32(b, 564, 3); putI32(b, 568, 4) }, func(r Record) bool { return mh(r).MoneyInitScore == [2]int{3, 4} }},
		{"UnratedImp 574", TypeMatchHeader, func(b []byte) { b[574] = 1 }, func(r Record) bool { return mh(r).UnratedImp }},
		{"CommentFooterMatch 580", TypeMatchHeader, func(b []byte) { putI32(b, 580, 9) }, func(r Record) bool { return mh(r).CommentFooterMatch == 9 }},
		{"IsMoneyMatch 584", TypeMatchHeader, func(b []byte) { b[584] = 1 }, func(r Record) bool { return mh(r).IsMoneyMatch }},
		{"WinMoney 588", TypeMatchHeader, func(b []byte) { putF32(b, 588, 2.5) }, func(r Record) bool { return mh(r).WinMoney == 2.5 }},
		{"TableStake 604 single", TypeMatchHeader, func(b []byte) { putF32(b, 604, 0.25) }, func(r Record) bool { return mh(r).TableStake == 0.25 }},
		{"SiteId 608", TypeMatchHeader, func(b []byte) { putI32(b, 608, 7) }, func(r Record) bool { return mh(r).SiteID == 7 }},
		{"CubeLimit 612", TypeMatchHeader, func(b []byte) { putI32(b, 612, 64) }, func(r Record) bool { return mh(r).CubeLimit == 64 }},
		{"AutoDoubleMax 616", TypeMatchHeader, func(b []byte) { putI32(b, 616, 2) }, func(r Record) bool { return mh(r).AutoDoubleMax == 2 }},
		{"Transcribed 620 spec", TypeMatchHeader, func(b []byte) { b[620] = 1 }, func(r Record) bool { return mh(r).Transcribed }},
		{"Event 622 spec", TypeMatchHeader, func(b []byte) { putWide(b, 622, "Jørgensen Cup") }, func(r Record) bool { return mh(r).Event == "Jørgensen Cup" }},
		{"Player1 880 spec", TypeMatchHeader, func(b []byte) { putWide(b, 880, "Kévin") }, func(r Record) bool { return mh(r).Player1 == "Kévin" }},
		{"Player2 1138 spec", TypeMatchHeader, func(b []byte) { putWide(b, 1138, "𝄞 Bob") }, func(r Record) bool { return mh(r).Player2 == "𝄞 Bob" }},
		{"Location 1396", TypeMatchHeader, func(b []byte) { putWide(b, 1396, "Paris") }, func(r Record) bool { return mh(r).Location == "Paris" }},
		{"Round 1654", TypeMatchHeader, func(b []byte) { putWide(b, 1654, "Final") }, func(r Record) bool { return mh(r).Round == "Final" }},
		{"TimeSetting 1912", TypeMatchHeader, func(b []byte) { putI32(b, 1912, 1); b[1916] = 1; putI32(b, 1920, 600); putI32(b, 1940, 3) },
			func(r Record) bool {
				ts := mh(r).TimeSetting
				return ts.ClockType == 1 && ts.PerGame && ts.Time1 == 600 && ts.PenaltyMoney == 3
			}},
		{"TotTimeDelayMove 1944", TypeMatchHeader, func(b []byte) { putI32(b, 1944, 5); putI32(b, 1956, 6) },
			func(r Record) bool { return mh(r).TotTimeDelayMove == 5 && mh(r).TotTimeDelayCubeDone == 6 }},
		{"Transcriber 1960", TypeMatchHeader, func(b []byte) { putWide(b, 1960, "Anna") }, func(r Record) bool { return mh(r).Transcriber == "Anna" }},

		{"game Score1 12 spec", TypeGameHeader, func(b []byte) { putI32(b, 12, 3); putI32(b, 16, 4) }, func(r Record) bool { return gh(r).Score1 == 3 && gh(r).Score2 == 4 }},
		{"CrawfordApply 20 spec", TypeGameHeader, func(b []byte) { b[20] = 1 }, func(r Record) bool { return gh(r).CrawfordApply }},
		{"PosInit 21 spec", TypeGameHeader, func(b []byte) { putPos(b, 21, pos) }, func(r Record) bool { return gh(r).PosInit == pos }},
		{"GameNumber 48 spec", TypeGameHeader, func(b []byte) { putI32(b, 48, 5) }, func(r Record) bool { return gh(r).GameNumber == 5 }},
		{"InProgress 52", TypeGameHeader, func(b []byte) { b[52] = 1 }, func(r Record) bool { return gh(r).InProgress }},
		{"CommentFooterGame 60", TypeGameHeader, func(b []byte) { putI32(b, 60, 2) }, func(r Record) bool { return gh(r).CommentFooterGame == 2 }},
		{"NumberOfAutoDouble 64", TypeGameHeader, func(b []byte) { putI32(b, 64, 1) }, func(r Record) bool { return gh(r).NumberOfAutoDouble == 1 }},

		{"Actif 12 spec", TypeCube, func(b []byte) { putI32(b, 12, -1) }, func(r Record) bool { return cu(r).Actif == -1 }},
		{"Double 16, Take 20 spec", TypeCube, func(b []byte) { putI32(b, 16, 1); putI32(b, 20, 2) }, func(r Record) bool { return cu(r).Double == 1 && cu(r).Take == 2 }},
		{"RaccoonR 28", TypeCube, func(b []byte) { putI32(b, 28, 1) }, func(r Record) bool { return cu(r).RaccoonR == 1 }},
		{"CubeB 32 spec", TypeCube, func(b []byte) { putI32(b, 32, -2) }, func(r Record) bool { return cu(r).CubeB == -2 }},
		{"Position 36 spec", TypeCube, func(b []byte) { putPos(b, 36, pos) }, func(r Record) bool { return cu(r).Position == pos }},
		{"DoubleD 64 spec", TypeCube, func(b []byte) { putPos(b, 64, pos); putI32(b, 92, 3); putF32(b, 160, -1); putF32(b, 192, 0.5) },
			func(r Record) bool {
				d := cu(r).DoubleD
				return d.Pos == pos && d.Level == 3 && d.EquDrop == -1 && d.EvalDouble[6] == 0.5
			}},
		{"ErrCube 200", TypeCube, func(b []byte) { putF64(b, 200, -1000) }, func(r Record) bool { return cu(r).ErrCube == -1000 }},
		{"DiceRolled 208 spec", TypeCube, func(b []byte) { putShort(b, 208, "51") }, func(r Record) bool { return cu(r).DiceRolled == "51" }},
		{"ErrTake 216", TypeCube, func(b []byte) { putF64(b, 216, 0.125) }, func(r Record) bool { return cu(r).ErrTake == 0.125 }},
		{"RolloutIndexD 224", TypeCube, func(b []byte) { putI32(b, 224, 4) }, func(r Record) bool { return cu(r).RolloutIndexD == 4 }},
		{"ErrBeaver 240", TypeCube, func(b []byte) { putF64(b, 240, 2) }, func(r Record) bool { return cu(r).ErrBeaver == 2 }},
		{"InValid 260", TypeCube, func(b []byte) { putI32(b, 260, 2) }, func(r Record) bool { return cu(r).InValid == 2 }},
		{"TutorTake 265", TypeCube, func(b []byte) { b[265] = 0xFF }, func(r Record) bool { return cu(r).TutorTake == -1 }},
		{"ErrTutorTake 280", TypeCube, func(b []byte) { putF64(b, 280, 3) }, func(r Record) bool { return cu(r).ErrTutorTake == 3 }},
		{"CommentCube 292", TypeCube, func(b []byte) { putI32(b, 292, 8) }, func(r Record) bool { return cu(r).CommentCube == 8 }},
		{"EditedCube 296", TypeCube, func(b []byte) { b[296] = 1 }, func(r Record) bool { return cu(r).EditedCube }},
		{"TimeDelayCubeDone 298", TypeCube, func(b []byte) { b[298] = 1 }, func(r Record) bool { return cu(r).TimeDelayCubeDone }},
		{"NumberOfAutoDoubleCube 300", TypeCube, func(b []byte) { putI32(b, 300, 1) }, func(r Record) bool { return cu(r).NumberOfAutoDoubleCube == 1 }},
		{"TimeTop 308", TypeCube, func(b []byte) { putI32(b, 308, 99) }, func(r Record) bool { return cu(r).TimeTop == 99 }},

		{"PositionI 9 spec", TypeMove, func(b []byte) { putPos(b, 9, pos) }, func(r Record) bool { return mv(r).PositionI == pos }},
		{"PositionEnd 35 spec", TypeMove, func(b []byte) { putPos(b, 35, pos) }, func(r Record) bool { return mv(r).PositionEnd == pos }},
		{"ActifP 64 spec", TypeMove, func(b []byte) { putI32(b, 64, -1) }, func(r Record) bool { return mv(r).ActifP == -1 }},
		{"Moves 68 spec", TypeMove, func(b []byte) { putI32(b, 68, 12); putI32(b, 96, -1) }, func(r Record) bool { return mv(r).Moves[0] == 12 && mv(r).Moves[7] == -1 }},
		{"Dice 100 spec", TypeMove, func(b []byte) { putI32(b, 100, 6); putI32(b, 104, 5) }, func(r Record) bool { return mv(r).Dice == [2]int{6, 5} }},
		{"CubeA 108 spec", TypeMove, func(b []byte) { putI32(b, 108, -1) }, func(r Record) bool { return mv(r).CubeA == -1 }},
		{"ErrorM 112", TypeMove, func(b []byte) { putF64(b, 112, 1.5) }, func(r Record) bool { return mv(r).ErrorM == 1.5 }},
		{"NMoveEval 120", TypeMove, func(b []byte) { putI32(b, 120, 17) }, func(r Record) bool { return mv(r).NMoveEval == 17 }},
		{"DataMoves 124 spec", TypeMove, func(b []byte) {
			putPos(b, 124, pos)
			putI32(b, 152, 3)
			putI32(b, 188, 32)
			putPos(b, 124+68+26, pos)
			b[124+900] = 0xFF
			b[124+1156+2] = 1
			putF32(b, 124+2176, 0.75)
			b[124+2183] = 5
		}, func(r Record) bool {
			d := mv(r).DataMoves
			return d.Pos == pos && d.Dice[0] == 3 && d.NMoves == 32 && d.PosPlayed[1] == pos && d.Moves[0][0] == -1 &&
				d.EvalLevel[0].IsDouble && d.Eval[31][6] == 0.75 && d.Choice3 == 5
		}},
		{"Played 2308", TypeMove, func(b []byte) { b[2308] = 1 }, func(r Record) bool { return mv(r).Played }},
		{"ErrMove 2312 spec", TypeMove, func(b []byte) { putF64(b, 2312, -0.25) }, func(r Record) bool { return mv(r).ErrMove == -0.25 }},
		{"ErrLuck 2320", TypeMove, func(b []byte) { putF64(b, 2320, 0.5) }, func(r Record) bool { return mv(r).ErrLuck == 0.5 }},
		{"CompChoice 2328", TypeMove, func(b []byte) { putI32(b, 2328, 2) }, func(r Record) bool { return mv(r).CompChoice == 2 }},
		{"InitEq 2336", TypeMove, func(b []byte) { putF64(b, 2336, 0.1) }, func(r Record) bool { return mv(r).InitEq == 0.1 }},
		{"RolloutIndexM 2344", TypeMove, func(b []byte) { putI32(b, 2344, 1); putI32(b, 2468, 2) }, func(r Record) bool { return mv(r).RolloutIndexM[0] == 1 && mv(r).RolloutIndexM[31] == 2 }},
		{"AnalyzeM 2472", TypeMove, func(b []byte) { putI32(b, 2472, 1000) }, func(r Record) bool { return mv(r).AnalyzeM == 1000 }},
		{"InvalidM 2480", TypeMove, func(b []byte) { putI32(b, 2480, 2) }, func(r Record) bool { return mv(r).InvalidM == 2 }},
		{"PositionTutor 2484", TypeMove, func(b []byte) { putPos(b, 2484, pos) }, func(r Record) bool { return mv(r).PositionTutor == pos }},
		{"Tutor 2510", TypeMove, func(b []byte) { b[2510] = 3 }, func(r Record) bool { return mv(r).Tutor == 3 }},
		{"ErrTutorMove 2512", TypeMove, func(b []byte) { putF64(b, 2512, 4) }, func(r Record) bool { return mv(r).ErrTutorMove == 4 }},
		{"Flagged 2520", TypeMove, func(b []byte) { b[2520] = 1 }, func(r Record) bool { return mv(r).Flagged }},
		{"CommentMove 2524", TypeMove, func(b []byte) { putI32(b, 2524, 6) }, func(r Record) bool { return mv(r).CommentMove == 6 }},
		{"EditedMove 2528", TypeMove, func(b []byte) { b[2528] = 1 }, func(r Record) bool { return mv(r).EditedMove }},
		{"TimeDelayMove 2532", TypeMove, func(b []byte) { putI32(b, 2532, 5); putI32(b, 2536, 4) }, func(r Record) bool { return mv(r).TimeDelayMove == 5 && mv(r).TimeDelayMoveDone == 4 }},
		{"NumberOfAutoDoubleMove 2540", TypeMove, func(b []byte) { putI32(b, 2540, 1) }, func(r Record) bool { return mv(r).NumberOfAutoDoubleMove == 1 }},
		{"Filler 2544", TypeMove, func(b []byte) { putI32(b, 2556, 7) }, func(r Record) bool { return mv(r).Filler[3] == 7 }},

		{"Score1g 12 spec", TypeGameFooter, func(b []byte) { putI32(b, 12, 5); putI32(b, 16, 6) }, func(r Record) bool { return gf(r).Score1 == 5 && gf(r).Score2 == 6 }},
		{"Winner 24 spec", TypeGameFooter, func(b []byte) { putI32(b, 24, -1); putI32(b, 28, 4); putI32(b, 32, 102) },
			func(r Record) bool { return gf(r).Winner == -1 && gf(r).PointsWon == 4 && gf(r).Termination == 102 }},
		{"ErrResign 40", TypeGameFooter, func(b []byte) { putF64(b, 40, -1000); putF64(b, 48, 1) }, func(r Record) bool { return gf(r).ErrResign == -1000 && gf(r).ErrTakeResign == 1 }},
		{"Eval 56 spec", TypeGameFooter, func(b []byte) { putF64(b, 56, 0.5); putF64(b, 104, -1); putI32(b, 112, 2) },
			func(r Record) bool { return gf(r).Eval[0] == 0.5 && gf(r).Eval[6] == -1 && gf(r).EvalLevel == 2 }},

		{"Score1m 12 spec", TypeMatchFooter, func(b []byte) { putI32(b, 12, 7); putI32(b, 16, 4); putI32(b, 20, 1) },
			func(r Record) bool { return mf(r).Score1 == 7 && mf(r).Score2 == 4 && mf(r).Winner == 1 }},
		{"Elo1m 24", TypeMatchFooter, func(b []byte) { putF64(b, 24, 1500); putF64(b, 32, 1600) }, func(r Record) bool { return mf(r).Elo1 == 1500 && mf(r).Elo2 == 1600 }},
		{"exp1m 40, Datem 48", TypeMatchFooter, func(b []byte) { putI32(b, 40, 10); putI32(b, 44, 20); putF64(b, 48, 45000) },
			func(r Record) bool { return mf(r).Exp1 == 10 && mf(r).Exp2 == 20 && mf(r).Date == 45000 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newRecord(tt.typ)
			if tt.typ == TypeMatchHeader {
				b = matchHeaderRec(fullVersion, "", "", 1)
			}
			tt.put(b)
			r, err := decodeRecord(b, fullVersion)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(r) {
				t.Errorf("field not decoded: %+v", r)
			}
		})
	}
}

// fullVersion is a file version with every field of the seed.
const fullVersion = 30

func TestRolloutOffsets(t *testing.T) {
	b := make([]byte, rolloutSize)
	b[1] = 1
	putF64(b, 16, 0.01)
	putF32(b, 72, 1.5)
	putF64(b, 96, 3)
	putF64(b, 96+5*296+36*8, 4) // Stdev2[36]
	putI32(b, 1872, 1296)
	putF32(b, 2020, 0.02)
	putF32(b, 2084, 0.6)
	binary.LittleEndian.PutUint16(b[2170:], 2)
	binary.LittleEndian.PutUint16(b[2172:], 10)
	putI32(b, 2180, 9)
	r := decodeRollout(&decoder{b: b})
	if !r.ErrorLimited || r.ErrorLimit != 0.01 || r.SearchInterval != 1.5 || r.Sum1[0] != 3 || r.Stdev2[36] != 4 ||
		r.RolledD[0] != 1296 || r.Error1 != 0.02 || r.Mwc1 != 0.6 || r.VerMaj != 2 || r.VerMin != 10 || r.Filler[0] != 9 {
		t.Errorf("rollout decoded wrong: %+v", r)
	}
}

// TestVersionGates checks that fields added in later versions are ignored
// in older files, whose bytes there are undefined.
func TestVersionGates(t *testing.T) {
	junk := func(b []byte, from int) {
		for i := from; i < len(b); i++ {
			b[i] = 0x41
		}
	}
	for _, tt := range []struct {
		version int
		check   func(h *MatchHeader) bool
	}{
		{7, func(h *MatchHeader) bool { return h.CubeLimit == 0 && h.Event == "" }},
		{8, func(h *MatchHeader) bool { return h.CubeLimit == 0x41414141 && !h.Transcribed && h.Player1 == "" }},
		{24, func(h *MatchHeader) bool { return h.Transcribed && h.Player1 != "" && h.TimeSetting == TimeSetting{} }},
		{25, func(h *MatchHeader) bool { return h.TimeSetting.Time1 == 0x41414141 && h.TotTimeDelayMove == 0 }},
		{26, func(h *MatchHeader) bool { return h.TotTimeDelayMove == 0x41414141 && h.Transcriber == "" }},
		{30, func(h *MatchHeader) bool { return h.Transcriber != "" }},
	} {
		b := matchHeaderRec(tt.version, "A", "B", 7)
		junk(b, 612)
		r, err := decodeRecord(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if h := r.(*MatchHeader); !tt.check(h) {
			t.Errorf("version %d: gated fields wrong: %+v", tt.version, h)
		}
	}

	cube := newRecord(TypeCube)
	junk(cube, 296)
	for _, tt := range []struct {
		version int
		want    [4]bool // EditedCube, TimeDelayCube, autodoubles, TimeBot
	}{
		{23, [4]bool{false, false, false, false}},
		{24, [4]bool{true, false, false, false}},
		{26, [4]bool{true, true, false, false}},
		{27, [4]bool{true, true, true, false}},
		{28, [4]bool{true, true, true, true}},
	} {
		r, _ := decodeRecord(cube, tt.version)
		c := r.(*CubeEntry)
		got := [4]bool{c.EditedCube, c.TimeDelayCube, c.NumberOfAutoDoubleCube != 0, c.TimeBot != 0}
		if got != tt.want {
			t.Errorf("cube v%d: set %v, want %v", tt.version, got, tt.want)
		}
	}

	move := newRecord(TypeMove)
	junk(move, 2528)
	for _, tt := range []struct {
		version int
		want    [3]bool // EditedMove, TimeDelayMove, autodoubles
	}{
		{23, [3]bool{false, false, false}},
		{24, [3]bool{true, false, false}},
		{26, [3]bool{true, true, false}},
		{27, [3]bool{true, true, true}},
	} {
		r, _ := decodeRecord(move, tt.version)
		m := r.(*MoveEntry)
		got := [3]bool{m.EditedMove, m.TimeDelayMove != 0, m.NumberOfAutoDoubleMove != 0}
		if got != tt.want || m.Filler[0] != 0x41414141 {
			t.Errorf("move v%d: set %v (filler %x), want %v", tt.version, got, m.Filler[0], tt.want)
		}
	}

	game := newRecord(TypeGameHeader)
	junk(game, 64)
	for v, want := range map[int]int{25: 0, 26: 0x41414141} {
		r, _ := decodeRecord(game, v)
		if got := r.(*GameHeader).NumberOfAutoDouble; got != want {
			t.Errorf("game header v%d: NumberOfAutoDouble %x, want %x", v, got, want)
		}
	}
}

func TestMatchHeaderChecks(t *testing.T) {
	bad := matchHeaderRec(30, "A", "B", 7)
	putI32(bad, 556, 0x12345678)
	if _, err := decodeRecord(bad, 0); err == nil {
		t.Error("bad magic accepted")
	}
	for _, v := range []int{-1, MaxSaveFileVersion + 1} {
		if _, err := decodeRecord(matchHeaderRec(v, "A", "B", 7), 0); err == nil {
			t.Errorf("version %d accepted", v)
		}
	}
	unknown := newRecord(8)
	if _, err := decodeRecord(unknown, 30); err == nil {
		t.Error("record type 8 accepted")
	}
	for _, typ := range []EntryType{TypeComment, TypeMissing} {
		r, err := decodeRecord(newRecord(typ), 30)
		if err != nil || r.Type() != typ {
			t.Errorf("type %d: %v, %v", typ, r, err)
		}
	}
}
