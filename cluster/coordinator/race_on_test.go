//go:build race

package coordinator

// raceEnabled is set when the race detector is on: the heaviest runs
// shrink then, and .ci/run runs them whole without it.
const raceEnabled = true
