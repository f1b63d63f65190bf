//go:build race

package state

// raceEnabled is set when the race detector is on: the longest model
// comparison shrinks then, and .ci/run runs it whole without it.
const raceEnabled = true
