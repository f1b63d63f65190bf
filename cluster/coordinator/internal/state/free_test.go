package state

import (
	"slices"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/cluster/api"
)

// TestFreeUnits: the units that may be leased are those neither leased
// nor done, in running runs, reach units first (parents first), then
// solve units (children first).
func TestFreeUnits(t *testing.T) {
	units := func() []*Unit {
		return []*Unit{{}, {Lease: &Lease{Token: 7}}, {Done: &Completion{Token: 5}}, {}}
	}
	s := &State{Runs: []*Run{
		{ID: "r1", Format: Format, State: api.Running, Tiers: []*Tier{{Tier: 0, Reach: units()}, {Tier: 1, Solve: units()}}},
		{ID: "r2", Format: Format, State: api.Done, Tiers: []*Tier{{Reach: units()}}},
		// Created by a coordinator of an earlier format: failed, not leased.
		{ID: "r3", State: api.Running, Tiers: []*Tier{{Tier: 0, Reach: units()}}},
	}}
	got := slices.Collect(s.Free(Taker{}))
	want := []api.UnitRef{unitRef("r1", 0, api.PhaseReach, 0), unitRef("r1", 0, api.PhaseReach, 3), unitRef("r1", 1, api.PhaseSolve, 0), unitRef("r1", 1, api.PhaseSolve, 3)}
	if !slices.Equal(got, want) {
		t.Errorf("Free = %v, want %v", got, want)
	}
	if n := s.CountFree(); n != 4 {
		t.Errorf("CountFree = %d, want 4", n)
	}
	if ref, ok := s.Pick(Taker{Worker: "w"}); !ok || ref != want[0] {
		t.Errorf("Pick = %v %v, want %v", ref, ok, want[0])
	}
	if runs, reasons := s.Outdated(); !slices.Equal(runs, []string{"r3"}) || !strings.Contains(reasons[0], "format 0") {
		t.Errorf("Outdated = %v %q, want r3, format 0", runs, reasons)
	}
	for _, task := range s.Tasks() {
		if task.Run == "r3" {
			t.Errorf("a task %v of the outdated run", task)
		}
	}
}

// TestFreeUnitsOfGames: a worker that names its games is leased only units
// of their runs.
func TestFreeUnitsOfGames(t *testing.T) {
	s := &State{Runs: []*Run{
		{ID: "r1", Format: Format, Game: "a", State: api.Running, Tiers: []*Tier{{Tier: 0, Reach: []*Unit{{}}}}},
		{ID: "r2", Format: Format, Game: "b", State: api.Running, Tiers: []*Tier{{Tier: 0, Reach: []*Unit{{}}}}},
	}}
	for _, tc := range []struct {
		games []string
		want  []string // runs
	}{
		{nil, []string{"r1", "r2"}},
		{[]string{"b"}, []string{"r2"}},
		{[]string{"b", "a"}, []string{"r1", "r2"}},
		{[]string{"c"}, nil},
	} {
		var got []string
		for ref := range s.Free(Taker{Games: tc.games}) {
			got = append(got, ref.Run)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Free(games %q) = runs %q, want %q", tc.games, got, tc.want)
		}
	}
}

// TestLiveTiers checks which tiers a worker is told it may still need: a
// tier is live until it and all its parents are solved.
func TestLiveTiers(t *testing.T) {
	done := []*Unit{{Done: &Completion{}}}
	pending := []*Unit{{}}
	// 0 -> 1 -> 2, and 0 -> 2.
	tiers := func(solve0, solve1, solve2 []*Unit) *Run {
		return &Run{Format: Format, Tiers: []*Tier{
			{Tier: 0, Children: []uint64{1, 2}, Solve: solve0},
			{Tier: 1, Parents: []uint64{0}, Children: []uint64{2}, Solve: solve1},
			{Tier: 2, Parents: []uint64{0, 1}, Solve: solve2},
		}}
	}
	for _, tc := range []struct {
		name string
		run  *Run
		want []uint64
	}{
		{"nothing solved", tiers(nil, nil, nil), []uint64{0, 1, 2}},
		{"the last tier solved", tiers(nil, nil, done), []uint64{0, 1, 2}},
		{"tier 1 solving", tiers(nil, pending, done), []uint64{0, 1, 2}},
		{"tier 1 solved", tiers(nil, done, done), []uint64{0, 1, 2}},
		{"tier 0 solving", tiers(pending, done, done), []uint64{0, 1, 2}},
		{"all solved", tiers(done, done, done), nil},
	} {
		if got := tc.run.liveTiers(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: live %v, want %v", tc.name, got, tc.want)
		}
	}
	// A chain 0 -> 1 -> 2: tier 2 leaves once 1 is solved.
	r := &Run{Format: Format, Tiers: []*Tier{
		{Tier: 0, Children: []uint64{1}, Solve: pending},
		{Tier: 1, Parents: []uint64{0}, Children: []uint64{2}, Solve: done},
		{Tier: 2, Parents: []uint64{1}, Solve: done, DB: &DB{}},
	}}
	if got := r.liveTiers(); !slices.Equal(got, []uint64{0, 1}) {
		t.Errorf("chain: live %v, want [0 1]", got)
	}
}
