package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tiersolve/tiersolve/internal/memsize"
)

// childFlag is the hidden first argument that makes the harness's
// executable run one job and print its Sample as JSON.
const childFlag = "-child"

// childSpec is what the parent passes to a child.
type childSpec struct {
	Suite     string          `json:"suite"`
	Kind      string          `json:"kind"`
	Args      json.RawMessage `json:"args"`
	Dir       string          `json:"dir"`
	Shared    string          `json:"shared"`
	MinSample float64         `json:"min_sample_s"`
	Config    Config          `json:"config"`
}

// childResult is what a child prints: its job's sample and its own peak
// resident set, VmHWM (0 where the system does not say). The parent
// prefers it to the rusage of the finished child, whose Maxrss Linux
// fills with the parent's resident set at the fork: the child shares
// the parent's address space (vfork) until it runs exec.
type childResult struct {
	Sample
	PeakRSS uint64 `json:"vm_hwm_bytes,omitempty"`
}

// IsChild reports whether args ask for the child mode.
func IsChild(args []string) bool { return len(args) == 2 && args[0] == childFlag }

// ChildMain runs the job described by args (as IsChild accepts them) and
// prints its Sample as JSON on stdout; it returns the exit code.
func ChildMain(args []string, suites []Suite, stdout, stderr io.Writer) int {
	var spec childSpec
	if err := json.Unmarshal([]byte(args[1]), &spec); err != nil {
		fmt.Fprintf(stderr, "bench child: bad job %q: %v\n", args[1], err)
		return 2
	}
	var run JobFunc
	for _, s := range suites {
		if s.Name == spec.Suite {
			run = s.Jobs[spec.Kind]
		}
	}
	if run == nil {
		fmt.Fprintf(stderr, "bench child: suite %q has no job kind %q\n", spec.Suite, spec.Kind)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := JobEnv{Dir: spec.Dir, Shared: spec.Shared, Config: spec.Config,
		MinSample: time.Duration(spec.MinSample * float64(time.Second))}
	sample, err := run(ctx, env, spec.Args)
	if err != nil {
		fmt.Fprintf(stderr, "bench child: %s: %v\n", spec.Kind, err)
		return 1
	}
	res := childResult{Sample: sample, PeakRSS: memsize.ReadResident().Peak}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		fmt.Fprintf(stderr, "bench child: %v\n", err)
		return 1
	}
	return 0
}
