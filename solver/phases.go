package solver

import (
	"sync"
	"time"

	"github.com/tiersolve/tiersolve/solver/work"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Phase timing. Every step of a tier is timed as a phase that is either
// parallel (its work is spread over the workers: expanding ranges,
// solving ranges, compressing a file's chunks) or serial (one goroutine
// works while the others wait: reading and ranking a level file, a
// checksum, syncing the manifest). Only the run's critical path is timed:
// work that overlaps other work (a level file or value database written
// while the next step runs) counts only for the time the run waits for it,
// as serial time.
//
// With n workers, a run of parallel time P and serial time S would take
// about S + n*P on one worker and S + n*P/k on k (Amdahl's law), so the
// serial fraction S/(S + n*P) bounds the speed-up on any machine; Profile
// computes it.

// PhaseTime is the time one phase of a tier took, on the critical path.
type PhaseTime struct {
	Phase    string  `json:"phase"`
	Parallel float64 `json:"parallel_s"`
	Serial   float64 `json:"serial_s"`
}

// TierTime is the phases of one tier's reach or solve step.
type TierTime struct {
	Tier     uint64      `json:"tier"`
	Name     string      `json:"name"`
	Step     string      `json:"step"` // "reach" or "solve"
	Phases   []PhaseTime `json:"phases"`
	Parallel float64     `json:"parallel_s"`
	Serial   float64     `json:"serial_s"`
}

// Profile sums a session's phases.
type Profile struct {
	Workers  int     `json:"workers"`
	Parallel float64 `json:"parallel_s"`
	Serial   float64 `json:"serial_s"`
	// SerialFraction is Serial / (Serial + Workers*Parallel): the share of
	// the work on one worker that does not spread.
	SerialFraction float64 `json:"serial_fraction"`
	// Speedup16 is Amdahl's projection of the speed-up of 16 workers over
	// one: 1 / (SerialFraction + (1-SerialFraction)/16).
	Speedup16 float64 `json:"speedup_16"`
	// Phases sums each phase over the tiers, by step ("reach/expand").
	Phases []PhaseTime `json:"phases"`
}

// Speedup is Amdahl's projection of the speed-up of k workers over one.
func (p Profile) Speedup(k int) float64 {
	if p.Serial+p.Parallel == 0 {
		return 1
	}
	return 1 / (p.SerialFraction + (1-p.SerialFraction)/float64(k))
}

// phaseLog records a session's phases; it is safe for concurrent use.
type phaseLog struct {
	mu    sync.Mutex
	tiers []*TierTime
}

// tier returns the record of tier t's step, creating it.
func (l *phaseLog) tier(t tiergame.Tier, name, step string) *TierTime {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, tt := range l.tiers {
		if tt.Tier == uint64(t) && tt.Step == step {
			return tt
		}
	}
	tt := &TierTime{Tier: uint64(t), Name: name, Step: step}
	l.tiers = append(l.tiers, tt)
	return tt
}

// add records d of a phase of tt.
func (l *phaseLog) add(tt *TierTime, phase string, parallel bool, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var pt *PhaseTime
	for i := range tt.Phases {
		if tt.Phases[i].Phase == phase {
			pt = &tt.Phases[i]
		}
	}
	if pt == nil {
		tt.Phases = append(tt.Phases, PhaseTime{Phase: phase})
		pt = &tt.Phases[len(tt.Phases)-1]
	}
	s := d.Seconds()
	if parallel {
		pt.Parallel += s
		tt.Parallel += s
	} else {
		pt.Serial += s
		tt.Serial += s
	}
}

// stepClock times the phases of one tier's step.
type stepClock struct {
	log     *phaseLog
	tt      *TierTime
	meter   *work.Meter
	workers int
}

// phase starts timing a phase; call the result when it ends. A phase
// whose workers the meter saw is split into serial and parallel time by
// their busy time; one that it did not see is parallel or serial as
// parallel says (a file compressed by all cores is parallel).
func (c stepClock) phase(name string, parallel bool) func() {
	t0, b0 := time.Now(), c.meter.Busy()
	return func() {
		wall, busy := time.Since(t0), c.meter.Busy()-b0
		if busy == 0 {
			c.log.add(c.tt, name, parallel, wall)
			return
		}
		n := time.Duration(max(c.workers, 1))
		serial := wall - busy
		if n > 1 {
			serial = (n*wall - busy) / (n - 1)
		}
		serial = min(max(serial, 0), wall)
		c.log.add(c.tt, name, false, serial)
		c.log.add(c.tt, name, true, wall-serial)
	}
}

// clock starts the phase record of tier t's step ("reach", "solve").
func (r *Run) clock(t tiergame.Tier, step string) stepClock {
	return stepClock{&r.phases, r.phases.tier(t, r.Game.TierName(t), step), &r.busy, r.Workers}
}

// TierTimes returns the phases of every tier's steps in this session, in
// the order they ran.
func (r *Run) TierTimes() []TierTime {
	r.phases.mu.Lock()
	defer r.phases.mu.Unlock()
	out := make([]TierTime, len(r.phases.tiers))
	for i, tt := range r.phases.tiers {
		out[i] = *tt
		out[i].Phases = append([]PhaseTime(nil), tt.Phases...)
	}
	return out
}

// Profile sums this session's phases with the run's workers.
func (r *Run) Profile() Profile {
	p := Profile{Workers: r.Workers}
	for _, tt := range r.TierTimes() {
		p.Parallel += tt.Parallel
		p.Serial += tt.Serial
		for _, ph := range tt.Phases {
			name := tt.Step + "/" + ph.Phase
			i := len(p.Phases)
			for k := range p.Phases {
				if p.Phases[k].Phase == name {
					i = k
				}
			}
			if i == len(p.Phases) {
				p.Phases = append(p.Phases, PhaseTime{Phase: name})
			}
			p.Phases[i].Parallel += ph.Parallel
			p.Phases[i].Serial += ph.Serial
		}
	}
	if one := p.Serial + float64(p.Workers)*p.Parallel; one > 0 {
		p.SerialFraction = p.Serial / one
	}
	p.Speedup16 = p.Speedup(16)
	return p
}
