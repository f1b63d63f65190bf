//go:build !unix

package harness

import "os"

// peakRSS is unknown (0) where the system has no getrusage.
func peakRSS(*os.ProcessState) int64 { return 0 }
