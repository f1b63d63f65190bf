package tierdcli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiersolve/tiersolve/internal/atomicfile"
)

// A full disk during tierd solve: the run fails with one line naming the
// file it could not write and the cause, and once there is room again the
// same command resumes and ends with the bytes of an undisturbed run.

// Simulated: every write through atomicfile fails with ENOSPC after a
// budget, at several points of the run.
func TestSolveOnFullDisk(t *testing.T) {
	const game, option = "connect4", "width=4,height=4"
	ref, _ := solvedRun(t, game, option)
	for _, budget := range []int64{0, 10 << 10, 40 << 10} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"solve", "--game", game, "--option", option, "--out", dir, "--workers", "2"}
			restore := atomicfile.FillDiskAfter(budget)
			code, _, stderr := tierd(t, args...)
			restore()
			if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, dir) {
				t.Fatalf("solve on a full disk: exit %d, %q; want exit 1 and one line naming a file and ENOSPC", code, stderr)
			}
			if code, _, stderr := tierd(t, args...); code != 0 {
				t.Fatalf("resume with room again: exit %d: %s", code, stderr)
			}
			sameResults(t, ref, dir)
		})
	}
}

// Real: a 64 KiB tmpfs in a private mount namespace (unshare, where the
// kernel allows unprivileged user namespaces; skipped elsewhere), grown
// to 64 MiB for the resume.
func TestSolveOnFullTmpfs(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	const game, option = "connect4", "width=4,height=4"
	ref, _ := solvedRun(t, game, option)
	mnt, out := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	script := `mount -t tmpfs -o size=64k tmpfs "$MNT" || exit 99
"$BIN" solve --game ` + game + ` --option ` + option + ` --out "$MNT/run" --workers 2; echo "first exit $?" >&2
mount -o remount,size=64m "$MNT" || exit 99
"$BIN" solve --game ` + game + ` --option ` + option + ` --out "$MNT/run" --workers 2 >/dev/null || exit 98
cp -r "$MNT/run" "$OUT"`
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script)
	cmd.Env = append(os.Environ(), envMain+"=1", "MNT="+mnt, "OUT="+out, "BIN="+os.Args[0])
	b, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code == 99 || code != 0 && strings.Contains(string(b), "unshare:") {
		t.Skipf("no tmpfs in a user namespace here: %s", b)
	}
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var lines []string // stderr without the log records
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "time=") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || lines[1] != "first exit 1" || !strings.Contains(lines[0], "no space left on device") || !strings.Contains(lines[0], mnt) {
		t.Fatalf("solve on a full tmpfs: %q; want one line naming a file with ENOSPC, and exit 1", lines)
	}
	t.Logf("on a full tmpfs: %s", lines[0])
	sameResults(t, ref, out)
}
