// Package memsize reads and prints memory sizes ("16GiB") and finds the
// machine's memory, for the --memory budgets of the commands.
package memsize

import (
	"bufio"
	"fmt"
	"os"
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
// /proc/meminfo), or 4 GiB where that cannot be read.
func DefaultBudget() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 4 << 30
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024 / 10 * 8
			}
		}
	}
	return 4 << 30
}
