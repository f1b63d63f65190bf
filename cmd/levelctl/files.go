package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/tiersolve/tiersolve/internal/cli"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tiersolve/tiersolve/bitarray"
	"github.com/tiersolve/tiersolve/internal/memsize"
	"github.com/tiersolve/tiersolve/internal/progress"
	"github.com/tiersolve/tiersolve/levelfile"
)

func init() {
	program.Register(&cli.Command{Name: "info", Usage: "info [--json] FILE...", Run: runInfo,
		Summary: "print type, dialect, min, max, bits per position, count and size of level files"})
	program.Register(&cli.Command{Name: "validate", Usage: "validate FILE...", Run: runValidate,
		Summary: "check level files completely; exit 1 if any is invalid"})
	program.Register(&cli.Command{Name: "cat", Usage: "cat FILE", Run: runCat,
		Summary: "print the reachable positions of a level file, ascending, one per line"})
	program.Register(&cli.Command{Name: "write", Run: runWrite,
		Usage:   "write [--type auto|0|1|2|3] [--dialect spec|classic] [--game NAME] [--symmetric] [--start S --end E] [--level N] -o OUT [INPUT]",
		Summary: "write positions (whitespace-separated decimals from INPUT or stdin) as a level file"})
	program.Register(&cli.Command{Name: "convert", Run: runConvert,
		Usage:   "convert [--type auto|0|1|2|3] [--dialect spec|classic] [--level N] -o OUT IN",
		Summary: "rewrite a level file with another type or dialect (the input's dialect by default)"})
	program.Register(&cli.Command{Name: "merge", Run: runMerge,
		Usage:   "merge [--type auto|0|1|2|3] [--dialect spec|classic] [--level N] -o OUT PARTIAL...",
		Summary: "write the union of partial level files as one full level file"})
}

// fileInfo is the JSON form of `levelctl info --json`.
type fileInfo struct {
	File            string      `json:"file"`
	Type            int         `json:"type"`
	Dialect         string      `json:"dialect"`
	Min             uint64      `json:"min"`
	Max             uint64      `json:"max"`
	BitsPerPosition int         `json:"bits_per_position"`
	Count           json.Number `json:"count"` // 2^64 for a file of all positions
	CompressedBytes int64       `json:"compressed_bytes"`
	// Symmetric: the file holds one canonical position per symmetry class
	// of its game (a tierd --symmetry run's).
	Symmetric bool `json:"symmetric,omitempty"`
}

func runInfo(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("info"))
	asJSON := fs.Bool("json", false, "print one JSON object per file")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.UsageError("need at least one FILE")
	}
	results := validateAll(fs.Args())
	failed := false
	enc := json.NewEncoder(e.Stdout)
	for i, name := range fs.Args() {
		info, err := results[i].info, results[i].err
		if err != nil {
			fmt.Fprintf(e.Stderr, "levelctl info: %v\n", fileError(name, err))
			failed = true
			continue
		}
		fi := fileInfo{File: name, Type: int(info.Type), Dialect: info.Dialect.String(), Min: info.Min, Max: info.Max,
			BitsPerPosition: info.BitsPerPosition(), Count: json.Number(info.CountString()), CompressedBytes: info.Compressed,
			Symmetric: info.Symmetric()}
		if *asJSON {
			if err := enc.Encode(fi); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.Stdout, "%s: type %d, %s dialect, min %d, max %d, %d bits per position, %s %s, %d bytes\n",
			name, fi.Type, fi.Dialect, fi.Min, fi.Max, fi.BitsPerPosition, fi.Count, positionsWord(info.Header), fi.CompressedBytes)
	}
	if failed {
		return cli.ErrSilent
	}
	return nil
}

func runValidate(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("validate"))
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.UsageError("need at least one FILE")
	}
	failed := false
	for i, r := range validateAll(fs.Args()) {
		name := fs.Arg(i)
		if r.err != nil {
			fmt.Fprintf(e.Stderr, "levelctl validate: %v\n", fileError(name, r.err))
			failed = true
			continue
		}
		fmt.Fprintf(e.Stdout, "%s: ok (type %d, %s dialect, %s %s)\n", name, r.info.Type, r.info.Dialect, r.info.CountString(), positionsWord(r.info.Header))
	}
	if failed {
		return cli.ErrSilent
	}
	return nil
}

