//go:build race

package levelfile

// raceEnabled scales the heaviest tests down under the race detector,
// which slows this package's bit twiddling by an order of magnitude; the
// plain test run keeps the full sizes.
const raceEnabled = true
