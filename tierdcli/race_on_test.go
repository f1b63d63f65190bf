//go:build race

package tierdcli

// raceEnabled is set when the race detector is on: the processes of the
// test binary run as tierd are then built with it too, so the heaviest
// process tests skip or shrink (see their tests; .ci/run runs them whole
// without it).
const raceEnabled = true
