package teeko_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOutsideAuthor checks that the package is built as a game author
// outside this module would build it: none of its dependencies is an
// internal package of the module (games/internal, internal/...), which
// Go would not let another module import.
func TestOutsideAuthor(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/tiersolve/tiersolve"
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		if p != module && !strings.HasPrefix(p, module+"/") {
			t.Errorf("depends on %s, outside the module and the standard library", p)
			continue
		}
		ours = append(ours, p)
		if p == module+"/internal" || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
			t.Errorf("depends on %s, an internal package", p)
		}
	}
	if want := []string{module + "/tiergame", module + "/games/teeko"}; strings.Join(ours, " ") != strings.Join(want, " ") {
		t.Errorf("the module's packages it builds from: %q, want %q", ours, want)
	}
}
