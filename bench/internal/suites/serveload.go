package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/solver/oracle"
)

// loadResult is what a load run measured.
type loadResult struct {
	answers, errors int
	// seconds is the measured span (the warm-up excluded).
	seconds float64
	// latencies of the answered requests of the measured span.
	latencies []time.Duration
	// moves counts the moves of the answers of the measured span that
	// were decoded (one in loadDecodeEvery).
	moves, decoded int
	serverCPU      float64
	clientCPU      float64
	firstError     string
	// rate is the requests a second asked, 0 for a closed loop.
	rate float64
}

// metrics are the run's figures for a Sample.
func (r loadResult) metrics() map[string]float64 {
	m := map[string]float64{"answers": float64(r.answers), "errors": float64(r.errors),
		"answers_per_s": perSecond(float64(r.answers), r.seconds),
		"server_cpu_s":  r.serverCPU, "client_cpu_s": r.clientCPU}
	if r.rate > 0 {
		m["rate_per_s"] = r.rate
	}
	if len(r.latencies) > 0 {
		ls := slices.Clone(r.latencies)
		slices.Sort(ls)
		at := func(q float64) float64 {
			i := min(int(q*float64(len(ls))), len(ls)-1)
			return ls[i].Seconds() * 1000
		}
		m["p50_ms"], m["p90_ms"], m["p99_ms"], m["max_ms"] = at(0.5), at(0.9), at(0.99), ls[len(ls)-1].Seconds()*1000
	}
	if r.decoded > 0 {
		m["moves_per_answer"] = float64(r.moves) / float64(r.decoded)
	}
	return m
}

// loadDecodeEvery: one answer in this many is decoded as JSON (its moves
// counted); the others are read whole and their status checked, so
// that the client leaves the machine's cores to the server.
const loadDecodeEvery = 64

// loadTest runs clients goroutines, each asking the urls in turn (from a
// random offset) on its own keep-alive connection to loopback (a
// loadConn), for warmup (not
// counted) and then for d or until maxAnswers answers. An answer is a
// 200 with a JSON object body; anything else is an error. serverCPU
// reads the server's CPU seconds so far.
//
// With rate 0 each client asks again as soon as it has its answer (a
// closed loop: the server's most answers a second, and latencies that are
// mostly the 64 clients' wait for two cores). With a rate, the clients
// ask rate requests a second between them, each on its own schedule (as
// wrk2 does): a request is due every clients/rate seconds, and one sent
// late because the answer before it came late is timed from when it was
// due, so that a server that falls behind is not measured only by the
// requests it let through (coordinated omission). One sent late because
// the client's own timer woke late is timed from when it was sent.
func loadTest(ctx context.Context, urls []string, clients int, rate float64, warmup, d time.Duration, maxAnswers int,
	serverCPU func() (float64, error)) (loadResult, error) {
	host, reqs, err := newLoadRequests(urls)
	if err != nil {
		return loadResult{}, err
	}
	var (
		measuring atomic.Bool
		stop      atomic.Bool
		answered  atomic.Int64
		mu        sync.Mutex
		res       = loadResult{rate: rate}
		wg        sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var every time.Duration // a client's period, when rated
	if rate > 0 {
		every = time.Duration(float64(clients) / rate * float64(time.Second))
	}
	begin := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			i := rng.IntN(len(reqs))
			lc := &loadConn{addr: host, timeout: 10 * time.Second}
			defer lc.close()
			lat := make([]time.Duration, 0, 1<<14)
			var n, errs, moves, decoded int
			var firstErr string
			buf := make([]byte, 0, 64<<10)
			// The clients' schedules are spread over a period.
			due := begin.Add(time.Duration(w) * every / time.Duration(clients))
			for !stop.Load() && ctx.Err() == nil {
				u := reqs[i].url
				t0 := time.Now()
				if every > 0 {
					if wait := due.Sub(t0); wait > 0 {
						time.Sleep(wait)
						t0 = time.Now()
					} else {
						t0 = due
					}
					due = due.Add(every)
				}
				counted := measuring.Load()
				body, err := lc.get(reqs[i], buf)
				i = (i + 1) % len(reqs)
				el := time.Since(t0)
				if cap(body) > cap(buf) {
					buf = body
				}
				if err == nil && (len(body) == 0 || body[0] != '{') {
					err = fmt.Errorf("GET %s: not a JSON object: %.200q", u, body)
				}
				// The universal API answers a bad position with 200 and
				// {"error": ...}, as the UWAPI does.
				if err == nil && bytes.HasPrefix(body, []byte(`{"error"`)) {
					err = fmt.Errorf("GET %s: %.300s", u, body)
				}
				var nm int
				if err == nil && counted && n%loadDecodeEvery == 0 {
					nm, err = countMoves(body)
					if err == nil {
						moves += nm
						decoded++
					}
				}
				if !counted {
					continue
				}
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					errs++
					if firstErr == "" {
						firstErr = err.Error()
					}
					continue
				}
				n++
				lat = append(lat, el)
				if answered.Add(1) >= int64(maxAnswers) {
					stop.Store(true)
				}
			}
			mu.Lock()
			res.answers += n
			res.errors += errs
			res.moves += moves
			res.decoded += decoded
			res.latencies = append(res.latencies, lat...)
			if res.firstError == "" {
				res.firstError = firstErr
			}
			mu.Unlock()
		}()
	}
	// The warm-up, then the measured span: its start and end are when the
	// flag flips; a request in flight at either edge counts by its start.
	select {
	case <-time.After(warmup):
	case <-ctx.Done():
	}
	cpu0, err0 := serverCPU()
	client0 := harness.CPUSeconds()
	t0 := time.Now()
	measuring.Store(true)
	timer := time.NewTimer(d)
	ticker := time.NewTicker(10 * time.Millisecond)
