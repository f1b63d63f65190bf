package tierdcli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/runfolder"
)

// The rough edges a newcomer hit (issue 11), one check each.

func TestVerifySaysWhatItChecked(t *testing.T) {
	dir := solved(t, "run", "tictactoe", "")
	code, stdout, _ := tierd(t, "verify", "--db", dir)
	if code != 0 || stdout != dir+": ok: 20 files match the manifest (size and SHA-256); 5478 positions in 10 tiers re-derived from their children\n" {
		t.Errorf("verify: exit %d, %q", code, stdout)
	}
	dbs, _ := filepath.Glob(filepath.Join(dir, "db", "*"))
	flipByte(t, dbs[0])
	flipByte(t, dbs[1])
	code, _, stderr := tierd(t, "verify", "--db", dir)
	if code != 1 || !strings.HasSuffix(stderr, dir+": 2 of 20 files do not match the manifest, so no value was re-derived; tierd solve --out "+dir+" redoes what is damaged\n") ||
		strings.Contains(stderr, "{") {
		t.Errorf("verify of a damaged run: exit %d, %q", code, stderr)
	}
	code, stdout, _ = tierd(t, "verify", "--db", dir, "--json")
	var v struct {
		OK         bool     `json:"ok"`
		Files      int      `json:"files_checked"`
		FileErrors []string `json:"file_errors"`
		Positions  uint64   `json:"positions_rederived"`
	}
	if code != 1 || json.Unmarshal([]byte(stdout), &v) != nil || v.OK || v.Files != 20 || len(v.FileErrors) != 2 || v.Positions != 0 {
		t.Errorf("verify --json: exit %d, %q", code, stdout)
	}
}

func TestHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{{"solve", "-h"}, {"query", "--help"}, {"-h"}, {"help"}} {
		code, stdout, stderr := tierd(t, args...)
		if code != 0 || !strings.Contains(stdout, "usage") && !strings.Contains(stdout, "commands:") || stderr != "" {
			t.Errorf("tierd %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// query takes the game and options from the run, and positions that start
// with '-' need no "--".
func TestQueryDefaultsToTheRun(t *testing.T) {
	dir := solved(t, "run", "connect4", "width=4,height=3")
	code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", "moves:")
	if code != 0 || !strings.Contains(stdout, `"value":"tie","remoteness":12`) {
		t.Errorf("query without --game: exit %d, %q %q", code, stdout, stderr)
	}
	ttt := solved(t, "ttt", "tictactoe", "")
	for _, args := range [][]string{
		{"query", "--db", ttt, "---/---/---"},
		{"query", "--db", ttt, "--json", "---/---/---"},
		{"query", "--json", "--db", ttt, "---/---/---"},
		{"query", "--db", ttt, "--", "---/---/---"},
		{"query", "--", "---/---/---", "--db", ttt}, // an argument, after "--": no --db
	} {
		if args[1] == "--" {
			if code, _, stderr := tierd(t, args...); code != 2 || !strings.Contains(stderr, "need --db and one POSITION") {
				t.Errorf("tierd %v: exit %d, %q; want exit 2", args, code, stderr)
			}
			continue
		}
		code, stdout, stderr := tierd(t, args...)
		if code != 0 || !strings.Contains(stdout, "tie") {
			t.Errorf("tierd %v: exit %d, %q %q", args, code, stdout, stderr)
		}
	}
}

func TestAlreadySolvedSaysSo(t *testing.T) {
	dir := solved(t, "run", "tictactoe", "")
	code, stdout, _ := tierd(t, "solve", "--game", "tictactoe", "--out", dir)
	if code != 0 || !strings.Contains(stdout, "tictactoe (default): 5478 positions, already solved, in ") || !strings.Contains(stdout, "s when it ran;") {
		t.Errorf("solve of a solved run: exit %d, %q", code, stdout)
	}
	code, stdout, _ = tierd(t, "reach", "--game", "tictactoe", "--out", dir)
	if code != 0 || !strings.Contains(stdout, "already reached: 5478 reachable positions in 10 tiers, in ") {
		t.Errorf("reach of a reached run: exit %d, %q", code, stdout)
	}
}

func TestMessages(t *testing.T) {
	code, _, stderr := tierd(t, "solve", "--game", "tictactoe", "--option", "x=1", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, `unknown option "x": this game takes no options`) {
		t.Errorf("tictactoe with an option: exit %d, %q", code, stderr)
	}
	var sum struct {
		Tiers []struct{ Name string } `json:"tiers"`
	}
	solvedJSON(t, &sum, "run", "connect4", "width=3,height=3")
	if len(sum.Tiers) < 3 || sum.Tiers[1].Name != "1 piece" || sum.Tiers[2].Name != "2 pieces" {
		t.Errorf("tier names: %+v", sum.Tiers)
	}
}

// With no --out, solve writes to tierd-GAME-OPTIONS in the current folder
// (which .gitignore lists) and says where, as an absolute path.
func TestDefaultFolderIsNamed(t *testing.T) {
	gitignore, err := os.ReadFile(filepath.Join("..", ".gitignore"))
	if err != nil || !strings.Contains(string(gitignore), "\n/tierd-*/\n") {
		t.Errorf(".gitignore does not list the default run folders: %v", err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr, log := tierdLogged(t, "solve", "--game", "tictactoe")
	want := filepath.Join(dir, "tierd-tictactoe-default")
	if code != 0 || !strings.Contains(stdout, "results in "+want+" ") || !strings.Contains(log, "the run folder is "+want) {
		t.Errorf("exit %d, %q %q %q", code, stdout, stderr, log)
	}
	if _, err := os.Stat(filepath.Join(want, "manifest.json")); err != nil {
		t.Error(err)
	}
}

// File names in a run folder are portable (no '=' or ','), and a folder
// written with the old names (the option as given, "width=4,height=3")
// is still read: resumed, verified, queried and repaired in place.
func TestPortableNamesAndOldFolders(t *testing.T) {
	dir := solved(t, "run", "connect4", "width=4,height=3")
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if strings.ContainsAny(filepath.Base(path), "=,") || strings.Contains(path, "_-") {
			t.Errorf("name is not portable: %s", path)
		}
		return nil
	})
	// Make it an old folder: old names, recorded so in the manifest.
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range m.Tiers {
		for _, fi := range []*runfolder.FileInfo{rec.Level, rec.DB} {
			old := strings.Replace(fi.Path, "width4-height3", "width=4,height=3", 1)
			if err := os.Rename(filepath.Join(dir, fi.Path), filepath.Join(dir, old)); err != nil {
				t.Fatal(err)
			}
			fi.Path = old
		}
	}
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(dir, m.Tiers[4].Level.Path))
	for _, args := range [][]string{
		{"solve", "--game", "connect4", "--option", "width=4,height=3", "--out", dir},
		{"verify", "--db", dir},
		{"query", "--db", dir, "moves:1"},
	} {
		if code, _, stderr := tierd(t, args...); code != 0 {
			t.Errorf("tierd %s on an old folder: exit %d: %s", args[0], code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, m.Tiers[4].Level.Path)); err != nil {
		t.Errorf("the repaired level file is not under its old name: %v", err)
	}
}

// query and verify on a missing folder or a damaged file: exit 1, one
// line naming what is wrong.
func TestQueryOnMissingOrDamaged(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{{"query", "--db", missing, "moves:1"}, {"verify", "--db", missing}} {
		code, _, stderr := tierd(t, args...)
		if code != 1 || !strings.Contains(stderr, missing+": no manifest.json: not a run folder") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("tierd %s of a missing folder: exit %d, %q", args[0], code, stderr)
		}
	}
	dir := solved(t, "run", "connect4", "width=4,height=3")
	m, _ := runfolder.LoadManifest(dir)
	for _, path := range []string{m.Tiers[1].Level.Path, m.Tiers[1].DB.Path} {
		flipByte(t, filepath.Join(dir, path))
		code, _, stderr := tierd(t, "query", "--db", dir, "moves:1")
		if code != 1 || !strings.Contains(stderr, path) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("query with %s damaged: exit %d, %q", path, code, stderr)
		}
		flipByte(t, filepath.Join(dir, path))
	}
}

// TestProgramName: a program named otherwise says its own name in its
// usage, its errors and the commands it suggests, never tierd's.
func TestProgramName(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		code, stdout, stderr, _ := runProgram(New(games.Default()).Named("strip"), args...)
		return code, stdout, stderr
	}
	dir := filepath.Join(t.TempDir(), "run")
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string // what stdout and stderr hold
	}{
		{[]string{"solve", "--bad"}, 2, "", "strip solve: flag provided but not defined: -bad\nusage: strip solve --game NAME"},
		{[]string{"solve"}, 2, "", "strip solve: --game is required (see strip games)"},
		{[]string{"solve", "-h"}, 0, "usage: strip solve", ""},
		{[]string{"nosuch"}, 2, "", `strip: unknown command "nosuch" (run strip help)`},
		{[]string{"query", "--db", filepath.Join(dir, "none"), "x"}, 1, "", "strip query: "},
		{[]string{"solve", "--game", "tictactoe", "--out", dir}, 0, "(strip query --db " + dir + " POSITION)", ""},
		{[]string{"help"}, 0, "run 'strip COMMAND -h'", ""},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.err) || strings.Contains(stdout+stderr, "tierd ") {
			t.Errorf("strip %s: exit %d\nstdout %q\nstderr %q\nwant exit %d, %q and %q, and no tierd", strings.Join(tc.args, " "), code, stdout, stderr, tc.code, tc.out, tc.err)
		}
	}
}

