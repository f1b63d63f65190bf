package harness

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// Planned is a group chosen to run, with its suite.
type Planned struct {
	Suite *Suite
	Group Group
	// Peers are the --peer flags added to this group, as typed, for the
	// command that reproduces it.
	Peers []string
}

// Peer is an outside program given with --peer NAME[@GROUP]=COMMAND.
type Peer struct {
	Name    string
	Group   string // the group ID it joins; "" for a group of its own
	Command string // run with sh -c in a fresh folder
	Flag    string // the flag's value as typed
}

// ParsePeer parses the value of a --peer flag: NAME=COMMAND, where NAME is
// a label, optionally followed by @GROUP-ID to time the peer in the same
// rounds as that group's variants.
func ParsePeer(s string) (Peer, error) {
	name, cmd, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(cmd) == "" || name == "" {
		return Peer{}, fmt.Errorf("--peer %q: want NAME=COMMAND or NAME@GROUP=COMMAND", s)
	}
	p := Peer{Name: name, Command: cmd, Flag: s}
	if n, g, ok := strings.Cut(name, "@"); ok {
		p.Name, p.Group = n, g
	}
	if p.Name == "" || strings.ContainsAny(p.Name, "/ ") {
		return Peer{}, fmt.Errorf("--peer %q: the name must be a non-empty label without '/' or spaces", s)
	}
	return p, nil
}

// peerVariant is the variant that runs p.
func (p Peer) variant() Variant {
	return Variant{Name: p.Name, Kind: results.KindPeer, Command: []string{"sh", "-c", p.Command}}
}

// Plan chooses the groups that the selection names (see Select) from
// suites and attaches the peers.
//
// A selection item without '/' is a suite name: its groups of level Quick
// (with cfg.Quick) or Quick and Full. An item with '/' selects every group
// whose ID equals it, begins with it followed by '/', or matches it as a
// path.Match pattern, whatever the group's level.
func Plan(suites []Suite, selection []string, cfg Config, peers []Peer) ([]Planned, error) {
	var plan []Planned
	seen := map[string]bool{}
	for _, item := range selection {
		matched := false
		for i := range suites {
			s := &suites[i]
			byName := !strings.Contains(item, "/")
			if byName && s.Name != item {
				continue
			}
			if !byName && !strings.HasPrefix(item, s.Name+"/") && !strings.ContainsAny(item, "*?[") {
				continue
			}
			// A suite named is a match even when the level leaves none of
			// its groups (--quick and a suite without quick groups).
			matched = matched || byName
			for _, g := range s.Groups(cfg) {
				if !chosen(item, byName, g, cfg) {
					continue
				}
				matched = true
				if !seen[g.ID] {
					seen[g.ID] = true
					plan = append(plan, Planned{Suite: s, Group: g})
				}
			}
		}
		if !matched {
			return nil, fmt.Errorf("--suite %q matches no suite or group (see --list)", item)
		}
	}
	for _, p := range peers {
		if p.Group == "" {
			id := "peers/" + p.Name
			if seen[id] {
				return nil, fmt.Errorf("--peer %s given twice", p.Name)
			}
			seen[id] = true
			plan = append(plan, Planned{
				Suite: &peerSuite,
				Group: Group{ID: id, Table: "peers", Title: p.Name, Level: Quick,
					Variants: []Variant{p.variant()}, Reference: p.Name, Estimate: time.Minute},
				Peers: []string{p.Flag},
			})
			continue
		}
		i := slices.IndexFunc(plan, func(pl Planned) bool { return pl.Group.ID == p.Group })
		if i < 0 {
			return nil, fmt.Errorf("--peer %s: group %s is not in this run (add it to --suite)", p.Flag, p.Group)
		}
		g := &plan[i].Group
		if slices.ContainsFunc(g.Variants, func(v Variant) bool { return v.Name == p.Name }) {
			return nil, fmt.Errorf("--peer %s: group %s already has a variant %s", p.Flag, p.Group, p.Name)
		}
		g.Variants = append(slices.Clone(g.Variants), p.variant())
		plan[i].Peers = append(plan[i].Peers, p.Flag)
	}
	return plan, nil
}

// peerSuite holds the groups of peers given without a group.
var peerSuite = Suite{Name: "peers", Doc: "outside programs given with --peer NAME=COMMAND, timed alone"}

func chosen(item string, byName bool, g Group, cfg Config) bool {
	if byName {
		return g.Level == Quick || (g.Level == Full && !cfg.Quick)
	}
	if g.ID == item || strings.HasPrefix(g.ID, strings.TrimSuffix(item, "/")+"/") {
		return true
	}
	ok, _ := path.Match(item, g.ID)
	return ok
}

// Runs is the number of runs (children and outside programs) of a plan
// with warmup and rounds rounds, setups included.
func Runs(plan []Planned, warmup, rounds int) int {
	n := 0
	for _, p := range plan {
		if p.Group.Skip != "" {
			continue
		}
		w, r := p.Group.Rounds(warmup, rounds)
		n += (w + r) * len(p.Group.Variants)
		if p.Group.Setup != nil {
			n++
		}
	}
	return n
}

// Estimate is the expected wall time of a plan.
func Estimate(plan []Planned, warmup, rounds int) time.Duration {
	var d time.Duration
	for _, p := range plan {
		d += p.Group.Cost(warmup, rounds)
	}
	return d
}

// Command is the command line that reproduces one planned group (the
// group ID selects it whatever its level, so --quick is not needed).
func (p Planned) Command() string {
	var b strings.Builder
	b.WriteString("go run ./bench")
	if p.Suite != &peerSuite {
		b.WriteString(" --suite " + shellQuote(p.Group.ID))
	}
	for _, f := range p.Peers {
		b.WriteString(" --peer " + shellQuote(f))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~%^") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