// positionsWord is what a file's count counts: positions, or in a
// symmetric file one canonical position per symmetry class.
func positionsWord(h levelfile.Header) string {
	if h.Symmetric() {
		return "canonical positions (symmetric: one per symmetry class)"
	}
	return "positions"
}

type validation struct {
	info levelfile.Info
	err  error
}

// validateAll checks files concurrently, one per core, keeping their order.
func validateAll(names []string) []validation {
	out := make([]validation, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if out[i].err = needFile(name); out[i].err == nil {
				out[i].info, out[i].err = levelfile.Validate(name, nil)
			}
		}()
	}
	wg.Wait()
	return out
}

// fileError makes sure an error names its file once.
func fileError(name string, err error) error {
	if strings.Contains(err.Error(), name) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

func runCat(e *cli.Env, args []string) error {
	fs := program.FlagSet(e, program.Command("cat"))
	name, err := oneFile(fs, args, "FILE")
	if err != nil {
		return err
	}
	// Check the whole file before printing anything: a listing cut short
	// by damage found at the end (the gzip checksum) would pass for a
	// complete one in a pipeline.
	if _, err := levelfile.Validate(name, nil); err != nil {
		return fileError(name, err)
	}
	f, err := levelfile.Open(name, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(e.Stdout, 1<<16)
	var line []byte
	var werr error
	for run := range f.Runs() {
		for p := run.Lo; ; p++ {
			line = strconv.AppendUint(line[:0], p, 10)
			line = append(line, '\n')
			if _, werr = w.Write(line); werr != nil {
				break
			}
			if p == run.Hi {
				break
			}
		}
		if werr != nil {
			break
		}
	}
	if werr != nil {
		return werr
	}
	if err := f.Err(); err != nil { // changed since it was validated
		w.Flush()
		return fmt.Errorf("%s: %w (the listing above is incomplete)", name, err)
	}
	return w.Flush()
}

// oneFile parses the flags of a command that takes exactly one file (what
// names it in the usage error) and returns that file, which must be one
// (needFile).
func oneFile(fs *flag.FlagSet, args []string, what string) (string, error) {
	if err := cli.ParseFlags(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", cli.UsageError("need exactly one %s", what)
	}
	return fs.Arg(0), needFile(fs.Arg(0))
}

// needFile reports a name that is not a readable file in words a
// newcomer understands: a folder given where a file is needed.
func needFile(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return err // *PathError names the file
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a folder: give a file", name)
	}
	return nil
}

// writeFlags are the flags shared by write, convert and merge.
type writeFlags struct {
	typ, dialect, out, memory *string
	level                     *int
}

// newWriteFlagSet returns c's FlagSet with the writer flags; an empty
// dialectDefault means "keep the input's dialect".
func newWriteFlagSet(e *cli.Env, c *cli.Command, dialectDefault string) (*flag.FlagSet, *writeFlags) {
	fs := program.FlagSet(e, c)
	return fs, &writeFlags{
		typ:     fs.String("type", "auto", "level-file type: auto (keep the smallest), 0, 1, 2 or 3"),
		dialect: fs.String("dialect", dialectDefault, "separator dialect: spec (0x12) or classic (0x0C)"),
		out:     fs.String("o", "", "output file (required)"),
		level:   fs.Int("level", levelfile.DefaultLevel, "gzip level of bitmaps (type 3), 1 (fastest) to 9 (smallest)"),
		memory:  fs.String("memory", "", "memory budget, e.g. 4GiB (default: 80% of the machine); a file whose span needs more is refused"),
	}
}

// options turns the flags into writer options; an empty --dialect keeps
// the dialect keep.
func (wf *writeFlags) options(keep levelfile.Dialect) (*levelfile.WriteOptions, error) {
	if *wf.out == "" {
		return nil, cli.UsageError("-o OUT is required")
	}
	t, err := levelfile.ParseType(*wf.typ)
	if err != nil {
		return nil, cli.UsageError("%v", err)
	}
	if *wf.level < 1 || *wf.level > 9 {
		return nil, cli.UsageError("--level %d: want 1 to 9", *wf.level)
	}
	if _, err := wf.budget(); err != nil {
		return nil, err
	}
	o := &levelfile.WriteOptions{Types: levelfile.Types(t), Level: *wf.level, Dialect: keep}
	if *wf.dialect != "" {
		if o.Dialect, err = levelfile.ParseDialect(*wf.dialect); err != nil {
			return nil, cli.UsageError("%v", err)
		}
	}
	return o, nil
}

// budget is the --memory budget in bytes.
func (wf *writeFlags) budget() (uint64, error) {
	n, err := memsize.Parse(*wf.memory)
	if err != nil {
		return 0, cli.UsageError("--memory: %v", err)
	}
	if n == 0 {
		n = memsize.DefaultBudget()
	}
	return n, nil
}

// maxSpan is the largest span whose bit array (one bit per position, the
// most a set over it can take) fits the --memory budget: writing a level
// file needs the set of its members over their span, so a file is refused
// before it is read, as tierd plan refuses a run. Within the budget the
// memory taken follows the members (see levelfile.Reader.ReadSet).
func (wf *writeFlags) maxSpan() uint64 {
	b, _ := wf.budget()
	return min(b, math.MaxUint64/8) * 8
}

// checkSpan refuses a span [lo, hi] (span positions, 0 meaning 2^64) that
// does not fit the budget, saying what it needs.
func (wf *writeFlags) checkSpan(what string, lo, hi, span uint64) error {
	if span != 0 && span <= wf.maxSpan() {
		return nil
	}
	need := "more than 2 EiB"
	if span != 0 {
		need = memsize.Format((span + 7) / 8)
	}
	b, _ := wf.budget()
	return fmt.Errorf("%s spans positions %d..%d, which may need %s (one bit per position), more than the memory budget of %s; give a larger --memory if the machine has it",
		what, lo, hi, need, memsize.Format(b))
}

func runWrite(e *cli.Env, args []string) error {
	fs, wf := newWriteFlagSet(e, program.Command("write"), "spec")
	game := fs.String("game", "", "game name for the header comment (spec dialect)")
	symmetric := fs.Bool("symmetric", false, "mark the file as holding one canonical position per symmetry class (spec dialect)")
	start := fs.String("start", "", "first position of the BITARRAY range (with --end)")
	end := fs.String("end", "", "end of the range, exclusive (with --start)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	o, err := wf.options(levelfile.Spec)
	if err != nil {
		return err
	}
	o.Game, o.Symmetric = *game, *symmetric
	if fs.NArg() > 1 {
		return cli.UsageError("at most one INPUT")
	}
	if (*start == "") != (*end == "") {
		return cli.UsageError("--start and --end go together")
	}
	in, inName := e.Stdin, "stdin"
	if fs.NArg() == 1 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in, inName = f, fs.Arg(0)
	}
	ps, err := readPositions(in, inName)
	if err != nil {
		return err
	}
	lo, hi := uint64(0), uint64(0)
	if len(ps) > 0 {
		lo, hi = ps[0], ps[len(ps)-1]+1
	}
	if *start != "" {
		s, err1 := strconv.ParseUint(*start, 10, 64)
		en, err2 := strconv.ParseUint(*end, 10, 64)
		if err1 != nil || err2 != nil || en < s {
			return cli.UsageError("--start %q --end %q: want decimal positions with start <= end", *start, *end)
		}
		if len(ps) > 0 && (ps[0] < s || ps[len(ps)-1] >= en) {
			return fmt.Errorf("%s: positions %d..%d outside --start %d --end %d", inName, ps[0], ps[len(ps)-1], s, en)
		}
		lo, hi = s, en
	}
	// hi may have wrapped to 0 for a position 2^64-1: hi-lo is still the
	// span then, unless the span is all of 2^64.
	span := hi - lo
	if len(ps) > 0 || span > 0 {
		if err := wf.checkSpan(inName, lo, hi-1, span); err != nil {
			return err
		}
	}
	set := bitarray.New(lo, span)
	for _, p := range ps {
		set.Add(p)
	}
	return writeAndReport(e, *wf.out, set, o)
}

// readPositions reads whitespace-separated decimals, sorted and deduplicated.
func readPositions(r io.Reader, name string) ([]uint64, error) {
	sc := bufio.NewScanner(bufio.NewReaderSize(r, 1<<16))
	sc.Split(bufio.ScanWords)
	var ps []uint64
	sorted := true
	for n := 1; sc.Scan(); n++ {
		p, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: word %d %q is not a position (a decimal below 2^64)", name, n, truncate(sc.Text()))
		}
		if len(ps) > 0 && p <= ps[len(ps)-1] {
			sorted = false
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !sorted {
		slices.Sort(ps)
		ps = slices.Compact(ps)
	}
	return ps, nil
}

func truncate(s string) string {
	if len(s) > 30 {
		return s[:30] + "..."
	}
	return s
}

// writeAndReport writes set to out and says which type was written and,
// for auto, how the others fared.
func writeAndReport(e *cli.Env, out string, set *bitarray.Set, o *levelfile.WriteOptions) error {
	res, err := levelfile.WriteFile(out, set, o)
	if err != nil {
		return err
	}
	reportWrite(e, out, res)
	return nil
}

// reportWrite says which type was written and, for auto, how the others fared.
func reportWrite(e *cli.Env, out string, res levelfile.Result) {
	var parts []string
	for t, c := range res.Candidates {
		switch {
		case !c.Tried:
		case c.Complete:
			parts = append(parts, fmt.Sprintf("type %d %d bytes", t, c.Size))
		default:
			parts = append(parts, fmt.Sprintf("type %d >%d bytes (stopped)", t, c.Size-1))
		}
	}
	fmt.Fprintf(e.Stderr, "%s: type %d, %d positions, %d bytes [%s]\n", out, res.Header.Type, res.Count, res.Bytes, strings.Join(parts, ", "))
}

func runConvert(e *cli.Env, args []string) error {
	fs, wf := newWriteFlagSet(e, program.Command("convert"), "")
	in, err := oneFile(fs, args, "input file")
	if err != nil {
		return err
	}
	h, err := levelfile.ReadHeader(in)
	if err != nil {
		return err
	}
	o, err := wf.options(h.Dialect)
	if err != nil {
		return err
	}
	o.Symmetric = h.Symmetric() // canonical positions stay marked
	if !h.Empty {
		if err := wf.checkSpan(in, h.Min, h.Max, h.Span()); err != nil {
			return err
		}
	}
	_, set, err := levelfile.ReadFile(in, &levelfile.Options{MaxSpan: wf.maxSpan()})
	if err != nil {
		return err
	}
	return writeAndReport(e, *wf.out, set, o)
}

func runMerge(e *cli.Env, args []string) error {
	fs, wf := newWriteFlagSet(e, program.Command("merge"), "spec")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	o, err := wf.options(levelfile.Spec)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.UsageError("need at least one PARTIAL file")
	}
	names := fs.Args()
	for _, name := range names {
		if err := needFile(name); err != nil {
			return err
		}
	}
	if err := wf.checkMergedSpan(names); err != nil {
		return err
	}
	if o.Symmetric, err = sameSymmetry(names); err != nil {
		return err
	}
	meter := progress.New(e.Stderr, e.Log, "merge", int64(len(names)), "files")
	set, err := levelfile.Merge(context.Background(), names, &levelfile.MergeOptions{
		Options:  levelfile.Options{MaxSpan: wf.maxSpan()},
		Progress: func(files int, bytes int64) { meter.Set(int64(files), fmt.Sprintf("%d MB read", bytes>>20)) },
	})
	meter.Finish()
	if err != nil {
		return err
	}
	return writeAndReport(e, *wf.out, set, o)
}

// sameSymmetry reports whether the files hold canonical positions
// (symmetric ones), refusing a mix: a union of canonical and full sets is
// neither.
func sameSymmetry(names []string) (bool, error) {
	var first bool
	for i, name := range names {
		h, err := levelfile.ReadHeader(name)
		if err != nil {
			return false, err
		}
		if i == 0 {
			first = h.Symmetric()
		} else if h.Symmetric() != first {
			sym, full := names[0], name
			if !first {
				sym, full = name, names[0]
			}
			return false, fmt.Errorf("%s holds canonical positions only (symmetric) and %s every position: their union would be neither", sym, full)
		}
	}
	return first, nil
}

// checkMergedSpan refuses partial files whose union spans more than the
// budget, from their headers.
func (wf *writeFlags) checkMergedSpan(names []string) error {
	lo, hi, ok, err := levelfile.MergedRange(names)
	if err != nil || !ok {
		return err
	}
	return wf.checkSpan(fmt.Sprintf("the %d files", len(names)), lo, hi, hi-lo+1)
}
