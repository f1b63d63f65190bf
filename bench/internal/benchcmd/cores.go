package benchcmd

import "runtime"

// runtimeCores is the number of CPUs the scaling suite goes up to.
func runtimeCores() int { return runtime.NumCPU() }
