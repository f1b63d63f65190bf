// Package testchrome runs Debian's chromium for the tests of web pages
// (the cluster's status page, tierd serve's page).
package testchrome

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
)

// Path returns the path of chromium. Without it the test is skipped
// (need says what needs it), unless TIERD_REQUIRE_CHROMIUM=1 (as in CI):
// then it fails.
func Path(t testing.TB, need string) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("TIERD_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium is required (TIERD_REQUIRE_CHROMIUM=1) but not installed")
		}
		t.Skip("no chromium: " + need + " Debian's chromium package")
	}
	return path
}

// Screenshot has chromium (at path chromium) take a 1280x900 picture of
// the page at u into the PNG file shot, with the extra flags, and returns
// it decoded.
func Screenshot(t testing.TB, chromium, shot, u string, extra ...string) image.Image {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,900"}
	args = append(args, extra...)
	args = append(args, "--screenshot="+shot, u)
	if out, err := exec.Command(chromium, args...).CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 900 {
		t.Fatalf("screenshot is %v", b)
	}
	return img
}
