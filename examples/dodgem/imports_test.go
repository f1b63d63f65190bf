package dodgem_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExportedAPIOnly: the example is written as an author outside this
// repository would write it, so it imports none of tiersolve's internal
// packages (which such an author could not import) nor the bundled
// games' packages.
func TestExportedAPIOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("cmd/*/*.go")
	for _, f := range append(files, more...) {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rest, ours := strings.CutPrefix(path, "github.com/tiersolve/tiersolve/")
			if ours && (strings.Contains("/"+rest+"/", "/internal/") || strings.HasPrefix(rest, "games/")) {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}
