package tierdcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flipByte damages a file in place: same size, one byte changed.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Running tierd solve again on a finished run whose files were damaged in
// place (same size) redoes exactly what is damaged, says so, and ends with
// the bytes of the undamaged run.
func TestResumeRedoesDamagedFiles(t *testing.T) {
	ref, m := solvedRun(t, "connect4", "width=4,height=3")
	dir := solved(t, "run", "connect4", "width=4,height=3")
	level, db := m.Tiers[5], m.Tiers[8]
	flipByte(t, filepath.Join(dir, level.Level.Path))
	flipByte(t, filepath.Join(dir, db.DB.Path))
	code, _, stderr, log := tierdLogged(t, "solve", "--game", "connect4", "--option", "width=4,height=3", "--out", dir)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"tier " + level.Name + ": level file missing or damaged; rebuilding it from its parents",
		"tier " + db.Name + ": value database missing or damaged; solving the tier again",
		"SHA-256",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	sameResults(t, ref, dir)
	if code, _, stderr := tierd(t, "verify", "--db", dir); code != 0 {
		t.Fatalf("verify after the repair: %s", stderr)
	}
}
