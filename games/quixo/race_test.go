//go:build race

package quixo

const raceEnabled = true
