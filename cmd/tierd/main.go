// Command tierd runs tier-solving jobs: reachability (level files) and
// solving (value databases) of the bundled games on this machine or on a
// cluster, and queries and verification of the results. It is
// tierdcli with the bundled games; a program of one's own games is the
// same few lines with games.Default().With(...).
package main

import (
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tierdcli"
)

func main() { tierdcli.Main(games.Default()) }
