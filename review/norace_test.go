//go:build !race

package review

const raceEnabled = false
