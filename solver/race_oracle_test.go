//go:build race

package solver

// oracleRace is set when the race detector is on; the largest reference
// comparisons are skipped then.
const oracleRace = true
