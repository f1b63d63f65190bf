package serve

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "serve-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testMainDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
