// Package memsize reads and prints memory sizes ("16GiB") and finds the
// machine's memory, for the --memory budgets of the commands.
package memsize

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Parse parses "", "123", "16GiB", "512MB", "2G" ("" is 0: no budget given).
func Parse(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mult   uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	num, mult := s, uint64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = rest, u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 || f*float64(mult) >= 1<<64 {
		return 0, fmt.Errorf("memory size %q: want a size like 16GiB", s)
	}
	return uint64(f * float64(mult)), nil
}

// Format prints a byte count in GiB, MiB or bytes.
func Format(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// DefaultBudget is 80% of the machine's memory (MemTotal in
// /proc/meminfo), or of the container's memory limit (its cgroup's) when
// that is lower, or 4 GiB where neither can be read.
func DefaultBudget() uint64 {
	total := memTotal("/proc/meminfo")
	for _, path := range cgroupLimits {
		if limit := cgroupLimit(path); limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	if total == 0 {
		return 4 << 30
	}
	return total / 10 * 8
}

// cgroupLimits are the files of this process's memory limit: cgroup v2,
// then v1, as a container sees its own cgroup.
var cgroupLimits = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// memTotal is MemTotal of a meminfo file in bytes, or 0.
func memTotal(path string) uint64 { return kBFields(path, "MemTotal")["MemTotal"] }

// kBFields reads the fields named keys of a /proc file of "Key: N kB"
// lines, in bytes; those it cannot read are missing.
func kBFields(path string, keys ...string) map[string]uint64 {
	out := map[string]uint64{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(keys, key) {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err == nil {
			out[key] = kb * 1024
		}
	}
	return out
}

// Resident is a process's memory as the system counts it.
type Resident struct {
	// RSS is its resident set now, Peak the largest it has been (what
	// GNU time reports as its maximum resident set size), File the part
	// of RSS mapped from files: the program's code and data.
	RSS, Peak, File uint64
}

// ReadResident reads this process's Resident from /proc/self/status
// (Linux); elsewhere it is zero.
func ReadResident() Resident {
	return readResident("/proc/self/status")
}

// ReadResidentOf reads the Resident of the process pid (Linux); it is
// zero elsewhere or when the process is gone. Its Peak is that of the
// program the process runs now: unlike the rusage's Maxrss, it does not
// carry the parent's resident set over an exec (Linux counts the
// address space the process had before exec, which a vfork shares with
// its parent, into Maxrss).
func ReadResidentOf(pid int) Resident {
	return readResident("/proc/" + strconv.Itoa(pid) + "/status")
}

func readResident(path string) Resident {
	m := kBFields(path, "VmRSS", "VmHWM", "RssFile")
	return Resident{RSS: m["VmRSS"], Peak: m["VmHWM"], File: m["RssFile"]}
}

// cgroupLimit is the memory limit in a cgroup file in bytes, or 0 for
// none ("max", v1's huge "unlimited" value, or no file).
func cgroupLimit(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n >= 1<<60 {
		return 0
	}
	return n
}
