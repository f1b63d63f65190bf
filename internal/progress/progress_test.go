package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLogsWhenNotATerminal(t *testing.T) {
	var logs, out bytes.Buffer
	m := New(&out, slog.New(slog.NewTextHandler(&logs, nil)), "merge", 4, "files")
	m.interval = 0 // log every update
	m.Add(1)
	m.Set(3, "12 MB read")
	m.Detail("file 4: 1 MB read")
	m.Finish()
	if out.Len() != 0 {
		t.Errorf("wrote to a non-terminal: %q", out.String())
	}
	if !strings.Contains(logs.String(), "done=3") || !strings.Contains(logs.String(), "12 MB read") ||
		!strings.Contains(logs.String(), `done=3 total=4 unit=files per_second=`) || !strings.Contains(logs.String(), `detail="file 4: 1 MB read"`) {
		t.Errorf("logs: %q", logs.String())
	}
	var nilMeter *Meter
	nilMeter.Add(1) // a nil meter does nothing
	nilMeter.Detail("x")
	nilMeter.Finish()
}

func TestHuman(t *testing.T) {
	for x, want := range map[float64]string{5: "5", 1500: "1.5k", 2.5e6: "2.50M", 3e9: "3.00G"} {
		if got := human(x); got != want {
			t.Errorf("human(%g) = %q, want %q", x, got, want)
		}
	}
	_ = time.Second
}
