//go:build !race

package xiangqi

// raceEnabled is set when the race detector is on: the exhaustive checks
// shrink then, and .ci/run runs them whole without it.
const raceEnabled = false
