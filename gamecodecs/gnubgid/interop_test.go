package gnubgid

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// gnubgBinary finds gnubg: on PATH, or where Debian's package puts it
// (/usr/games is not on every PATH).
func gnubgBinary() string {
	if p, err := exec.LookPath("gnubg"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/games/gnubg"); err == nil {
		return "/usr/games/gnubg"
	}
	return ""
}

// interopScript runs inside gnubg's embedded Python. It decodes and
// re-encodes our Position IDs, encodes our match fields with gnubg's own
// MatchID(), and reports which IDs gnubg refuses.
const interopScript = `
import json, sys, gnubg
src, dst = ARGS
req = json.load(open(src))
out = {"positions": [], "matches": [], "pos_refused": [], "match_refused": []}
for pid in req["positions"]:
    b = gnubg.positionfromid(pid)
    out["positions"].append({"board": [list(b[0]), list(b[1])], "id": gnubg.positionid(b)})
ci = gnubg.cubeinfo(1, 0, 0, 0, (0, 0), 0, 0)
pi = gnubg.posinfo(0, 0, 0, 1, (0, 0))
for m in req["matches"]:
    ci.update(cube=m["cube"], cubeowner=m["owner"], move=m["move"], matchto=m["len"],
              score=tuple(m["score"]), crawford=m["crawford"], jacoby=m["jacoby"])
    pi.update(dice=tuple(m["dice"]), turn=m["turn"], resigned=m["resigned"],
              doubled=m["doubled"], gamestate=m["gs"])
    out["matches"].append(gnubg.matchid(ci, pi))
for pid in req["pos_refused"]:
    try:
        gnubg.positionfromid(pid)
        out["pos_refused"].append(False)
    except ValueError:
        out["pos_refused"].append(True)
# "set matchid" leaves the match alone when it refuses an ID, so set a
# sentinel first and see whether it survives.
sentinel = "cAkpApAAcAAE"
for mid in req["match_refused"]:
    gnubg.command("set matchid " + sentinel)
    before = gnubg.matchid()
    gnubg.command("set matchid " + mid)
    out["match_refused"].append(gnubg.matchid() == before)
json.dump(out, open(dst, "w"))
`

type interopMatch struct {
	Cube     int    `json:"cube"`
	Owner    int    `json:"owner"`
	Move     int    `json:"move"`
	Len      int    `json:"len"`
	Score    [2]int `json:"score"`
	Crawford int    `json:"crawford"`
	Jacoby   int    `json:"jacoby"`
	Dice     [2]int `json:"dice"`
	Turn     int    `json:"turn"`
	Resigned int    `json:"resigned"`
	Doubled  int    `json:"doubled"`
	GS       int    `json:"gs"`
}

// TestGnubgInterop checks our IDs against gnubg itself when it is
// installed (Debian package "gnubg").
func TestGnubgInterop(t *testing.T) {
	bin := gnubgBinary()
	if bin == "" {
		t.Skip("gnubg not installed (apt-get install gnubg); skipping the interop test")
	}
	r := rand.New(rand.NewPCG(11, 12))
	var req struct {
		Positions    []string       `json:"positions"`
		Matches      []interopMatch `json:"matches"`
		PosRefused   []string       `json:"pos_refused"`
		MatchRefused []string       `json:"match_refused"`
	}
	var boards []Board
	var matchIDs []string
	for range 300 {
		b := randomBoard(r)
		id, err := EncodePosition(b)
		if err != nil {
			t.Fatal(err)
		}
		boards = append(boards, b)
		req.Positions = append(req.Positions, id)

		m := randomMatch(r)
		id, err = EncodeMatch(m)
		if err != nil {
			t.Fatal(err)
		}
		matchIDs = append(matchIDs, id)
		req.Matches = append(req.Matches, interopMatch{
			Cube: m.Cube, Owner: m.CubeOwner, Move: m.Move, Len: m.MatchLength, Score: m.Score,
			Crawford: b2i(m.Crawford), Jacoby: b2i(m.Jacoby), Dice: m.Dice, Turn: m.Turn,
			Resigned: m.Resigned, Doubled: b2i(m.Doubled), GS: m.GameState,
		})
	}
	for _, tc := range positionRejects {
		req.PosRefused = append(req.PosRefused, tc.id)
	}
	for _, tc := range matchRejects {
		req.MatchRefused = append(req.MatchRefused, tc.id)
	}

	dir := t.TempDir()
	src, dst, script := filepath.Join(dir, "req.json"), filepath.Join(dir, "out.json"), filepath.Join(dir, "interop.py")
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{src, dst})
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("ARGS = "+string(argv)+"\n"+interopScript), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang detector: gnubg takes seconds
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-t", "-q", "-r", "-p", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir) // keep gnubg's settings out of the real home
	outText, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gnubg: %v\n%s", err, outText)
	}
	var out struct {
		Positions []struct {
			Board Board  `json:"board"`
			ID    string `json:"id"`
		} `json:"positions"`
		Matches      []string `json:"matches"`
		PosRefused   []bool   `json:"pos_refused"`
		MatchRefused []bool   `json:"match_refused"`
	}
	data, err = os.ReadFile(dst)
	if err != nil {
		t.Fatalf("gnubg wrote no result: %v\n%s", err, outText)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Positions) != len(boards) || len(out.Matches) != len(matchIDs) ||
		len(out.PosRefused) != len(positionRejects) || len(out.MatchRefused) != len(matchRejects) {
		t.Fatalf("gnubg answered %d/%d/%d/%d items", len(out.Positions), len(out.Matches), len(out.PosRefused), len(out.MatchRefused))
	}
	for i, p := range out.Positions {
		if p.Board != boards[i] || p.ID != req.Positions[i] {
			t.Errorf("gnubg decodes %s to %v and re-encodes %s; we have %v", req.Positions[i], p.Board, p.ID, boards[i])
		}
	}
	for i, id := range out.Matches {
		if id != matchIDs[i] {
			t.Errorf("gnubg encodes %+v as %s, we as %s", req.Matches[i], id, matchIDs[i])
		}
	}
	for i, refused := range out.PosRefused {
		if tc := positionRejects[i]; refused != tc.gnubg {
			t.Errorf("position %s (%s): gnubg refuses = %v, table says %v", tc.id, tc.name, refused, tc.gnubg)
		}
	}
	for i, refused := range out.MatchRefused {
		if tc := matchRejects[i]; refused != tc.gnubg {
			t.Errorf("match %s (%s): gnubg refuses = %v, table says %v", tc.id, tc.name, refused, tc.gnubg)
		}
	}
}
