package suites

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tiersolve/tiersolve/bench/internal/harness"
	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// uniGroup is serve/gamesmanuni: GamesmanUni, built from its own source
// with its base URL at 127.0.0.1:18765, in headless Chromium against
// tierd serve; skipped without its dist/ folder.
func uniGroup(cfg harness.Config) harness.Group {
	skip := ""
	if cfg.GamesmanUni == "" {
		skip = "no GamesmanUni build (give --gamesmanuni DIST)"
	} else if _, err := os.Stat(filepath.Join(cfg.GamesmanUni, "index.html")); err != nil {
		skip = "no GamesmanUni build: " + err.Error()
	}
	return harness.Group{ID: "serve/gamesmanuni", Table: "browser", Title: "GamesmanUni in headless Chromium against tierd serve",
		Level: harness.Explicit, Skip: skip, Once: true, Estimate: 3 * time.Minute,
		Variants: []harness.Variant{{Name: "gamesmanuni", Kind: results.KindSubject, Job: harness.NewJob("gamesmanuni", struct{}{})}}}
}

func runGamesmanUni(ctx context.Context, env harness.JobEnv, raw json.RawMessage) (harness.Sample, error) {
	return harness.Sample{}, errors.New("not yet")
}
