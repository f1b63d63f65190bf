package memsize

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want uint64
	}{{"", 0}, {"123", 123}, {"16GiB", 16 << 30}, {"512MB", 512e6}, {"2G", 2 << 30}, {"1.5KiB", 1536}} {
		if got, err := Parse(tt.s); err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tt.s, got, err, tt.want)
		}
	}
	for _, bad := range []string{"x", "-1G", "0", "GiB", "1e30T"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if Format(3<<30) != "3.0 GiB" || Format(5<<20) != "5.0 MiB" || Format(10) != "10 bytes" {
		t.Error("Format")
	}
	if DefaultBudget() == 0 {
		t.Error("DefaultBudget is 0")
	}
}

// TestLimits: MemTotal of a meminfo file, and a cgroup's memory limit (v2
// "max" and v1's unlimited value are none).
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if got := memTotal(write("meminfo", "MemTotal:       24576000 kB\nMemFree: 1 kB\n")); got != 24576000*1024 {
		t.Errorf("memTotal: %d", got)
	}
	for _, tc := range []struct {
		content string
		want    uint64
	}{
		{"8589934592\n", 8 << 30}, {"max\n", 0}, {"9223372036854771712\n", 0}, {"", 0}, {"junk", 0},
	} {
		if got := cgroupLimit(write("limit", tc.content)); got != tc.want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", tc.content, got, tc.want)
		}
	}
	if memTotal(filepath.Join(dir, "none")) != 0 || cgroupLimit(filepath.Join(dir, "none")) != 0 {
		t.Error("a missing file is not 0")
	}
	if b := DefaultBudget(); b == 0 {
		t.Error("DefaultBudget is 0")
	}
}

// TestReadResident: this process's resident set, on Linux, is positive and
// at most its peak.
func TestReadResident(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/status is Linux's")
	}
	r := ReadResident()
	if r.RSS == 0 || r.Peak < r.RSS || r.File > r.RSS {
		t.Errorf("%+v", r)
	}
}

// TestReadResidentOf: a child's peak is its own program's, not the
// resident set of the parent it was started from (which Linux carries
// into the child's rusage Maxrss over the exec).
func TestReadResidentOf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/status is Linux's")
	}
	big := make([]byte, 128<<20)
	for i := range big {
		big[i] = 1
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var r Resident
	for range 100 { // until the child has run exec
		if r = ReadResidentOf(cmd.Process.Pid); r.Peak != 0 && r.Peak < 64<<20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r.Peak == 0 || r.Peak >= 64<<20 || r.Peak < r.RSS {
		t.Errorf("sleep's resident set %+v beside a parent holding %d MiB", r, len(big)>>20)
	}
	runtime.KeepAlive(big)
	if got := ReadResidentOf(1 << 30); got != (Resident{}) {
		t.Errorf("a process that does not exist: %+v", got)
	}
}
