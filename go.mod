module github.com/tiersolve/tiersolve

go 1.26.8

require (
	github.com/bits-and-blooms/bitset v1.29.0
	github.com/google/renameio/v2 v2.0.2
	github.com/klauspost/compress v1.20.3
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)
