package harness

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/tiersolve/tiersolve/bench/internal/results"
)

// ThisMachine describes the machine and the checkout at root (the
// module's folder; "" leaves the commit unknown). What the system does
// not say is left empty.
func ThisMachine(root string) results.Machine {
	m := results.Machine{
		CPUModel:  cpuModel(),
		Cores:     runtime.NumCPU(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		GoVersion: runtime.Version(),
		LoadStart: LoadAverage(),
	}
	m.MemoryBytes = memTotal()
	if root != "" {
		if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
			m.Commit = strings.TrimSpace(string(out))
		}
		if out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
			m.Dirty = len(bytes.TrimSpace(out)) > 0
		}
	}
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		return v
	}
	return runtime.GOARCH
}

// memTotal is MemTotal of /proc/meminfo in bytes.
func memTotal() uint64 {
	f := strings.Fields(procField("/proc/meminfo", "MemTotal"))
	if len(f) == 0 {
		return 0
	}
	kb, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// procField returns the value after "key:" on the first line of a
// /proc file that starts with key.
func procField(name, key string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// LoadAverage is the 1-minute load average, or 0 where unknown.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

// ModuleRoot is the folder holding go.mod at or above the current
// folder, or "".
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
