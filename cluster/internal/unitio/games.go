package unitio

import (
	"fmt"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/tiergame/quotient"
	"sync"
)

// Games builds each game variant once: building one can cost (tables,
// tier sizes) and games are safe for concurrent use.
type Games struct {
	newGame func(name, option string) (tiergame.Game, error)
	mu      sync.Mutex
	m       map[string]tiergame.Game // by name, option and symmetry
}

// NewGames returns a cache of the games newGame builds (games.New).
func NewGames(newGame func(name, option string) (tiergame.Game, error)) *Games {
	return &Games{newGame: newGame, m: map[string]tiergame.Game{}}
}

// Get returns the game, or with symmetry its quotient (quotient.Reduce): a
// symmetric run's units and merges work on canonical positions.
func (c *Games) Get(name, option string, symmetry bool) (tiergame.Game, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := fmt.Sprintf("%s\x00%s\x00%v", name, option, symmetry)
	if g, ok := c.m[key]; ok {
		return g, nil
	}
	g, err := c.newGame(name, option)
	if err != nil {
		return nil, err
	}
	if g, err = quotient.Reduce(g, symmetry); err != nil {
		return nil, err
	}
	c.m[key] = g
	return g, nil
}
