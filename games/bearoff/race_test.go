//go:build race

package bearoff

// raceEnabled is set when the race detector is on: the comparisons with
// gnubg's databases run in .ci/run's step without it.
const raceEnabled = true
