//go:build !race

package connect4

const raceEnabled = false
