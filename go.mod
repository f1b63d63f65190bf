module github.com/tiersolve/tiersolve

go 1.26.8

require github.com/google/renameio/v2 v2.0.2