// TestQueryJSONViews: query --json gives each move from two named views:
// the mover's (mover_value, mover_remoteness: the best move's are the
// position's own) and the child's (child_value, child_remoteness: the
// position after the move, for the player to move there); the old value
// (the mover's) and remoteness (the child's) stay for one release.
func TestQueryJSONViews(t *testing.T) {
	dir := solved(t, "run", "tictactoe", "")
	flip := map[string]string{"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}
	for _, pos := range []string{"---/---/---", "x-o/-x-/--o", "xx-/oo-/---", "xo-/-x-/--o"} {
		code, stdout, stderr := tierd(t, "query", "--db", dir, "--json", pos)
		var q struct {
			Value      string
			Remoteness int
			Moves      []struct {
				Move, Value     string
				Remoteness      int
				MoverValue      string `json:"mover_value"`
				MoverRemoteness int    `json:"mover_remoteness"`
				ChildValue      string `json:"child_value"`
				ChildRemoteness int    `json:"child_remoteness"`
			}
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &q) != nil || len(q.Moves) == 0 {
			t.Fatalf("query %s: exit %d: %s %s", pos, code, stdout, stderr)
		}
		if best := q.Moves[0]; best.MoverValue != q.Value || best.MoverRemoteness != q.Remoteness {
			t.Errorf("%s is a %s in %d, its best move %s a %s in %d for the mover", pos, q.Value, q.Remoteness, best.Move, best.MoverValue, best.MoverRemoteness)
		}
		for _, m := range q.Moves {
			if m.MoverValue != flip[m.ChildValue] || m.MoverRemoteness != m.ChildRemoteness+1 || m.Value != m.MoverValue || m.Remoteness != m.ChildRemoteness {
				t.Errorf("%s, move %s: %+v", pos, m.Move, m)
			}
		}
	}
}
