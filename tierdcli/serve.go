package tierdcli

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/serve"
)

func (p *Program) runServe(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "serve")
	dbs := fs.String("db", "", "solved run folders, comma-separated")
	addr := fs.String("http-addr", "localhost:8080", "address to listen on, HOST:PORT (port 0: any free port)")
	cache := fs.String("cache", "256MiB", "memory for the databases' blocks and the tiers' sets, shared by all runs")
	scratch := fs.String("scratch", "", "folder for the unnamed scratch files: each database unpacked once, each tier's set in chunks (default: the system's temporary folder)")
	drain := fs.Duration("drain-delay", 2*time.Second, "after SIGTERM, how long /readyz answers 503 while requests are still taken, before the requests in flight finish and it exits")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (go tool pprof) to this file when the server stops")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *dbs == "" || fs.NArg() > 0 {
		return cli.UsageError("need --db DIR[,DIR...]")
	}
	size, err := parseBytes(*cache)
	if err != nil || size == 0 {
		return cli.UsageError("--cache %q: want a size such as 256MiB", *cache)
	}
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	ctx, stop := signalContext()
	defer stop()
	// The cache is most of the memory: the garbage collector keeps the
	// heap within it and a margin (unless GOMEMLIMIT says otherwise).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(min(size, 1<<60)) + memMargin)
	}
	var dirs []string
	for _, d := range strings.Split(*dbs, ",") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	err = p.serve(ctx, e, serve.Config{DBs: dirs, Games: p.games, Cache: size, Log: e.Log, DrainDelay: *drain, Warm: true, Scratch: *scratch}, *addr)
	if err == nil && context.Cause(ctx) != nil {
		fmt.Fprintf(e.Stdout, "drained and stopped (%v)\n", context.Cause(ctx))
	}
	return err
}

// memMargin is the Go memory tierd serve allows beyond its cache: the
// requests in flight, the connections' buffers, the runtime.
const memMargin = 32 << 20

// serve serves cfg on addr until ctx is done, then drains.
func (p *Program) serve(ctx context.Context, e *cli.Env, cfg serve.Config, addr string) error {
	s, err := serve.New(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http-addr %s: %w", addr, err)
	}
	go func() {
		if err := s.Warm(ctx); err != nil && ctx.Err() == nil {
			e.Log.Error("warming the runs", "err", err)
		}
	}()
	url := "http://" + l.Addr().String() + "/"
	fmt.Fprintf(e.Stdout, "serving %d run(s) at %s (the API at %sapi/v1/runs)\n", len(s.Runs()), url, url)
	e.Log.Info("listening", "url", url)
	return s.Serve(ctx, l)
}
