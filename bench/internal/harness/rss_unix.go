//go:build unix

package harness

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is the maximum resident set size of a finished process in
// bytes, or 0 when the system does not say.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	// ru_maxrss is in kilobytes on Linux and the BSDs, in bytes on macOS.
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
