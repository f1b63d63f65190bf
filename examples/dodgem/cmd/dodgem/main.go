// Command dodgem is tierd with Dodgem added to the bundled games: every
// command of tierd, the cluster's included (dodgem solve --game dodgem).
package main

import (
	"github.com/tiersolve/tiersolve/examples/dodgem"
	"github.com/tiersolve/tiersolve/games"
	"github.com/tiersolve/tiersolve/tierdcli"
)

func main() {
	tierdcli.Main(games.Default().With(dodgem.Spec))
}
