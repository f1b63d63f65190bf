//go:build race

package main

// raceEnabled skips the tests that measure memory, which the race
// detector's shadow memory would swamp.
const raceEnabled = true
