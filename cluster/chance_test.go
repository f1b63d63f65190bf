package cluster

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestChanceGameRefused: a game with dice is refused at submit, with a
// clear error, rather than solved as if it had none.
func TestChanceGameRefused(t *testing.T) {
	c := startCluster(t, 3, 5*time.Second)
	_, err := c.client().Submit(context.Background(), SubmitRequest{Game: "bearoff", Option: "checkers=2,points=2"})
	if err == nil || !strings.Contains(err.Error(), "chance") {
		t.Fatalf("submit bearoff: %v", err)
	}
}