loop:
	for {
		select {
		case <-timer.C:
			break loop
		case <-ctx.Done():
			break loop
		case <-ticker.C:
			if stop.Load() {
				break loop
			}
		}
	}
	ticker.Stop()
	measuring.Store(false)
	stop.Store(true)
	res.seconds = time.Since(t0).Seconds()
	cpu1, err1 := serverCPU()
	res.clientCPU = harness.CPUSeconds() - client0
	wg.Wait()
	if err := errors.Join(err0, err1); err != nil {
		return res, err
	}
	res.serverCPU = cpu1 - cpu0
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if res.answers == 0 {
		return res, fmt.Errorf("no answer in %s: %s", d, res.firstError)
	}
	return res, nil
}

// countMoves decodes an answer of either API and counts its moves.
func countMoves(body []byte) (int, error) {
	var a struct {
		Moves []json.RawMessage `json:"moves"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return 0, fmt.Errorf("answer %.200q: %w", body, err)
	}
	return len(a.Moves), nil
}

// gamesmanValue is the part of `gamesman query`'s answer compared.
type gamesmanValue struct {
	PositionValue string `json:"positionValue"`
	Remoteness    int    `json:"remoteness"`
}

// runGamesmanQuery times GamesmanOne's `gamesman query quixo 1 POS` on
// the group's positions, one process a query, one after the other, as
// the GamesCrafters server runs it per request, in the folder where
// `gamesman solve quixo 1` wrote its data (--gamesman-data). It checks
// every answer's value against the run's (oracle.Oracle); the time is
// the wall time per query.
func runGamesmanQuery(ctx context.Context, env harness.JobEnv, a serveLoadArgs) (harness.Sample, error) {
	r, dir, ps, err := serveJobStart(env, a)
	if err != nil {
		return harness.Sample{}, err
	}
	g, err := games.New(r.game, r.option)
	if err != nil {
		return harness.Sample{}, err
	}
	o, err := oracle.Open(dir, g)
	if err != nil {
		return harness.Sample{}, err
	}
	defer o.Close()
	gps := make([]string, len(ps))
	for i, p := range ps {
		if gps[i], err = universalPosition(r.game, p); err != nil {
			return harness.Sample{}, err
		}
	}
	var lat []time.Duration
	agree, remAgree := 0, 0
	var firstDiff string
	cpu0 := harness.ChildrenCPUSeconds()
	t0 := time.Now()
	for i, gp := range gps {
		cmd := exec.CommandContext(ctx, env.Config.Gamesman, "query", "quixo", "1", gp)
		cmd.Dir = env.Config.GamesmanData
		t := time.Now()
		out, err := cmd.Output()
		lat = append(lat, time.Since(t))
		if err != nil {
			return harness.Sample{}, fmt.Errorf("gamesman query quixo 1 %s: %w: %s", gp, err, out)
		}
		var gv gamesmanValue
		if err := json.Unmarshal(out, &gv); err != nil {
			return harness.Sample{}, fmt.Errorf("gamesman query quixo 1 %s: %w: %.300q", gp, err, out)
		}
		t1, p1, err := g.Parse(ps[i])
		if err != nil {
			return harness.Sample{}, err
		}
		rec, err := o.Lookup(t1, p1)
		if err != nil {
			return harness.Sample{}, fmt.Errorf("%s: %w", ps[i], err)
		}
		ours := strings.ToLower(rec.Value().String())
		if ours == gv.PositionValue {
			agree++
			if rec.Remoteness() == gv.Remoteness {
				remAgree++
			}
		}
		if (ours != gv.PositionValue || rec.Remoteness() != gv.Remoteness) && firstDiff == "" {
			firstDiff = fmt.Sprintf("%s (%s): ours %s %d, GamesmanOne %s %d", ps[i], gp, ours, rec.Remoteness(), gv.PositionValue, gv.Remoteness)
		}
	}
	secs := time.Since(t0).Seconds()
	cpu := harness.ChildrenCPUSeconds() - cpu0
	res := loadResult{answers: len(gps), seconds: secs, latencies: lat}
	met := res.metrics()
	met["server_cpu_s"] = cpu
	delete(met, "client_cpu_s")
	facts := map[string]string{"agree": fmt.Sprintf("%d/%d values, %d/%d remoteness", agree, len(gps), remAgree, len(gps))}
	if firstDiff != "" {
		facts["first_difference"] = firstDiff
	}
	return harness.Sample{Seconds: secs / float64(len(gps)), Metrics: met, Facts: facts}, nil
}
