// Package bench holds the project's benchmarks (in its _test.go files) and,
// in its subfolders, the naive baselines they compare with and a harness
// that runs whole jobs in child processes to report their peak memory.
// README.md in this folder says how to run each and what the numbers mean.
package bench
