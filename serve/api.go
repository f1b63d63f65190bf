package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tiersolve/tiersolve/games/bearoff"
	"github.com/tiersolve/tiersolve/query"
)

// The codes of the API's error bodies.
const (
	codeBadPosition = "bad_position"
	codeNotFound    = "not_found"
	codeUnreachable = "unreachable"
	codeBadRequest  = "bad_request"
	codeUnknownRun  = "unknown_run"
	codeOverloaded  = "overloaded"
)

// ErrorBody is the body of every error of /api/v1/.
type ErrorBody struct {
	Error string `json:"error"` // what was wrong, for a person
	Code  string `json:"code"`
}

// RunsBody is the answer of /api/v1/runs.
type RunsBody struct {
	Runs []RunInfo `json:"runs"`
}

// DefaultMainline is the most plies /mainline follows unless max says.
const DefaultMainline = 50

// api serves /api/v1/.
func (s *Server) api() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/runs", s.getOnly(s.listRuns))
	mux.HandleFunc("/api/v1/runs/{id}", s.getOnly(s.oneRun))
	mux.HandleFunc("/api/v1/runs/{id}/position", s.getOnly(s.position))
	mux.HandleFunc("/api/v1/runs/{id}/mainline", s.getOnly(s.mainline))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, codeNotFound, fmt.Sprintf("no such path %q: the API is /api/v1/runs, /api/v1/runs/{id}, /api/v1/runs/{id}/position?p=POS, /api/v1/runs/{id}/mainline?p=POS", r.URL.Path))
	})
	return mux
}

// getOnly answers 405 to a method other than GET or HEAD.
func (s *Server) getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			writeError(w, http.StatusMethodNotAllowed, codeBadRequest, r.Method+" is not allowed: the API is read-only (GET)")
			return
		}
		h(w, r)
	}
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	body := RunsBody{Runs: make([]RunInfo, len(s.runs))}
	for i, run := range s.runs {
		body.Runs[i] = run.Info
	}
	writeJSON(w, http.StatusOK, body)
}

// run finds the run of the path's {id}, or answers 404.
func (s *Server) run(w http.ResponseWriter, r *http.Request) *Run {
	id := r.PathValue("id")
	run := s.byID[id]
	if run == nil {
		writeError(w, http.StatusNotFound, codeUnknownRun, fmt.Sprintf("no run %q is served here (see /api/v1/runs)", clip(id)))
	}
	return run
}

func (s *Server) oneRun(w http.ResponseWriter, r *http.Request) {
	if run := s.run(w, r); run != nil {
		writeJSON(w, http.StatusOK, run.Info)
	}
}

// runParams is the start of /position and /mainline: the run asked and
// the query string's parameters, or false once it has answered an error.
func (s *Server) runParams(w http.ResponseWriter, r *http.Request) (*Run, Params, bool) {
	run := s.run(w, r)
	if run == nil {
		return nil, Params{}, false
	}
	q, err := ParseParams(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error())
		return nil, Params{}, false
	}
	return run, q, true
}

func (s *Server) position(w http.ResponseWriter, r *http.Request) {
	run, q, ok := s.runParams(w, r)
	if !ok {
		return
	}
	if q.Mainline {
		writeError(w, http.StatusBadRequest, codeBadRequest, "max is a parameter of /mainline")
		return
	}
	o := run.Oracle
	t, p, err := query.Parse(o.Game, q.Position)
	if err != nil {
		s.writeQueryError(w, r, err)
		return
	}
	opts := q.Options
	opts.Table = s.met
	if opts.Match != 0 && opts.Table == nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, "match play needs a match equity table, and this server has none")
		return
	}
	if opts.Match != 0 {
		// Match play solves the position's cone at the score: memory and
		// time of its own, so one request at a time, within matchMemory.
		select {
		case s.matchSem <- struct{}{}:
			defer func() { <-s.matchSem }()
		default:
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, codeOverloaded, "another match play question is being computed; try again")
			return
		}
		opts.Memory = matchMemory
	}
	b := bufs.Get().(*bytes.Buffer)
	defer putBuf(b)
	body, err := query.AppendPositionJSON(b.AvailableBuffer(), r.Context(), o, t, p, opts)
	if err != nil {
		s.writeQueryError(w, r, err)
		return
	}
	b.Write(body)
	writeBody(w, http.StatusOK, b.Bytes())
}

// matchMemory bounds the match winning chances one request may compute.
const matchMemory = "32MiB"

func (s *Server) mainline(w http.ResponseWriter, r *http.Request) {
	run, q, ok := s.runParams(w, r)
	if !ok {
		return
	}
	if q.Options != (query.Options{}) {
		writeError(w, http.StatusBadRequest, codeBadRequest, "a mainline takes p and max only")
		return
	}
	max := DefaultMainline
	if q.Mainline {
		max = q.Max
	}
	o := run.Oracle
	t, p, err := query.Parse(o.Game, q.Position)
	if err != nil {
		s.writeQueryError(w, r, err)
		return
	}
	line, err := query.Mainline(o, t, p, max)
	if err != nil {
		s.writeQueryError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, line)
}

// Params are the query parameters of /position and /mainline.
type Params struct {
	Position string
	Options  query.Options // the flags of tierd query
	Mainline bool          // max was given
	Max      int
}

