package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "ids.txt")
	// Two bearoff positions (one twice, once with a match ID), the
	// backgammon start, and a bad ID.
	ids := "# positions\nAQAABAEAAAAAAA\nCAAABAAAAAAAAA:cAkpApAAcAAE\nAQAABAEAAAAAAA\n4HPwATDgc/ABMA\nnot-an-id\n"
	if err := os.WriteFile(list, []byte(ids), 0o644); err != nil {
		t.Fatal(err)
	}
	sources := []string{list}
	if match := filepath.Join(xgCorpus, "test.xg"); fileExistsTest(match) {
		sources = append(sources, match)
	}
	out := filepath.Join(dir, "seeds")
	code, stdout, stderr := levelctl(t, "", append([]string{"import", "--game", "bearoff", "--option", "checkers=4", "--out", out, "--json"}, sources...)...)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	var sum importSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Seen < 5 || sum.Kept < 2 || sum.Duplicates < 1 || sum.Skipped["not a bearoff position"] < 1 ||
		sum.Skipped["invalid position ID: wrong length"] != 1 || sum.Seen != sum.Kept+sum.Duplicates+total(sum.Skipped) {
		t.Fatalf("import summary %+v", sum)
	}
	var files uint64
	for _, f := range sum.Files {
		if _, err := os.Stat(f.Path); err != nil {
			t.Fatal(err)
		}
		files += f.Positions
	}
	if files != uint64(sum.Kept) {
		t.Fatalf("%d positions in the files, %d kept", files, sum.Kept)
	}
	if code, _, stderr := levelctl(t, "", "import", "--game", "bearoff", "--option", "checkers=4", "--out", out, list); code != 1 || !strings.Contains(stderr, "already holds") {
		t.Fatalf("import into a folder with level files: exit %d %s", code, stderr)
	}
	if code, _, _ := levelctl(t, "", "import", "--game", "bearoff", "--out", out); code != 2 {
		t.Fatalf("import without sources: exit %d", code)
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func fileExistsTest(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestImportEGF imports a xiangqi game of our own (testdata/egf): its 11
// positions, of which the first three have more pieces than maxpieces=3.
func TestImportEGF(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seeds")
	code, stdout, stderr := levelctl(t, "", "import", "--game", "xiangqi", "--option", "maxpieces=3", "--out", out, "--json", "../../testdata/egf/endgame.egf")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	var sum importSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Seen != 11 || sum.Kept != 8 || sum.Skipped["more than 3 pieces (option maxpieces)"] != 3 || len(sum.Files) != 2 {
		t.Fatalf("import summary %+v", sum)
	}
	names := []string{sum.Files[0].Name, sum.Files[1].Name}
	if names[0] != "KvK" || names[1] != "KRvK" || sum.Files[1].Positions != 5 || sum.Files[0].Positions != 3 {
		t.Fatalf("files %+v", sum.Files)
	}
}
