//go:build race

package teeko_test

const raceEnabled = true
