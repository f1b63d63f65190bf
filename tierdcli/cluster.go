package tierdcli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/cluster/coordinator"
	"github.com/tiersolve/tiersolve/cluster/worker"
	"github.com/tiersolve/tiersolve/internal/cli"
	"github.com/tiersolve/tiersolve/solver/plan"
)

// clusterFlags are the flags every cluster client command has.
type clusterFlags struct {
	coordinators, tokenFile, tlsCA *string
	timeout                        *time.Duration
}

func newClusterFlags(fs *flag.FlagSet, prog string) *clusterFlags {
	return &clusterFlags{
		coordinators: fs.String("coordinators", "", "comma-separated coordinator URLs, e.g. http://10.0.0.1:7070,http://10.0.0.2:7070"),
		tokenFile:    fs.String("token-file", "", "file holding a token of the cluster: the admin token, or the worker token ("+prog+" worker) or the read token ("+prog+" status, "+prog+" fetch)"),
		tlsCA:        fs.String("tls-ca", "", "PEM file of the CA that signed the coordinators' certificates (for https URLs)"),
		timeout:      fs.Duration("timeout", 30*time.Second, "how long to keep trying while no coordinator or leader answers"),
	}
}

// client builds the cluster client from the flags.
func (cf *clusterFlags) client() (*api.Client, error) {
	if *cf.coordinators == "" || *cf.tokenFile == "" {
		return nil, cli.UsageError("--coordinators and --token-file are required")
	}
	tok, err := readToken(*cf.tokenFile)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := clientTLS(*cf.tlsCA)
	if err != nil {
		return nil, err
	}
	c, err := api.NewClient(strings.Split(*cf.coordinators, ","), tok, tlsCfg)
	if err != nil {
		return nil, cli.UsageError("%v", err)
	}
	c.Patience = *cf.timeout
	return c, nil
}

// readToken reads the token of --token-file.
func readToken(path string) (string, error) { return readTokenFlag("--token-file", path) }

// readTokenFlag reads a token from the file of a flag.
func readTokenFlag(flag, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 16 {
		return "", fmt.Errorf("%s %s: the token must be at least 16 characters (e.g. openssl rand -hex 32 > %s)", flag, path, path)
	}
	return tok, nil
}

// clientTLS is the TLS configuration trusting the CA in caFile, or nil.
func clientTLS(caFile string) (*tls.Config, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", caFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// logFlags choose the log level and format of the long-running commands.
func logFlags(fs *flag.FlagSet) (level, format *string) {
	return fs.String("log-level", "info", "log level: debug, info, warn or error"), fs.String("log-format", "text", "log format: text or json")
}

func newLogger(e *cli.Env, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, cli.UsageError("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(e.Stderr, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(e.Stderr, o)), nil
	}
	return nil, cli.UsageError("--log-format %q: want text or json", format)
}

// parseBootstrap parses ID=RAFTADDR=HTTPADDR,...
func parseBootstrap(s string) ([]api.Member, error) {
	if s == "" {
		return nil, nil
	}
	var out []api.Member
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(part, "=")
		if len(f) != 3 || f[0] == "" || f[1] == "" || f[2] == "" {
			return nil, cli.UsageError("--bootstrap %q: want ID=RAFTADDR=HTTPADDR for each coordinator", part)
		}
		if seen[f[0]] {
			return nil, cli.UsageError("--bootstrap: %s listed twice", f[0])
		}
		seen[f[0]] = true
		out = append(out, api.Member{ID: f[0], RaftAddr: f[1], HTTPAddr: f[2]})
	}
	return out, nil
}

