//go:build unix

package harness

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is the maximum resident set size of a finished process in
// bytes, or 0 when the system does not say. On Linux it is at least the
// harness's own resident set when it started the process: the child
// shares the parent's address space (vfork) until exec, and Linux counts
// it. A job's child reports its own VmHWM instead (childResult); an
// outside program (a peer) has only this.
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

// CPUSeconds is the user and system CPU time this process has used so
// far: a job takes the difference around what it measures.
func CPUSeconds() float64 { return rusageSeconds(syscall.RUSAGE_SELF) }

// ChildrenCPUSeconds is the user and system CPU time of this process's
// finished and waited-for children so far: a job that runs outside
// programs takes the difference around them.
func ChildrenCPUSeconds() float64 { return rusageSeconds(syscall.RUSAGE_CHILDREN) }

// rusageSeconds is the user and system CPU time getrusage(who) reports,
// or 0 when it fails.
func rusageSeconds(who int) float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
