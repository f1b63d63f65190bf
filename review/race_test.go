//go:build race

package review

// raceEnabled is set when the race detector is on: the reviews against
// 6-checker runs run in .ci/run's step without it.
const raceEnabled = true
