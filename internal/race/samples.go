package race

import "testing"

// Samples returns how much work a test does (positions, seeds, tiers):
// short under -short or the race detector, which slows such loops some
// tenfold, and full otherwise. Call it from tests only, after the flags
// are parsed.
func Samples(full, short int) int {
	if testing.Short() || Enabled {
		return short
	}
	return full
}
