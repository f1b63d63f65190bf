//go:build race

// Package race tells whether the program was built with the race
// detector, so that tests can shrink work the detector makes too slow.
package race

// Enabled is true: the program was built with -race.
const Enabled = true
