//go:build race

package teeko_test

// raceEnabled is set when the race detector is on: the comparisons with
// GamesmanOne's analysis shrink or are skipped then, and .ci/run runs
// them whole without it.
const raceEnabled = true
