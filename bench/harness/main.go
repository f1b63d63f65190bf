// Command harness is the old name of the benchmark command, kept as an
// alias: `go run ./bench/harness ARGS` is `go run ./bench ARGS`.
package main

import (
	"os"

	"github.com/tiersolve/tiersolve/bench/internal/benchcmd"
	"github.com/tiersolve/tiersolve/bench/internal/suites"
)

func main() {
	os.Exit(benchcmd.Main(os.Args[1:], suites.All(), os.Stdout, os.Stderr))
}
