package suites

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/solver/runfolder"
	"github.com/tiersolve/tiersolve/tierdcli"
)

// partsFamily is a game variant whose loopy tiers the cluster suite
// solves in parts (tierd submit --loopy-ranges) on worker processes with
// a --memory budget.
type partsFamily struct {
	game, option string
	name         string // in the group ID: "xiangqi-KRvKA"
	workers      int    // worker processes, one thread each
	ranges       int    // --loopy-ranges; 0: the leader chooses
	// memory is each worker's --memory in bytes; 0: a share of the peak
	// resident set of tierd solve of the family, as the group's setup
	// measures it: 1/share of it (share 0: a third, what issue 36 asks
	// for; 4: a quarter, issue 45).
	memory uint64
	share  uint64
	level  harness.Level
	// solve and parts estimate tierd solve with all cores and the run in
	// parts on the reference machine (2 cores).
	solve, parts time.Duration
}

var partsFamilies = []partsFamily{
	{game: "xiangqi", option: "material=KRvKA", name: "xiangqi-KRvKA", workers: 3, ranges: 3, memory: 48 << 20,
		level: harness.Quick, solve: 300 * time.Millisecond, parts: 1500 * time.Millisecond},
	{game: "xiangqi", option: "material=KRNvKA", name: "xiangqi-KRNvKA", workers: 3, ranges: 3, memory: 56 << 20,
		level: harness.Full, solve: 6 * time.Second, parts: 40 * time.Second},
	// Issue 36's measure: 4 workers, each at a third of tierd solve's
	// peak (574 MiB as the bench binary in November 2026; 38 min in all on
	// 2 cores), and at 139 MiB, tighter.
	{game: "xiangqi", option: "material=KRNvKAABB", name: "xiangqi-KRNvKAABB", workers: 4, ranges: 4,
		level: harness.Explicit, solve: 570 * time.Second, parts: 20 * time.Minute},
	{game: "xiangqi", option: "material=KRNvKAABB", name: "xiangqi-KRNvKAABB", workers: 4, ranges: 4, memory: 139 << 20,
		level: harness.Explicit, solve: 570 * time.Second, parts: 20 * time.Minute},
	// The leader choosing the parts (no --loopy-ranges) at a third: the
	// run that waited for ever when the whole-tier unit of the top tier
	// outgrew the budget once its children counted (issue 45).
	{game: "xiangqi", option: "material=KRNvKAABB", name: "xiangqi-KRNvKAABB", workers: 4,
		level: harness.Explicit, solve: 570 * time.Second, parts: 20 * time.Minute},
	// The same at a quarter (issue 45).
	{game: "xiangqi", option: "material=KRNvKAABB", name: "xiangqi-KRNvKAABB", workers: 4, share: 4,
		level: harness.Explicit, solve: 570 * time.Second, parts: 20 * time.Minute},
	// A larger family at a third: 585 million hashes against 437, and
	// tierd plan's 945 MiB against 531 (its top tier is 458 million
	// hashes of the 585).
	{game: "xiangqi", option: "material=KRNvKRA", name: "xiangqi-KRNvKRA", workers: 4, ranges: 4,
		level: harness.Explicit, solve: 9 * time.Minute, parts: 26 * time.Minute},
	// The same with the parts the leader chooses, at a third and a
	// quarter (issue 45).
	{game: "xiangqi", option: "material=KRNvKRA", name: "xiangqi-KRNvKRA", workers: 4,
		level: harness.Explicit, solve: 9 * time.Minute, parts: 20 * time.Minute},
	{game: "xiangqi", option: "material=KRNvKRA", name: "xiangqi-KRNvKRA", workers: 4, share: 4,
		level: harness.Explicit, solve: 9 * time.Minute, parts: 20 * time.Minute},
	// Issue 45's largest family, at a third: 2.34 billion hashes (its
	// top tier 768 million), tierd plan's 2.4 GiB.
	{game: "xiangqi", option: "material=KRNAvKAABB", name: "xiangqi-KRNAvKAABB", workers: 4,
		level: harness.Explicit, solve: 20 * time.Minute, parts: 35 * time.Minute},
}

// partsStartStop estimates starting the processes, waiting for the
// coordinators to be ready, the fetch and the comparison of a small run,
// and stopping them.
const partsStartStop = 2 * time.Second

