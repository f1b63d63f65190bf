package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	startPos   = "4HPwATDgc/ABMA"
	seedMatch  = "QYkqASAAIAAA" // Jacoby bit clear
	gnubgMatch = "QYkqASAAIAAE" // as gnubg prints it
)

func TestGnubgDecodeJSON(t *testing.T) {
	code, out, errs := levelctl(t, "", "gnubg", "decode", "--json", startPos, gnubgMatch, startPos+":"+seedMatch)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var pos map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &pos); err != nil {
		t.Fatal(err)
	}
	if pos["posid"] != startPos || len(pos) != 2 {
		t.Errorf("position object %v", pos)
	}
	side := []any{0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0}
	if b, _ := json.Marshal(pos["board"]); string(b) != mustJSON(t, []any{side, side}) {
		t.Errorf("board %s", b)
	}

	wantMatch := `{"matchid":"QYkqASAAIAAE","cube":2,"cube_owner":0,"move":1,"crawford":false,"game_state":1,` +
		`"turn":1,"doubled":false,"resigned":0,"dice":[5,2],"match_length":9,"score":[2,4],"jacoby":false}`
	if lines[1] != wantMatch {
		t.Errorf("match line\n %s\nwant\n %s", lines[1], wantMatch)
	}
	var both map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &both); err != nil {
		t.Fatal(err)
	}
	if both["posid"] != startPos || both["matchid"] != seedMatch || both["jacoby"] != true || both["board"] == nil || len(both) != 15 {
		t.Errorf("combined object %v", both)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGnubgDecodeText(t *testing.T) {
	code, out, _ := levelctl(t, "", "gnubg", "decode", startPos+":"+gnubgMatch)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	hasAll(t, out,
		"Position ID "+startPos,
		" 5X  .  .  . 3O  . | 5O  .  .  .  . 2X", // points 13..24 for the side on roll
		" 5O  .  .  . 3X  . | 5X  .  .  .  . 2O", // points 12..1
		"Match ID "+gnubgMatch,
		"9-point match, score 2-4",
		"dice 5-2",
		"Jacoby false",
	)
}

func TestGnubgDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		id, want string
	}{
		{"short", `"short"`},
		{"AAAA//8AAAAAAA", "AAAA//8AAAAAAA"},   // 16 checkers
		{"4HPwATDgc/AB!A", "4HPwATDgc/AB!A"},   // bad character
		{"MAEgCAAAAAAE", "MAEgCAAAAAAE"},       // match length 65
		{startPos + ":bad", startPos + ":bad"}, // combined with a bad match ID
	} {
		code, out, errs := levelctl(t, "", "gnubg", "decode", "--json", startPos, tc.id)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.id, code)
		}
		if lines := strings.Split(strings.TrimSpace(errs), "\n"); len(lines) != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: stderr %q should be one line naming the ID", tc.id, errs)
		}
		if !strings.Contains(out, startPos) { // the good ID is still decoded
			t.Errorf("%s: good ID missing from output %q", tc.id, out)
		}
	}
}

func TestGnubgUsage(t *testing.T) {
	for _, args := range [][]string{
		{"gnubg"},
		{"gnubg", "frobnicate"},
		{"gnubg", "decode"},
		{"gnubg", "decode", "--bogus", startPos},
		{"gnubg", "encode", "extra"},
	} {
		if code, _, errs := levelctl(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want usage error", args, code, errs)
		}
	}
}

func TestGnubgEncode(t *testing.T) {
	// decode's JSON output fed back reproduces the IDs.
	ids := []string{startPos, gnubgMatch, seedMatch, startPos + ":" + gnubgMatch, "AAAAxgwhSCMAAA:cGEgA3ABaAAE"}
	_, out, _ := levelctl(t, "", append([]string{"gnubg", "decode", "--json"}, ids...)...)
	code, enc, errs := levelctl(t, out+"\n", "gnubg", "encode")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if got := strings.Fields(enc); strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Errorf("encode gave %v, want %v", got, ids)
	}
	// gnubg's vector style: 0/1 flags, unsorted dice, defaults for cube.
	in := `{"match_length":9,"score":[2,4],"move":1,"turn":1,"game_state":1,"dice":[2,5],"cube":2,"cube_owner":0,"jacoby":0}` + "\n" +
		`{"match_length":9,"score":[2,4],"move":1,"turn":1,"game_state":1,"dice":[5,2],"cube":2,"cube_owner":0,"jacoby":true}`
	code, enc, errs = levelctl(t, in, "gnubg", "encode")
	if code != 0 || enc != gnubgMatch+"\n"+seedMatch+"\n" {
		t.Errorf("exit %d, output %q, stderr %q", code, enc, errs)
	}
	if _, enc, _ := levelctl(t, `{"game_state":1}`, "gnubg", "encode"); enc != "MAEAAAAAAAAE\n" {
		t.Errorf("defaults: %q", enc)
	}
}

func TestGnubgEncodeErrors(t *testing.T) {
	good := `{"board":[[0,0,0,0,0,5,0,3,0,0,0,0,5,0,0,0,0,0,0,0,0,0,0,2,0],[0,0,0,0,0,5,0,3,0,0,0,0,5,0,0,0,0,0,0,0,0,0,0,2,0]]}`
	for _, tc := range []struct{ name, line string }{
		{"not JSON", "xx"},
		{"unknown field", `{"cubes":2}`},
		{"empty object", `{}`},
		{"short board", `{"board":[[1],[1]]}`},
		{"16 checkers", `{"board":[[16,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]}`},
		{"cube 3", `{"cube":3}`},
		{"bad flag", `{"crawford":"yes"}`},
		{"two values", `{"cube":2} {"cube":4}`},
	} {
		code, out, errs := levelctl(t, good+"\n\n"+tc.line+"\n", "gnubg", "encode")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.name, code)
		}
		if lines := strings.Split(strings.TrimSpace(errs), "\n"); len(lines) != 1 || !strings.Contains(errs, "stdin line 3:") {
			t.Errorf("%s: stderr %q should be one line naming line 3", tc.name, errs)
		}
		if out != startPos+"\n" {
			t.Errorf("%s: output %q", tc.name, out)
		}
	}
}
