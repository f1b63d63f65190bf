//go:build race

package dshogi_test

// raceEnabled is set when the race detector is on: the exhaustive
// conformance checks and the larger reference comparisons shrink then
// (the race detector made them minutes long on 2 cores), and .ci/run
// runs them whole without it.
//
// Its tests import only what an outside author can (see its imports
// test), so it keeps this flag rather than internal/race.
const raceEnabled = true
