package coordinator

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/coordinator/internal/state"
	"github.com/tiersolve/tiersolve/solver/plan"
)

//go:embed status.html
var statusHTML string

// statusPage is the one-page HTML view at /: runs, the tiers of the most
// recent running run, workers and throughput. It refreshes itself.
var statusPage = template.Must(template.New("status").Funcs(template.FuncMap{
	"pct": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return 100 * a / b
	},
	"commas": commas,
	"bytes":  plan.BytesString,
	"int":    func(f float64) uint64 { return uint64(f) },
	"secs": func(s float64) string {
		return (time.Duration(s * float64(time.Second))).Round(100 * time.Millisecond).String()
	},
	"ago": func(t time.Time) string { return time.Since(t).Round(time.Second).String() + " ago" },
	"units": func(us []*api.Unit) string {
		if us == nil {
			return "–"
		}
		return fmt.Sprintf("%d/%d", api.CountDone(us), len(us))
	},
}).Parse(statusHTML))

// statusView is what the page shows.
type statusView struct {
	*api.StatusResponse
	Node, State, Now string
	Rate             string
	Threads, Running int
	Focus            *api.Run
}

// commas writes n with thousands separators.
func commas(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// handleStatusPage serves the page from the leader (a follower forwards),
// or this node's own view when there is no leader.
func (n *Node) handleStatusPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := n.leader(); ok && !n.IsLeader() && r.Header.Get(headerForwarded) == "" {
		n.leaderOnly(n.renderStatus)(w, r)
		return
	}
	n.renderStatus(w, r)
}

func (n *Node) renderStatus(w http.ResponseWriter, r *http.Request) {
	v := statusView{StatusResponse: n.status(), Node: n.cfg.ID, State: n.raft.State().String(),
		Now: time.Now().UTC().Format("2006-01-02 15:04:05 UTC")}
	rate := 0.0
	for _, wk := range v.Workers {
		rate += wk.Rate
		v.Threads += wk.Threads
	}
	v.Rate = commas(uint64(rate))
	n.fsm.View(func(s *state.State, _ uint64) {
		for _, run := range s.Runs {
			if run.State == api.Running {
				v.Running++
			}
		}
		// The tiers of the newest running run, else of the newest run.
		for i := len(s.Runs) - 1; i >= 0 && v.Focus == nil; i-- {
			if s.Runs[i].State == api.Running {
				v.Focus = s.Runs[i].View()
			}
		}
		if v.Focus == nil && len(s.Runs) > 0 {
			v.Focus = s.Runs[len(s.Runs)-1].View()
		}
	})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statusPage.Execute(w, v); err != nil {
		n.log.Warn("status page", "error", err)
	}
}
