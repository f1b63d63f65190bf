//go:build !race

package levelfile

// raceEnabled: see race_on_test.go.
const raceEnabled = false