// ParseParams reads the query string of /position or /mainline: p, and
// roll, cube, cube_value, match, score, crawford, or max. Its errors say
// what was wrong for a person.
func ParseParams(raw string) (Params, error) {
	var q Params
	if len(raw) > MaxQuery {
		return q, fmt.Errorf("the query string has %d bytes, more than %d", len(raw), MaxQuery)
	}
	// Read by hand, not url.ParseQuery: no map for every request.
	var given uint8 // of the parameters, by their index in paramNames
	for rest := raw; rest != ""; {
		var kv string
		kv, rest, _ = strings.Cut(rest, "&")
		if kv == "" {
			continue
		}
		if strings.Contains(kv, ";") {
			return q, errors.New("the query string: a ';' (separate parameters with '&')")
		}
		ek, ev, _ := strings.Cut(kv, "=")
		k, err := url.QueryUnescape(ek)
		if err != nil {
			return q, fmt.Errorf("the query string: %v", err)
		}
		x, err := url.QueryUnescape(ev)
		if err != nil {
			return q, fmt.Errorf("the query string: %v", err)
		}
		if i := slices.Index(paramNames, k); i >= 0 {
			if given&(1<<i) != 0 {
				return q, fmt.Errorf("parameter %q given twice", k)
			}
			given |= 1 << i
		}
		switch k {
		case "p":
			q.Position = x
		case "roll":
			q.Options.Roll = x
		case "cube":
			q.Options.Cube = x
			q.Options.CubeAsked = true
		case "cube_value":
			n, err := smallInt(k, x, 1<<20)
			if err != nil {
				return q, err
			}
			if n == 0 {
				return q, fmt.Errorf("cube_value 0: want a power of two")
			}
			q.Options.CubeValue, q.Options.CubeAsked = n, true
		case "match":
			n, err := smallInt(k, x, 1<<10)
			if err != nil {
				return q, err
			}
			q.Options.Match, q.Options.CubeAsked = n, true
		case "score":
			q.Options.Score, q.Options.CubeAsked = x, true
		case "crawford":
			b, err := strconv.ParseBool(x)
			if err != nil {
				return q, fmt.Errorf("crawford %q: want 1 or 0", clip(x))
			}
			q.Options.Crawford, q.Options.CubeAsked = b, true
		case "max":
			n, err := smallInt(k, x, query.MaxMainline)
			if err != nil {
				return q, err
			}
			q.Max, q.Mainline = n, true
		default:
			return q, fmt.Errorf("unknown parameter %q (p, roll, cube, cube_value, match, score, crawford, max)", clip(k))
		}
	}
	if q.Position == "" {
		return q, errors.New("missing p, the position")
	}
	if len(q.Position) > MaxPosition {
		return q, fmt.Errorf("p has %d bytes, more than %d", len(q.Position), MaxPosition)
	}
	return q, nil
}

// paramNames are the parameters ParseParams reads.
var paramNames = []string{"p", "roll", "cube", "cube_value", "match", "score", "crawford", "max"}

// smallInt parses a parameter's whole number in [0, max].
func smallInt(name, x string, max int) (int, error) {
	n, err := strconv.Atoi(x)
	if err != nil || n < 0 || n > max {
		return 0, fmt.Errorf("%s %q: want a whole number from 0 to %d", name, clip(x), max)
	}
	return n, nil
}

// clip shortens text from a request for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// writeQueryError answers an error of package query with its status; an
// error of the server's own (a database it cannot read) is logged, and
// answered without its details.
func (s *Server) writeQueryError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, query.ErrBadPosition):
		writeError(w, http.StatusBadRequest, codeBadPosition, err.Error())
	case errors.Is(err, query.ErrUnreachable):
		writeError(w, http.StatusNotFound, codeUnreachable, err.Error())
	case errors.Is(err, query.ErrNotInRun):
		writeError(w, http.StatusNotFound, codeNotFound, "the run does not hold this position's tier: "+err.Error())
	case errors.Is(err, query.ErrBadOption):
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error())
	case errors.Is(err, bearoff.ErrTooLarge):
		writeError(w, http.StatusBadRequest, codeBadRequest, "match play from this position takes more memory than the server gives a question: "+err.Error())
	default:
		s.log.Error("answering a request", "path", r.URL.Path, "query", clip(r.URL.RawQuery), "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the server could not read its databases (see its log)")
	}
}

// jsonContentType is every JSON answer's Content-Type value; net/http
// only reads it.
var jsonContentType = []string{"application/json"}

var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuf gives a buffer back to bufs, emptied, unless it grew large.
func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		b.Reset()
		bufs.Put(b)
	}
}

// writeJSON writes v as JSON, as tierd query --json prints it (one line).
func writeJSON(w http.ResponseWriter, code int, v any) {
	b := bufs.Get().(*bytes.Buffer)
	defer putBuf(b)
	if err := json.NewEncoder(b).Encode(v); err != nil {
		code = http.StatusInternalServerError
		b.Reset()
		json.NewEncoder(b).Encode(ErrorBody{Error: err.Error(), Code: "internal"})
	}
	writeBody(w, code, b.Bytes())
}

// writeBody writes a JSON answer's bytes.
func writeBody(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	// Set directly, canonical keys and a shared value: Header.Set makes a
	// slice per call, and this is every answer's path.
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(code)
	w.Write(body)
}

// writeError answers an error with its body.
func writeError(w http.ResponseWriter, code int, kind, msg string) {
	writeJSON(w, code, ErrorBody{Error: msg, Code: kind})
}
