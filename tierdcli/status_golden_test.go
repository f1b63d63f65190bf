package tierdcli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/internal/cli"
)

// updateGolden has TestPrintStatusGolden write its golden file again.
var updateGolden = flag.Bool("update", false, "write testdata/status.golden again")

// TestPrintStatusGolden: tierd status prints the cluster's golden answers
// (../cluster/testdata/golden/api: the status, and the runs of each
// shape) as it did when they were written. Their normalized values are
// given back as fixed ones; a worker was last seen now.
func TestPrintStatusGolden(t *testing.T) {
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "cluster", "testdata", "golden", "api", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := bytes.Cut(b, []byte("\n"))
		body = bytes.ReplaceAll(body, []byte(`"<time>"`), []byte(`"2026-01-02T03:04:05Z"`))
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var st api.StatusResponse
	read("status", &st)
	for i := range st.Workers {
		st.Workers[i].LastSeen = time.Now()
	}
	var out strings.Builder
	for _, name := range []string{"run-done", "run-loopy", "run-chance", "run-leased"} {
		var run api.Run
		read(name, &run)
		var b bytes.Buffer
		printStatus(&cli.Env{Stdout: &b}, "tierd", &st, &run)
		out.WriteString("== " + name + "\n" + b.String())
	}
	want, err := os.ReadFile(filepath.Join("testdata", "status.golden"))
	if *updateGolden {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(filepath.Join("testdata", "status.golden"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("tierd status prints\n%s\nnot\n%s", out.String(), want)
	}
}
