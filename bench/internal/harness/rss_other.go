//go:build !unix

package harness

import "os"

// peakRSS is unknown (0) where the system has no getrusage.
func peakRSS(*os.ProcessState) int64 { return 0 }

// CPUSeconds is 0: this system's process CPU time is not read here.
func CPUSeconds() float64 { return 0 }

// ChildrenCPUSeconds is 0: this system's process CPU time is not read here.
func ChildrenCPUSeconds() float64 { return 0 }
