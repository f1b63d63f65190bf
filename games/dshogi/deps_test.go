package dshogi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOutsideAuthor checks the claim of the package documentation: the
// game is built on the exported API only. Its dependencies include no
// internal package of this module (which another module could not
// import), and its tests import only exported packages.
func TestOutsideAuthor(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Module}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	module := ""
	ours := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, mod, _ := strings.Cut(line, " ")
		if strings.HasSuffix(path, "/games/dshogi") {
			module = strings.TrimSuffix(path, "/games/dshogi")
		}
		if mod == "" || mod == "<nil>" {
			continue // the standard library
		}
		ours++
		if strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") {
			t.Errorf("the package depends on %s, an internal package", path)
		}
	}
	if module == "" || ours == 0 {
		t.Fatalf("go list -deps did not list the package:\n%s", out)
	}
	out, err = exec.Command("go", "list", "-f", "{{join .TestImports \"\\n\"}}\n{{join .XTestImports \"\\n\"}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, path := range strings.Fields(string(out)) {
		if strings.HasPrefix(path, module+"/") && strings.Contains(path+"/", "/internal/") {
			t.Errorf("the tests import %s, an internal package", path)
		}
	}
}
