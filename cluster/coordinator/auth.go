package coordinator

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tiersolve/tiersolve/cluster/api"
	"github.com/tiersolve/tiersolve/cluster/internal/wire"
)

// A scope is what a token may do. The admin token (NodeConfig.Token) may
// do everything; the worker token what a worker does (lease, heartbeat,
// complete, release, upload and download blobs); the read token what
// tierd status and tierd fetch read (the status page, /v1/status, a run,
// /metrics, blob downloads). A coordinator given only the admin token
// works as with one shared token.
type scope int

const (
	scopeNone scope = iota
	scopeRead
	scopeWorker
	scopeAdmin
)

func (s scope) String() string {
	switch s {
	case scopeRead:
		return "read"
	case scopeWorker:
		return "worker"
	case scopeAdmin:
		return "admin"
	}
	return "none"
}

// checkTokens refuses tokens too short to be secrets, and two scopes
// given the same token (which would be one scope).
func checkTokens(admin, worker, read string) error {
	if err := wire.CheckToken(admin); err != nil {
		return err
	}
	for _, t := range []struct{ name, tok string }{{"worker", worker}, {"read", read}} {
		if t.tok == "" {
			continue
		}
		if err := wire.CheckToken(t.tok); err != nil {
			return fmt.Errorf("cluster: the %s token: %w", t.name, err)
		}
	}
	if worker != "" && (worker == admin || worker == read) || read != "" && read == admin {
		return errors.New("cluster: the admin, worker and read tokens must differ")
	}
	return nil
}

// scopeOf is the scope of a request's token (constant-time compares).
func (n *Node) scopeOf(r *http.Request) scope {
	got := ""
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		got = v
	} else if _, pw, ok := r.BasicAuth(); ok {
		got = pw
	}
	found := scopeNone
	for _, t := range []struct {
		tok   string
		scope scope
	}{{n.cfg.Token, scopeAdmin}, {n.cfg.WorkerToken, scopeWorker}, {n.cfg.ReadToken, scopeRead}} {
		if t.tok != "" && subtle.ConstantTimeCompare([]byte(got), []byte(t.tok)) == 1 {
			found = t.scope
		}
	}
	return found
}

type scopeKey struct{}

// authenticate refuses requests without a known token: 401 and a log
// line. The token's scope goes on in the request's context, for allow.
func (n *Node) authenticate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := n.scopeOf(r)
		if s == scopeNone {
			n.metrics.unauthorized.Inc()
			n.log.Warn("refused a request without a known token", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Basic realm="tierd"`)
			writeError(w, http.StatusUnauthorized, errors.New("missing or wrong token"))
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
	})
}

// allow serves h to the admin token and the tokens of the scopes needs;
// others are refused with 403, a log line and a count by scope.
func (n *Node) allow(needs []scope, h http.HandlerFunc) http.Handler {
	var names []string
	for _, s := range needs {
		names = append(names, s.String())
	}
	need := "the " + strings.Join(names, " or the ") + " token"
	if !slices.Contains(needs, scopeAdmin) {
		need += " (or the admin token)"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, _ := r.Context().Value(scopeKey{}).(scope)
		if s != scopeAdmin && !slices.Contains(needs, s) {
			n.metrics.forbidden.WithLabelValues(s.String(), strings.Join(names, "|")).Inc()
			n.log.Warn("refused a request its token may not make", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path,
				"token", s.String(), "needs", need)
			writeError(w, http.StatusForbidden, fmt.Errorf("%w: %s %s needs %s, not the %s token", api.ErrForbidden, r.Method, r.URL.Path, need, s))
			return
		}
		h(w, r)
	})
}