// memoryLabel is the budget as the group ID says it.
func (f partsFamily) memoryLabel() string {
	switch {
	case f.memory == 0 && f.share == 4:
		return "quarter"
	case f.memory == 0:
		return "third"
	case f.memory%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", f.memory>>20)
	}
	return strconv.FormatUint(f.memory, 10)
}

// partsGroups are the cluster suite's groups of loopy tiers in parts:
// the setup solves the family with tierd solve (the reference bytes, and
// the peak a budget of "third" is taken from), then in each round
// embedded (tierd solve again, the reference of the ratios) and
// processes (3 tierd coordinator and the workers as processes, the
// loopy tiers in parts).
func partsGroups(cfg harness.Config) []harness.Group {
	var gs []harness.Group
	for _, f := range partsFamilies {
		solve := solveArgs{Game: f.game, Option: f.option, Workers: max(cfg.Cores, 1)}
		budget := "a third of tierd solve's peak"
		if f.share == 4 {
			budget = "a quarter of tierd solve's peak"
		}
		if f.memory > 0 {
			budget = memsize.Format(f.memory)
		}
		params := map[string]float64{"workers": float64(f.workers), "ranges": float64(f.ranges), "memory_bytes": float64(f.memory)}
		ranges, inParts := strconv.Itoa(f.ranges), fmt.Sprintf("in %d parts", f.ranges)
		if f.ranges == 0 {
			ranges, inParts = "auto", "in the parts the leader chooses"
		}
		g := harness.Group{ID: fmt.Sprintf("cluster/parts/%s/workers=%d/ranges=%s/memory=%s", f.name, f.workers, ranges, f.memoryLabel()),
			Table: "loopy tiers in parts",
			Title: fmt.Sprintf("%s %s, loopy tiers %s on %d workers at %s", f.game, f.option, inParts, f.workers, budget),
			Level: f.level, Params: params, Reference: "embedded", RatioMetrics: []string{"cpu_s"},
			Setup: harness.NewJob("tierd-solve", tierdSolveArgs{solveArgs: solve, Reference: true}),
			Variants: []harness.Variant{
				workersVariant("embedded", results.KindBaseline, solve.Workers, harness.NewJob("tierd-solve", tierdSolveArgs{solveArgs: solve})),
				{Name: "processes", Kind: results.KindSubject, Params: params,
					Job: harness.NewJob("parts", partsArgs{Game: f.game, Option: f.option, Workers: f.workers, Ranges: f.ranges, Memory: f.memory, Share: f.share})},
			},
			Estimate: 2*childStart + f.solve + f.parts + partsStartStop}
		if f.level == harness.Explicit {
			g.Once = true
			g.Estimate += f.solve // the setup's
		}
		gs = append(gs, g)
	}
	return gs
}

// tierdSolveArgs: tierd solve of a game, as users run it, in the job's
// process. With Reference, into the group's folder, where the processes
// variant finds the bytes to compare and the peak of its budget.
type tierdSolveArgs struct {
	solveArgs
	Reference bool `json:"reference,omitempty"`
}

// reference is what the setup's tierd solve measured (reference.json in
// the group's folder); its run folder is reference/ beside it.
type reference struct {
	Seconds float64 `json:"seconds"`
	CPU     float64 `json:"cpu_s"`
	PeakRSS uint64  `json:"peak_rss_bytes"` // VmHWM of the process that ran it
}

const referenceDir, referenceFile = "reference", "reference.json"

