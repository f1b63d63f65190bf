//go:build race

package tierdcli

// raceEnabled is set when the race detector is on: the heaviest process
// tests skip then, and .ci/run runs them without it.
const raceEnabled = true
