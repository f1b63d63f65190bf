//go:build !race

package dodgem_test

// raceEnabled is set when the race detector is on.
const raceEnabled = false
