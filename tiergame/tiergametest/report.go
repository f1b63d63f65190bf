package tiergametest

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/tiersolve/tiersolve/tiergame"
)

// The rules Check reports, each failure message naming one of them after
// the game ("tictactoe default: hash range: ...").
const (
	ruleName        = "name"              // Name and Option
	ruleStart       = "start"             // Start
	ruleRebuild     = "rebuild"           // Options.New
	ruleTierGraph   = "tier graph"        // ChildTiers, TierSize, TierName of the tiers
	rulePanic       = "panic"             // a method panicked
	ruleRoundTrip   = "round trip"        // Parse(Format(p))
	ruleValue       = "value"             // Moves returns a Value
	rulePrimitive   = "primitive"         // no moves from a primitive position
	ruleNoMoves     = "no moves"          // moves from every other one
	ruleAppends     = "appends"           // methods only append to dst
	ruleDeterminism = "deterministic"     // Moves twice
	ruleChildTier   = "child tier"        // children in ChildTiers
	ruleHashRange   = "hash range"        // hashes inside TierSize
	ruleNames       = "move names"        // MoveNamer, ChanceMoveNamer
	ruleCursor      = "cursor"            // CursorGame
	ruleByTier      = "by tier"           // ByTierCursor
	ruleImages      = "images"            // Symmetric.Images
	ruleCanonical   = "canonical"         // Symmetric.Canonical
	ruleSymmetry    = "symmetry"          // images share values and moves
	ruleCanonCursor = "canonical cursor"  // CanonicalCursor, CanonicalByTierCursor
	ruleParents     = "parents"           // Unmover
	ruleCanonParent = "canonical parents" // CanonicalUnmover
	ruleChance      = "chance"            // Chance
	ruleKernel      = "kernel"            // ChanceKernel
	ruleExhaustive  = "exhaustive"        // Exhaustive
	ruleLegality    = "legality"          // Legality: LegalWords and the text form agree
)

// reporter keeps failures, at most max per rule, and counts the rest;
// flush sends them to t. Workers report concurrently, and only the
// goroutine of Check's caller sends them, from Check, so that t.Helper
// makes each failure point at the line of the author's test that called
// Check, never at the kit.
type reporter struct {
	t      testing.TB
	prefix string // the game and its option
	max    int

	mu     sync.Mutex
	counts map[string]int
	shown  []string // the messages kept, in the order they came
}

func (r *reporter) failf(rule, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[rule]++
	if r.counts[rule] <= r.max {
		r.shown = append(r.shown, fmt.Sprintf("%s: %s: %s", r.prefix, rule, fmt.Sprintf(format, args...)))
	}
}

// flush reports the failures kept, then how many of each rule were not
// shown. Called from Check (or CheckPosition), in its caller's goroutine.
func (r *reporter) flush() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.shown {
		r.t.Errorf("%s", m)
	}
	r.shown = nil
	rules := make([]string, 0, len(r.counts))
	for rule, n := range r.counts {
		if n > r.max {
			rules = append(rules, rule)
		}
	}
	sort.Strings(rules)
	for _, rule := range rules {
		r.t.Errorf("%s: %s: %d more failures not shown (Options.MaxFailures is %d)", r.prefix, rule, r.counts[rule]-r.max, r.max)
	}
	clear(r.counts)
}

// failed reports whether a rule failed.
func (r *reporter) failed(rule string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[rule] > 0
}

// at names position p of tier t: its text form, the tier's number and
// name, and the hash, e.g. `xx-/oo-/--- (tier 4 "4 pieces", hash 51)`.
// A Format or TierName that panics is named as such.
func (c *checker) at(t tiergame.Tier, p tiergame.Position) string {
	return fmt.Sprintf("%s (tier %d %q, hash %d)", c.text(t, p), t, c.tierName(t), p)
}

// text is g.Format(t, p), or what its panic said.
func (c *checker) text(t tiergame.Tier, p tiergame.Position) (s string) {
	defer func() {
		if e := recover(); e != nil {
			s = fmt.Sprintf("<Format panicked: %v>", e)
		}
	}()
	return c.g.Format(t, p)
}

// tierName is the tier's name, from the tier graph if it is there.
func (c *checker) tierName(t tiergame.Tier) (s string) {
	if ti := c.graph.info[t]; ti != nil {
		return ti.name
	}
	defer func() {
		if e := recover(); e != nil {
			s = fmt.Sprintf("<TierName panicked: %v>", e)
		}
	}()
	return c.g.TierName(t)
}

// failAt reports a failure of a rule at position p of tier t.
func (c *checker) failAt(rule string, t tiergame.Tier, p tiergame.Position, format string, args ...any) {
	c.rep.failf(rule, "%s: %s", c.at(t, p), fmt.Sprintf(format, args...))
}

// guard runs f, reporting a panic in it at position p of tier t; it
// returns false after a panic.
func (c *checker) guard(t tiergame.Tier, p tiergame.Position, what string, f func()) (ok bool) {
	defer func() {
		if e := recover(); e != nil {
			c.failAt(rulePanic, t, p, "%s panicked: %v", what, e)
			ok = false
		}
	}()
	f()
	return true
}

// guardGame runs f, reporting a panic in it; it returns false after a
// panic.
func (c *checker) guardGame(what string, f func()) (ok bool) {
	defer func() {
		if e := recover(); e != nil {
			c.rep.failf(rulePanic, "%s panicked: %v", what, e)
			ok = false
		}
	}()
	f()
	return true
}

// children names a list of children in text form, at most a few.
func (c *checker) children(cs []tiergame.Child) string {
	const most = 6
	s := "["
	for i, ch := range cs {
		if i == most {
			s += fmt.Sprintf(" ... %d more", len(cs)-most)
			break
		}
		if i > 0 {
			s += " "
		}
		s += c.child(ch)
	}
	return s + "]"
}

// child names one child.
func (c *checker) child(ch tiergame.Child) string {
	return fmt.Sprintf("%s (tier %d, hash %d)", c.text(ch.Tier, ch.Pos), ch.Tier, ch.Pos)
}

// positions names a list of positions of tier t in text form.
func (c *checker) positions(t tiergame.Tier, ps []tiergame.Position) string {
	cs := make([]tiergame.Child, len(ps))
	for i, p := range ps {
		cs[i] = tiergame.Child{Tier: t, Pos: p}
	}
	return c.children(cs)
}
