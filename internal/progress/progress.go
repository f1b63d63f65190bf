// Package progress shows how far a long operation has got: redrawn in
// place on a terminal, logged through slog at intervals otherwise.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Meter tracks one operation. It is safe for concurrent use; a nil *Meter
// does nothing, so callers need no checks.
type Meter struct {
	mu       sync.Mutex
	w        io.Writer // a terminal, or nil to log instead
	log      *slog.Logger
	what     string
	unit     string
	total    int64
	done     int64
	extra    string
	start    time.Time
	last     time.Time
	interval time.Duration
}

// New starts a meter for what (e.g. "merge"), counting in unit up to total
// (0 if unknown). It draws on w when w is a terminal, else logs to log
// every 10 seconds.
func New(w io.Writer, log *slog.Logger, what string, total int64, unit string) *Meter {
	m := &Meter{log: log, what: what, unit: unit, total: total, start: time.Now(), interval: 10 * time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		m.w = w
		m.interval = 200 * time.Millisecond
	}
	m.last = m.start
	return m
}

// Add counts n more units done.
func (m *Meter) Add(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.done += n
	m.maybeShow(false)
	m.mu.Unlock()
}

// Set sets the units done and a free-form detail shown after the count.
func (m *Meter) Set(done int64, detail string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.done, m.extra = done, detail
	m.maybeShow(false)
	m.mu.Unlock()
}

// Detail sets the free-form detail shown after the count, keeping the
// count: how far the current unit (a tier of a billion positions) has got.
func (m *Meter) Detail(detail string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.extra = detail
	m.maybeShow(false)
	m.mu.Unlock()
}

// Finish shows the final state and ends the line on a terminal.
func (m *Meter) Finish() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maybeShow(true)
	if m.w != nil {
		fmt.Fprintln(m.w)
	}
}

func (m *Meter) maybeShow(final bool) {
	now := time.Now()
	if !final && now.Sub(m.last) < m.interval {
		return
	}
	m.last = now
	elapsed := now.Sub(m.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(m.done) / elapsed
	}
	count := fmt.Sprintf("%d %s", m.done, m.unit)
	if m.total > 0 {
		count = fmt.Sprintf("%d/%d %s (%.0f%%)", m.done, m.total, m.unit, 100*float64(m.done)/float64(m.total))
	}
	if m.w != nil {
		fmt.Fprintf(m.w, "\r\033[K%s: %s, %s/s %s", m.what, count, human(rate), m.extra)
		return
	}
	if m.log != nil && (!final || elapsed >= m.interval.Seconds()) {
		m.log.Info(m.what, "done", m.done, "total", m.total, "unit", m.unit, "per_second", int64(rate), "detail", m.extra)
	}
}

// human prints a rate with a metric prefix.
func human(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("%.2fG", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.1fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}