// runTierdSolve runs tierd solve in this process (a child of the harness
// of its own) and measures its time, CPU and peak resident set.
func runTierdSolve(_ context.Context, env harness.JobEnv, a tierdSolveArgs) (harness.Sample, error) {
	dir := filepath.Join(env.Dir, "run")
	if a.Reference {
		dir = filepath.Join(env.Shared, referenceDir)
	}
	var out bytes.Buffer
	e := &tierdcli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &out,
		Log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	args := []string{"solve", "--game", a.Game, "--option", a.Option, "--out", dir, "--workers", strconv.Itoa(a.Workers)}
	t0, cpu0 := time.Now(), harness.CPUSeconds()
	if code := tierdcli.New(games.Default()).Run(e, args); code != 0 {
		return harness.Sample{}, fmt.Errorf("tierd %s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out.String()))
	}
	secs, cpu := time.Since(t0).Seconds(), harness.CPUSeconds()-cpu0
	m, err := runfolder.LoadManifest(dir)
	if err != nil {
		return harness.Sample{}, err
	}
	if a.Reference {
		ref := reference{Seconds: secs, CPU: cpu, PeakRSS: memsize.ReadResident().Peak}
		b, err := json.Marshal(ref)
		if err != nil {
			return harness.Sample{}, err
		}
		if err := os.WriteFile(filepath.Join(env.Shared, referenceFile), b, 0o644); err != nil {
			return harness.Sample{}, err
		}
	}
	n := float64(m.Total)
	return harness.Sample{Seconds: secs, Metrics: map[string]float64{"positions": n, "positions_per_s": perSecond(n, secs), "cpu_s": cpu},
		Facts: map[string]string{"start": startString(m.Start)}}, nil
}

// startString says the start position's value as RunSummary.Start does.
func startString(s *runfolder.StartRecord) string {
	if s == nil {
		return ""
	}
	return s.String()
}

// partsArgs: a run on 3 coordinators and Workers one-thread workers, each
// a process with --memory Memory (0: a third of the reference's peak),
// its loopy tiers in Ranges parts.
type partsArgs struct {
	Game    string `json:"game"`
	Option  string `json:"option"`
	Workers int    `json:"workers"`
	Ranges  int    `json:"ranges"`
	Memory  uint64 `json:"memory,omitempty"`
	Share   uint64 `json:"share,omitempty"` // without Memory: 1/Share of tierd solve's peak (0: 3)
}

// runParts is issue 36's measure: the run from submit to done (the
// leader's time), the CPU of every process over it (/proc/PID/stat), each
// worker's peak resident set (VmHWM, read just before it is stopped)
// against its budget, the bytes the parts exchanged and the store holds,
// and the fetched run compared with tierd solve's byte for byte (a
// difference fails the job).
func runParts(ctx context.Context, env harness.JobEnv, a partsArgs) (harness.Sample, error) {
	ref, err := loadReference(env.Shared)
	if err != nil {
		return harness.Sample{}, err
	}
	budget := a.Memory
	if budget == 0 {
		budget = ref.PeakRSS / cmp.Or(a.Share, 3)
	}
	exe, err := os.Executable()
	if err != nil {
		return harness.Sample{}, err
	}
	pc := &procCluster{exe: exe, dir: env.Dir, workerArgs: []string{"--memory", strconv.FormatUint(budget, 10)}}
	defer pc.stop()
	settings := api.DefaultSettings
	settings.LoopyRanges = a.Ranges
	pr, err := pc.solve(ctx, a.Workers, api.SubmitRequest{Game: a.Game, Option: a.Option, Settings: &settings})
	if err != nil {
		return harness.Sample{}, err
	}
	cl, met := pr.client, pr.metrics
	met["budget_bytes"], met["reference_peak_rss_bytes"] = float64(budget), float64(ref.PeakRSS)
	run, err := cl.Run(ctx, pr.id)
	if err != nil {
		return harness.Sample{}, err
	}
	if err := addPartsFigures(met, run); err != nil {
		return harness.Sample{}, err
	}
	if err := addTransfers(ctx, met, pc); err != nil {
		return harness.Sample{}, err
	}
	fetched := filepath.Join(env.Dir, "fetched")
	t1 := time.Now()
	if _, err := cl.Fetch(ctx, pr.id, fetched, games.New); err != nil {
		return harness.Sample{}, err
	}
	met["fetch_s"] = time.Since(t1).Seconds()
	pc.stop()
	within := addPeaks(met, pc, budget)
	byRole, longest, peaks, err := addRoles(met, pc, pr.summary.Seconds)
	if err != nil {
		return harness.Sample{}, err
	}
	files, err := sameRun(filepath.Join(env.Shared, referenceDir), fetched)
	if err != nil {
		return harness.Sample{}, fmt.Errorf("the fetched run is not tierd solve's: %w", err)
	}
	facts := map[string]string{"start": startString(pr.summary.Start), "within_budget": within, "same_bytes": fmt.Sprintf("yes, %d files", files),
		"cpu_by_role": byRole, "longest_unit": longest, "peak_at": peaks}
	if within != "yes" {
		// The workers' unit logs say what each held (memory_mib) and
		// whether the collector's CPU limiter was on (gc).
		if keep, err := pc.keepLogs(); err == nil {
			facts["logs"] = keep
		}
	}
	return harness.Sample{Seconds: pr.summary.Seconds, Metrics: met, Facts: facts}, nil
}

// addTransfers adds what went through the coordinators, from their
// /metrics: the blobs the workers uploaded (notes, checkpoints, partial
// level files, records) and downloaded, before a fetch adds its own, and
// the coordinators' copies to each other; and what the largest of their
// blob stores holds.
func addTransfers(ctx context.Context, met map[string]float64, pc *procCluster) error {
	for i, u := range pc.urls[:coordinatorCount] {
		mf, err := scrape(ctx, u)
		if err != nil {
			return err
		}
		met["blob_bytes_up"] += mf["tierd_blob_bytes_received_total"]
		met["blob_bytes_down"] += mf["tierd_blob_bytes_sent_total"]
		met["blob_bytes_replicated"] += mf["tierd_blob_bytes_replicated_total"]
		size, err := dirSize(filepath.Join(pc.dir, pc.names[i], "blobs"))
		if err != nil {
			return err
		}
		met["store_bytes"] = max(met["store_bytes"], float64(size))
	}
	return nil
}

// addPeaks adds the peak resident set of every process of the stopped
// pc, the largest coordinator's and worker's, and the workers' against
// their budget; it returns "yes" when every worker stayed within it,
// else which did not.
func addPeaks(met map[string]float64, pc *procCluster, budget uint64) (within string) {
	var over []string
	for i, name := range pc.names {
		peak := float64(pc.peaks[i])
		met["peak_rss_bytes_"+name] = peak
		if i < coordinatorCount {
			met["coordinator_peak_rss_bytes"] = max(met["coordinator_peak_rss_bytes"], peak)
			continue
		}
		met["worker_peak_rss_bytes"] = max(met["worker_peak_rss_bytes"], peak)
		if pc.peaks[i] > budget {
			over = append(over, fmt.Sprintf("%s %s", name, memsize.Format(pc.peaks[i])))
		}
	}
	met["worker_peak_of_budget"] = met["worker_peak_rss_bytes"] / float64(budget)
	if len(over) > 0 {
		return "no: " + strings.Join(over, ", ")
	}
	return "yes"
}

// addRoles sums the workers' units by role from their "unit done"
// records (JSON logs): the CPU seconds of each role (cpu_s_role_ROLE,
// the process's CPU over each unit's computing: a one-thread worker runs
// one unit at a time) and its units (units_role_ROLE), and the longest
// unit's computing time (longest_unit_s) and its share of the run's wall
// time (longest_unit_of_wall). It returns, for the report, the roles by
// CPU, largest first, the longest unit, and for each worker the first
// unit by whose end its resident set had reached its peak (the unit that
// set a budget's overrun, or the last before it).
func addRoles(met map[string]float64, pc *procCluster, wall float64) (byRole, longest, peaks string, err error) {
	type unitDone struct {
		Msg     string  `json:"msg"`
		Role    string  `json:"role"`
		Tier    uint64  `json:"tier"`
		CPU     float64 `json:"compute_cpu_seconds"`
		Compute float64 `json:"compute_seconds"`
		Memory  struct {
			Peak float64 `json:"peak_rss"`
		} `json:"memory_mib"`
	}
	cpu, units := map[string]float64{}, map[string]int{}
	var top unitDone
	var atPeak []string
	for i, name := range pc.names[coordinatorCount:] {
		peak := float64(pc.peaks[coordinatorCount+i]) / (1 << 20)
		found := false
		f, err := os.Open(filepath.Join(pc.dir, name+".log"))
		if err != nil {
			return "", "", "", err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var u unitDone
			if json.Unmarshal(sc.Bytes(), &u) != nil || u.Msg != "unit done" {
				continue
			}
			cpu[u.Role] += u.CPU
			units[u.Role]++
			if u.Compute > top.Compute {
				top = u
			}
			// The log rounds to a tenth of a MiB or finer.
			if !found && peak > 0 && u.Memory.Peak >= peak-0.1 {
				found = true
				atPeak = append(atPeak, fmt.Sprintf("%s %s of tier %d", name, u.Role, u.Tier))
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return "", "", "", fmt.Errorf("%s.log: %w", name, err)
		}
		if !found {
			atPeak = append(atPeak, name+" after its last unit")
		}
	}
	roles := slices.SortedFunc(maps.Keys(cpu), func(a, b string) int { return cmp.Compare(cpu[b], cpu[a]) })
	var parts []string
	for _, r := range roles {
		met["cpu_s_role_"+r], met["units_role_"+r] = cpu[r], float64(units[r])
		parts = append(parts, fmt.Sprintf("%s %.0f s (%d)", r, cpu[r], units[r]))
	}
	met["longest_unit_s"] = top.Compute
	if wall > 0 {
		met["longest_unit_of_wall"] = top.Compute / wall
	}
	if top.Role != "" {
		longest = fmt.Sprintf("%s of tier %d: %.1f s, %.0f%% of the run", top.Role, top.Tier, top.Compute, 100*top.Compute/max(wall, 1e-9))
	}
	return strings.Join(parts, ", "), longest, strings.Join(atPeak, ", "), nil
}

// loadReference reads what the group's setup measured.
func loadReference(shared string) (reference, error) {
	var ref reference
	b, err := os.ReadFile(filepath.Join(shared, referenceFile))
	if err != nil {
		return ref, fmt.Errorf("the group's tierd solve (its setup): %w", err)
	}
	if err := json.Unmarshal(b, &ref); err != nil || ref.PeakRSS == 0 {
		return ref, fmt.Errorf("%s: %q: %v", referenceFile, b, err)
	}
	return ref, nil
}

// addPartsFigures adds what the loopy tiers in parts exchanged and did,
// over the run's tiers: the notes the parts sent each other (their count
// and their files' bytes), their checkpoints' bytes, the largest memory
// a part reported holding, the rounds, and the rounds that moved to
// another worker. A run with no tier in parts is an error: the group
// would measure something else.
func addPartsFigures(met map[string]float64, run *api.Run) error {
	tiers := 0
	for _, t := range run.Tiers {
		p := t.Parts
		if p == nil {
			continue
		}
		tiers++
		met["notes"] += float64(p.Notes)
		met["notes_bytes"] += float64(p.NotesBytes)
		met["checkpoint_bytes"] += float64(p.Checkpoints)
		met["part_rounds"] += float64(p.Round)
		met["part_moves"] += float64(p.Moves)
		met["largest_part_bytes"] = max(met["largest_part_bytes"], float64(p.Bytes))
	}
	if tiers == 0 {
		return fmt.Errorf("run %s: no tier was solved in parts", run.ID)
	}
	met["tiers_in_parts"] = float64(tiers)
	return nil
}

// scrape reads a coordinator's /metrics: every metric without labels by
// name (counters and gauges).
func scrape(ctx context.Context, base string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+procToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s/metrics: %s", base, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s/metrics: %w", base, err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) > 0 {
				continue
			}
			switch {
			case m.Counter != nil:
				out[name] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[name] = m.GetGauge().GetValue()
			}
		}
	}
	return out, nil
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// sameRun compares two run folders as tierd solve and tierd fetch write
// them: the same files in levels/ and db/, each byte for byte, and the
// manifests. It returns how many files it compared, or an error naming
// the first that differs or is missing.
func sameRun(want, got string) (int, error) {
	list := func(dir string) ([]string, error) {
		names := []string{runfolder.ManifestName}
		for _, sub := range []string{"levels", "db"} {
			err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(dir, path)
				names = append(names, rel)
				return err
			})
			if err != nil {
				return nil, err
			}
		}
		slices.Sort(names)
		return names, nil
	}
	w, err := list(want)
	if err != nil {
		return 0, err
	}
	g, err := list(got)
	if err != nil {
		return 0, err
	}
	for _, name := range w {
		if _, found := slices.BinarySearch(g, name); !found {
			return 0, fmt.Errorf("%s is missing", name)
		}
	}
	for _, name := range g {
		if _, found := slices.BinarySearch(w, name); !found {
			return 0, fmt.Errorf("%s is not in tierd solve's run", name)
		}
	}
	for _, name := range w {
		same, err := sameFile(filepath.Join(want, name), filepath.Join(got, name))
		if err != nil {
			return 0, err
		}
		if !same {
			return 0, fmt.Errorf("%s differs", name)
		}
	}
	return len(w), nil
}

// sameFile reports whether two files hold the same bytes, reading both a
// block at a time.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, errA := io.ReadFull(fa, ba)
		nb, errB := io.ReadFull(fb, bb)
		if !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		endA := errors.Is(errA, io.EOF) || errors.Is(errA, io.ErrUnexpectedEOF)
		endB := errors.Is(errB, io.EOF) || errors.Is(errB, io.ErrUnexpectedEOF)
		switch {
		case errA != nil && !endA:
			return false, errA
		case errB != nil && !endB:
			return false, errB
		case endA || endB:
			return endA == endB, nil
		}
	}
}
