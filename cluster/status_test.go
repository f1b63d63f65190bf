package cluster

import (
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusPage: the page lists the run, its tiers and the workers; and
// looked at as a picture in headless Chromium it shows the green "done"
// badge and progress bars. Chromium is the Debian package; without it the
// picture check is skipped, unless TIERD_REQUIRE_CHROMIUM=1 (as in CI).
func TestStatusPage(t *testing.T) {
	c, _, id := solvedCluster(t, "tictactoe", "", "worker-one")
	// Ask a follower: it forwards to the leader, which knows the workers.
	follower := 0
	for i, n := range c.nodes {
		if !n.IsLeader() {
			follower = i
		}
	}
	url := "http://" + c.members[follower].HTTPAddr + "/"
	req, _ := http.NewRequest("GET", url, nil)
	req.SetBasicAuth("tierd", testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	for _, want := range []string{id, "tictactoe", `class="badge done"`, "worker-one", "9 pieces", "tie in 9", "5,478"} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(page)
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("TIERD_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium is required (TIERD_REQUIRE_CHROMIUM=1) but not installed")
		}
		t.Skip("no chromium: the picture check needs Debian's chromium package")
	}
	shot := filepath.Join(t.TempDir(), "status.png")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,900", "--screenshot="+shot,
		strings.Replace(url, "http://", "http://tierd:"+testToken+"@", 1))
	if out, err := cmd.CombinedOutput(); err != nil {
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
	// Count the pixels of the badge and bar colours: a page that did not
	// render (a 401, an error text) has none.
	near := func(r, g, b uint32, want [3]uint32) bool {
		d := func(a, b uint32) uint32 {
			if a > b {
				return a - b
			}
			return b - a
		}
		return d(r>>8, want[0]) < 12 && d(g>>8, want[1]) < 12 && d(b>>8, want[2]) < 12
	}
	green, blue := [3]uint32{0x2f, 0x9e, 0x6a}, [3]uint32{0x2d, 0x6f, 0xd6}
	var greens, blues int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, g, bl, green) {
				greens++
			}
			if near(r, g, bl, blue) {
				blues++
			}
		}
	}
	if greens < 500 || blues < 500 {
		t.Errorf("the screenshot shows %d green and %d blue pixels; want the done badge and the progress bars (%s)", greens, blues, shot)
	}
}
