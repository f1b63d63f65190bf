package cluster

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRooms: the compiler keeps the coordinator's state inside it
// (internal/); this keeps the rest of the layout: the worker imports
// neither the coordinator nor raft, and the protocol holds no raft
// state (nor anything of the coordinator or the worker).
func TestRooms(t *testing.T) {
	const mod = "github.com/tiersolve/tiersolve/"
	for _, tc := range []struct {
		pkg       string
		forbidden []string // import path prefixes
	}{
		{"cluster/worker", []string{mod + "cluster/coordinator", "github.com/hashicorp/raft"}},
		{"cluster/api", []string{mod + "cluster/coordinator", mod + "cluster/worker", "github.com/hashicorp/raft"}},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", tc.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range tc.forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s imports %s", tc.pkg, dep)
				}
			}
		}
	}
}