func (p *Program) runCoordinator(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "coordinator")
	id := fs.String("node-id", "", "this coordinator's name in the cluster")
	raftAddr := fs.String("raft-addr", "", "HOST:PORT of the raft transport (a private network: raft traffic is not authenticated)")
	httpAddr := fs.String("http-addr", "", "HOST:PORT of the HTTP API (workers, clients, other coordinators)")
	raftAdvertise := fs.String("raft-advertise", "", "HOST:PORT the other coordinators dial for raft, if not --raft-addr (a proxy, NAT or service in front of it)")
	httpAdvertise := fs.String("http-advertise", "", "URL (or HOST:PORT) the others reach the HTTP API at, if not --http-addr; clients are sent to the leader's")
	data := fs.String("data", "", "data folder: raft log, snapshots, artifact store")
	tokenFile := fs.String("token-file", "", "file holding the admin token (everything; the coordinators use it between themselves)")
	workerTokenFile := fs.String("worker-token-file", "", "file holding the worker token: lease, heartbeat, complete, release, blob upload and download")
	readTokenFile := fs.String("read-token-file", "", "file holding the read token: status page, /v1/status, runs, /metrics, blob download ("+p.Name()+" status, "+p.Name()+" fetch)")
	bootstrap := fs.String("bootstrap", "", "first start of a new cluster only: every coordinator as ID=RAFTADDR=HTTPADDR,... (the addresses the others dial: advertised)")
	lease := fs.Duration("lease", api.DefaultLeaseTTL, "lease time to live without a worker heartbeat")
	maxBlob := fs.String("max-artifact", "64GiB", "largest artifact accepted")
	grace := fs.Duration("artifact-grace", coordinator.DefaultBlobGrace, "how long an artifact no run needs is kept before deletion")
	repairDelay := fs.Duration("repair-delay", coordinator.DefaultRepairDelay, "how long an artifact the state names may be missing here before it is fetched from a peer (each is on a majority already)")
	workers := fs.Int("workers", 0, "goroutines of a merge (default: all cores but one, kept for raft and the API)")
	store := fs.String("store", "", "keep the artifacts in an S3-compatible bucket, s3://BUCKET/PREFIX?endpoint=http://HOST:PORT&region=REGION, with the credentials of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or ~/.aws/credentials (default: on the coordinators' disks, each on a majority)")
	tlsCert := fs.String("tls-cert", "", "PEM certificate: serve the HTTP API over TLS, and raft over mutual TLS (needs --tls-ca; the certificate is shown to the peers both ways)")
	tlsKey := fs.String("tls-key", "", "PEM key of --tls-cert")
	tlsCA := fs.String("tls-ca", "", "PEM CA that signed every coordinator's certificate (required with --tls-cert)")
	level, format := logFlags(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (go tool pprof) to this file when the coordinator stops")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected argument %q", fs.Arg(0))
	}
	if *id == "" || *raftAddr == "" || *httpAddr == "" || *data == "" || *tokenFile == "" {
		return cli.UsageError("--node-id, --raft-addr, --http-addr, --data and --token-file are required")
	}
	members, err := parseBootstrap(*bootstrap)
	if err != nil {
		return err
	}
	blobLimit, err := parseBytes(*maxBlob)
	if err != nil {
		return cli.UsageError("--max-artifact %q: %v", *maxBlob, err)
	}
	tok, err := readToken(*tokenFile)
	if err != nil {
		return err
	}
	var workerTok, readTok string
	if *workerTokenFile != "" {
		if workerTok, err = readTokenFlag("--worker-token-file", *workerTokenFile); err != nil {
			return err
		}
	}
	if *readTokenFile != "" {
		if readTok, err = readTokenFlag("--read-token-file", *readTokenFile); err != nil {
			return err
		}
	}
	if workerTok != "" && (workerTok == tok || workerTok == readTok) || readTok != "" && readTok == tok {
		return cli.UsageError("--token-file, --worker-token-file and --read-token-file must hold different tokens")
	}
	log, err := newLogger(e, *level, *format)
	if err != nil {
		return err
	}
	cfg := coordinator.NodeConfig{ID: *id, RaftAddr: *raftAddr, HTTPAddr: *httpAddr, RaftAdvertise: *raftAdvertise, HTTPAdvertise: *httpAdvertise, DataDir: *data,
		Token: tok, WorkerToken: workerTok, ReadToken: readTok,
		Bootstrap: members, NewGame: p.games.New, LeaseTTL: *lease, MaxBlob: int64(blobLimit), BlobGrace: *grace, RepairDelay: *repairDelay,
		Workers: *workers, Log: log}
	if (*tlsCert == "") != (*tlsKey == "") {
		return cli.UsageError("--tls-cert and --tls-key go together")
	}
	if *tlsCert != "" && *tlsCA == "" {
		return cli.UsageError("--tls-cert needs --tls-ca: raft runs over mutual TLS and accepts only the peers whose certificates that CA signed")
	}
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert: %w", err)
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if cfg.PeerTLS, err = clientTLS(*tlsCA); err != nil {
		return err
	}
	if *store != "" {
		sc, err := blobstore.ParseS3URL(*store)
		if err != nil {
			return cli.UsageError("--store: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cfg.Store, err = blobstore.OpenS3(ctx, sc)
		cancel()
		if err != nil {
			return fmt.Errorf("--store: %w", err)
		}
	}
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	n, err := coordinator.StartNode(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	<-ctx.Done()
	log.Info("stopping")
	return n.Close()
}

func (p *Program) runWorker(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "worker")
	cf := newClusterFlags(fs, p.Name())
	data := fs.String("data", "", "cache folder (inputs by SHA-256, outputs until accepted); nothing in it matters")
	threads := fs.Int("threads", 0, "units run at once (default: all cores)")
	id := fs.String("id", "", "this worker's name (default: HOST-PID)")
	cache := fs.String("cache", "8GiB", "disk space for cached inputs")
	memory := fs.String("memory", "", "memory budget of the whole process: the worker is leased no unit the leader estimates larger (a loopy tier's closing, the tier whole or a part of it), and holds its heap, cells and loaded inputs within it (default: none; loaded inputs within half the machine)")
	compress := fs.Bool("compress-partials", false, "gzip the partial level files (default: stored, 2-3 times larger, no CPU to write or read): for slow links or a metered object store")
	level, format := logFlags(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (go tool pprof) to this file when the worker stops")
	pprofAddr := fs.String("pprof-addr", "", "serve Go's profiles (heap, CPU; net/http/pprof, no token) on this address, e.g. 127.0.0.1:6060 (default: off)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected argument %q", fs.Arg(0))
	}
	if *data == "" {
		return cli.UsageError("--data is required")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	c.Patience = max(c.Patience, time.Minute)
	cacheBytes, err := parseBytes(*cache)
	if err != nil {
		return cli.UsageError("--cache %q: %v", *cache, err)
	}
	memBytes, err := parseBytes(*memory)
	if err != nil {
		return cli.UsageError("--memory %q: %v", *memory, err)
	}
	log, err := newLogger(e, *level, *format)
	if err != nil {
		return err
	}
	// The budget the leader leases by holds the process: the collector
	// works harder near it rather than let the heap double beside the
	// cells.
	w, err := worker.New(worker.Config{Client: c, ID: *id, Threads: *threads, Dir: *data,
		CacheBytes: int64(cacheBytes), Budget: int64(memBytes), LimitProcess: true, NewGame: p.games.New, Games: p.games.Names(), CompressPartials: *compress, Log: log})
	if err != nil {
		return err
	}
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if err := servePprof(*pprofAddr, log); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	err = w.Run(ctx)
	log.Info("worker stopped", "units", w.Units.Load(), "positions", w.Positions.Load())
	return err
}

func (p *Program) runSubmit(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "submit")
	cf := newClusterFlags(fs, p.Name())
	game := fs.String("game", "", "game to solve (see "+p.Name()+" games)")
	option := fs.String("option", "", "game options, K=V,...")
	perThread := fs.Int("ranges-per-thread", api.DefaultSettings.RangesPerThread, "units a tier is cut into per worker thread")
	expandPerThread := fs.Int("expand-ranges-per-thread", api.DefaultSettings.ExpandRangesPerThread, "units a tier's expansion is cut into per worker thread (0: as --ranges-per-thread)")
	maxRanges := fs.Int("max-ranges", api.DefaultSettings.MaxRanges, "most units a tier is cut into")
	minRange := fs.Uint64("min-range", api.DefaultSettings.MinRange, "fewest positions worth a unit of their own")
	level := fs.Int("level", api.DefaultSettings.Level, "gzip level of bitmaps (type 3) in full level files, 1 to 9")
	symmetry := fs.Bool("symmetry", false, "keep one canonical position per symmetry class of the game, as "+p.Name()+" solve --symmetry")
	loopyRanges := fs.Int("loopy-ranges", 0, "solve each loopy tier in this many parts (ranges of its hashes) on different workers, in lockstep by levels (0 or 1: a loopy tier is one unit)")
	closeRanges := fs.Int("close-ranges", 0, "close each loopy tier in this many ranges of its hashes on different workers, in rounds (1: one unit; 0: one range per 2^24 hashes, one unit below two)")
	wait := fs.Bool("wait", false, "wait for the run to finish (exit 1 if it fails)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected argument %q", fs.Arg(0))
	}
	if *loopyRanges < 0 || *loopyRanges > api.MaxLoopyRanges {
		return cli.UsageError("--loopy-ranges %d: want 0 to %d", *loopyRanges, api.MaxLoopyRanges)
	}
	if *closeRanges < 0 || *closeRanges > plan.MaxCloseRanges {
		return cli.UsageError("--close-ranges %d: want 0 to %d", *closeRanges, plan.MaxCloseRanges)
	}
	if *game == "" {
		return cli.UsageError("--game is required (see %s games)", p.Name())
	}
	// A game this program knows is checked here (a bad option is a wrong
	// command line); one it does not know goes to the coordinators, whose
	// binary may know it, and which refuse a game they do not know.
	name, opt := *game, *option
	if _, known := p.games.Lookup(name); known {
		g, err := p.games.New(name, opt)
		if err != nil {
			return cli.UsageError("%v", err)
		}
		name, opt = g.Name(), g.Option()
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	id, err := c.Submit(context.Background(), api.SubmitRequest{Game: name, Option: opt,
		Settings: &api.Settings{RangesPerThread: *perThread, ExpandRangesPerThread: *expandPerThread, MaxRanges: *maxRanges, MinRange: *minRange, Level: *level, Symmetry: *symmetry,
			LoopyRanges: *loopyRanges, CloseRanges: *closeRanges}})
	if err != nil {
		return err
	}
	if opt == "" {
		opt = "default"
	}
	fmt.Fprintf(e.Stdout, "submitted %s (%s): run %s\n", name, opt, id)
	if !*wait {
		return nil
	}
	ctx, stop := signalContext()
	defer stop()
	c.Waiting = sayBlocked(e.Stderr)
	sum, err := c.WaitRun(ctx, id, time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "run %s done in %.1f s: %d positions, %d units\n", id, sum.Seconds, sum.Positions, sum.UnitsTotal)
	return nil
}

// sayBlocked is an api.Client's Waiting for the commands that wait for
// a run: it writes to w why the run waits (RunSummary.Blocked) each time
// the reason changes, so a run no worker can take does not wait in
// silence.
func sayBlocked(w io.Writer) func(*api.RunSummary) {
	last := ""
	return func(r *api.RunSummary) {
		if r.Blocked != last && r.Blocked != "" {
			fmt.Fprintf(w, "run %s waits: %s\n", r.ID, r.Blocked)
		}
		last = r.Blocked
	}
}

func (p *Program) runStatus(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "status")
	cf := newClusterFlags(fs, p.Name())
	asJSON := fs.Bool("json", false, "print JSON")
	wait := fs.Bool("wait", false, "wait for RUN to finish, then print its status (exit 1 if it failed)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return cli.UsageError("at most one RUN")
	}
	id := fs.Arg(0)
	if *wait && id == "" {
		return cli.UsageError("--wait needs a RUN")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	var failed error // the run's, printed after its status
	if id != "" {
		if st.Run(id) == nil {
			return fmt.Errorf("no run %s", id)
		}
		if *wait {
			c.Waiting = sayBlocked(e.Stderr)
			if st, err = c.WaitStatus(ctx, id, time.Second); err != nil {
				return err
			}
			if r := st.Run(id); r.State == api.Failed {
				failed = fmt.Errorf("run %s failed: %s", id, r.Error)
			}
		}
		st.Runs = []api.RunSummary{*st.Run(id)}
	}
	if *asJSON {
		if err := json.NewEncoder(e.Stdout).Encode(st); err != nil {
			return err
		}
		return failed
	}
	var run *api.Run
	if id != "" {
		if run, err = c.Run(ctx, id); err != nil {
			return err
		}
	}
	printStatus(e, p.Name(), st, run)
	return failed
}

// printStatus prints the cluster's status, and a run's tiers if given.
func printStatus(e *cli.Env, prog string, st *api.StatusResponse, run *api.Run) {
	w := e.Stdout
	var ms []string
	for _, m := range st.Members {
		ms = append(ms, m.ID)
	}
	fmt.Fprintf(w, "leader %s of %s\n\n", orNone(st.Leader), strings.Join(ms, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tGAME\tSTATE\tTIERS\tUNITS\tPOSITIONS\tTIME\tSTART")
	for _, r := range st.Runs {
		start := ""
		if r.Start != nil {
			start = r.Start.String()
		}
		if r.Error != "" {
			start = r.Error
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%d/%d\t%d/%d (%d leased)\t%d\t%.1fs\t%s\n", r.ID, r.Game, r.Option, r.State,
			r.TiersDone, r.TiersTotal, r.UnitsDone, r.UnitsTotal, r.Leased, r.Positions, r.Seconds, start)
	}
	tw.Flush()
	for _, r := range st.Runs {
		if r.Blocked != "" {
			fmt.Fprintf(w, "run %s waits: %s\n", r.ID, r.Blocked)
		}
	}
	if run != nil {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TIER\tNAME\tPHASE\tREACH UNITS\tSOLVE UNITS\tREACHABLE")
		for _, t := range run.Tiers {
			reachable := "-"
			if t.Level != nil {
				reachable = fmt.Sprint(t.Level.Reachable)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", t.Tier, t.Name, t.Phase(), unitCount(t.Reach), unitCount(t.Solve), reachable)
		}
		tw.Flush()
		for _, t := range run.Tiers {
			if p := t.Parts; p != nil {
				fmt.Fprintf(w, "tier %s in %d parts: %s\n", t.Name, len(p.Parts), partsString(p))
			}
		}
	}
	if len(st.Workers) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "WORKER\tADDR\tTHREADS\tLEASES\tUNITS\tPOSITIONS/S\tLAST SEEN")
		for _, wk := range st.Workers {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.0f\t%s ago\n", wk.ID, wk.Addr, wk.Threads, wk.Leases, wk.Units, wk.Rate,
				time.Since(wk.LastSeen).Round(time.Second))
		}
		tw.Flush()
		for _, wk := range st.Workers {
			if len(wk.MissingGames) > 0 {
				fmt.Fprintf(w, "worker %s does not have %s: their runs wait for a worker that runs a %s with them (it has %s)\n",
					wk.ID, strings.Join(wk.MissingGames, ", "), prog, strings.Join(wk.Games, ", "))
			}
		}
	}
}

// partsString says how far a tier solved in parts has come: its phase,
// level and round, the units done with the phase or round, and the notes
// the child tiers gave the parts and those the parts exchanged.
func partsString(p *api.Parts) string {
	s := p.Phase
	if p.Level >= 0 {
		s += fmt.Sprintf(" level %d", p.Level)
	}
	switch p.Phase {
	case api.PartsDone:
	case api.PartsKids:
		s += fmt.Sprintf(": %s ranges of the child tiers done", unitCount(p.Units))
	case api.PartsSubs:
		s += fmt.Sprintf(": %s sub-parts' first passes done", unitCount(p.Units))
	default:
		s += fmt.Sprintf(", round %d: %s parts done", p.Round, unitCount(p.Units))
	}
	s += fmt.Sprintf("; %d notes of the child tiers (%s), %d notes exchanged (%s), checkpoints %s", p.KidNotes, plan.BytesString(p.KidNotesBytes),
		p.Notes, plan.BytesString(p.NotesBytes), plan.BytesString(p.Checkpoints))
	if p.Bytes > 0 {
		s += fmt.Sprintf(", largest part %s", plan.BytesString(p.Bytes))
	}
	if p.Moves > 0 {
		s += fmt.Sprintf(", %d rounds moved to another worker", p.Moves)
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// unitCount is "done/total" of a tier's units, or "-" before they exist.
func unitCount(us []*api.Unit) string {
	if us == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", api.CountDone(us), len(us))
}

func (p *Program) runFetch(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "fetch")
	cf := newClusterFlags(fs, p.Name())
	out := fs.String("out", "", "folder to write the run into (the layout of "+p.Name()+" solve)")
	asJSON := fs.Bool("json", false, "print the summary as JSON, as "+p.Name()+" solve --json")
	through := fs.Bool("through-coordinators", false, "with an object store (--store), read the files through the coordinators rather than from the store (for a machine that cannot reach the store)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return cli.UsageError("need --out DIR and one RUN")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	c.ThroughCoordinators = *through
	ctx, stop := signalContext()
	defer stop()
	m, err := c.Fetch(ctx, fs.Arg(0), *out, p.games.New)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: run the same command again to finish (files already fetched are kept)")
	}
	if err != nil {
		return err
	}
	run, err := c.Run(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	sum := solveSummaryOf(m, *out, run.Finished.Sub(run.Created).Seconds())
	if *asJSON {
		return json.NewEncoder(e.Stdout).Encode(sum)
	}
	printSolve(e.Stdout, p.Name(), sum)
	return nil
}

func (p *Program) runMembers(e *cli.Env, args []string) error {
	fs := p.flagSet(e, "members")
	cf := newClusterFlags(fs, p.Name())
	add := fs.String("add", "", "add a coordinator, started with an empty --data and no --bootstrap: ID=RAFTADDR=HTTPADDR")
	remove := fs.String("remove", "", "remove a coordinator (one that is lost, or about to be)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 || (*add != "" && *remove != "") {
		return cli.UsageError("at most one of --add and --remove, and no arguments")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	ctx := context.Background()
	var ms []api.Member
	switch {
	case *add != "":
		m, err := parseBootstrap(*add)
		if err != nil {
			return err
		}
		if len(m) != 1 {
			return cli.UsageError("--add takes one ID=RAFTADDR=HTTPADDR")
		}
		ms, err = c.ChangeMembers(ctx, api.MembersRequest{Add: &m[0]})
		if err != nil {
			return err
		}
	case *remove != "":
		if ms, err = c.ChangeMembers(ctx, api.MembersRequest{Remove: *remove}); err != nil {
			return err
		}
	default:
		st, err := c.Status(ctx)
		if err != nil {
			return err
		}
		ms = st.Members
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRAFT\tHTTP")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.ID, m.RaftAddr, m.HTTPAddr)
	}
	return tw.Flush()
}
