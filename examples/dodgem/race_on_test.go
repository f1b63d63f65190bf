//go:build race

package dodgem_test

// raceEnabled is set when the race detector is on: the 4x4 comparison
// with the naive solver, a minute with it, is skipped then, and the kit
// checks fewer positions of 5x5 (.ci/run runs both whole without the race
// detector).
//
// Its tests import only what an outside author can (see its imports
// test), so it keeps this flag rather than internal/race.
const raceEnabled = true
