// Package universal serves solved runs over the GamesCrafters universal web
// API, the one GamesCraftersUWAPI's server.py answers and GamesmanUni reads:
// the same routes, JSON shapes, game and variant ids, position and AutoGUI
// strings, value words, draw remoteness, move order and error bodies, so
// that GamesmanUni pointed at it plays our databases unchanged.
//
// Routes, relative to the mount point (the caller strips /universal/v1):
//
//	GET /                                   games: id, name, type, gui
//	GET /{game}/                            variants of a game
//	GET /{game}/{variant}/                  start position and imageAutoGUIData
//	GET /{game}/{variant}/positions/?p=POS  a position, its value and moves
//	GET /{game}/{variant}/instructions/     rules, as markdown
//
// As in the UWAPI (a Flask app), a bad game, variant or position is answered
// with status 200 and {"error": "Invalid Game"} (Variant, Position); this
// package adds a "reason" field saying what was wrong, which GamesmanUni
// ignores.
//
// A value the rules of play decided (xiangqi's perpetual check or chase,
// a run with option rules=chessdb) is answered with the plies within that
// decision as its remoteness, never the stored 4096 and up, and an extra
// field, "rule": {"rule", "round", "plies"}, on the position and on each
// move whose position the rules decided (left out otherwise, so other
// answers are the UWAPI's shape exactly). A client that knows nothing of
// rules sees a small remoteness and ignores the field; the moves keep
// the order the run stores (a mate before a rule win, an earlier round
// before a later one).
package universal

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tiersolve/tiersolve/query"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
)

// Run is one solved run that the universal API may offer.
type Run struct {
	Oracle *oracle.Oracle // Oracle.Game is the game (never a quotient); symmetric runs answer via Canonical
}

// maxPosition bounds the length of a position string; the longest a game
// here uses is xiangqi's, 92 bytes.
const maxPosition = 256

// The remoteness words of the UWAPI (games/models.py): a draw has an
// infinite remoteness, written -200.
const remotenessInfinity = -200

// game is a game the API offers, with the variants loaded runs solved.
type game struct {
	id, name, gui string
	instructions  string
	variants      []*variant
}

// variant is one solved run offered as a variant of a game.
type variant struct {
	id, name, gui string
	codec         codec
	oracle        *oracle.Oracle
	imageAutoGUI  any // nil when GamesmanUni has no pictures for it
	// drawMoveRemoteness is the remoteness the GamesCrafters back end
	// writes for a move to a drawn position: GamesmanOne writes 0, the
	// chinesechess module 1, GamesmanClassic nothing (the UWAPI then
	// writes infinity).
	drawMoveRemoteness int
	start              startPosition
}

type startPosition struct{ position, autogui string }

// handler serves the API.
type handler struct {
	games []*game // sorted by name
	byID  map[string]*game
	log   *slog.Logger
}

// NewHandler serves the universal API for runs; paths are relative to its mount point
// (the caller strips "/universal/v1"): "/", "/{game}/", "/{game}/{variant}/",
// "/{game}/{variant}/positions/?p=POS", "/{game}/{variant}/instructions/".
// A run of a game or variant the API has no id for (the bearoff, the
// xiangqi variant of every endgame) is left out, and logged; so is a
// second run of a variant already offered.
func NewHandler(runs []Run, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{byID: map[string]*game{}, log: log}
	for _, r := range runs {
		if r.Oracle == nil {
			continue
		}
		g := r.Oracle.Game
		gm, v, err := describe(g)
		if err != nil {
			log.Info("universal API: run not offered", "game", g.Name(), "option", g.Option(), "why", err.Error())
			continue
		}
		v.oracle = r.Oracle
		t, p := g.Start()
		if v.start.position, v.start.autogui, err = v.codec.fromText(g.Format(t, p)); err != nil {
			log.Warn("universal API: run not offered: its start position has no UWAPI form", "game", g.Name(), "option", g.Option(), "err", err)
			continue
		}
		have := h.byID[gm.id]
		if have == nil {
			have = gm
			h.byID[gm.id] = gm
			h.games = append(h.games, gm)
		}
		if slices.ContainsFunc(have.variants, func(w *variant) bool { return w.id == v.id }) {
			log.Info("universal API: a second run of a variant is not offered", "game", gm.id, "variant", v.id)
			continue
		}
		have.variants = append(have.variants, v)
	}
	slices.SortStableFunc(h.games, func(a, b *game) int { return strings.Compare(a.name, b.name) })
	return h
}

// ServeHTTP routes a request.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "Method Not Allowed"})
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	path = strings.TrimSuffix(path, "/")
	var parts []string
	if path != "" {
		parts = strings.Split(path, "/")
	}
	switch {
	case len(parts) == 0:
		h.serveGames(w)
	case len(parts) == 1:
		h.serveGame(w, parts[0])
	case len(parts) == 2:
		h.serveVariant(w, parts[0], parts[1])
	case len(parts) == 3 && parts[2] == "positions":
		h.servePosition(w, r, parts[0], parts[1])
	case len(parts) == 3 && parts[2] == "instructions":
		h.serveInstructions(w, parts[0])
	default:
		writeJSON(w, http.StatusNotFound, errorBody{Error: "Not Found"})
	}
}

// errorBody is the UWAPI's error answer, with our reason added.
type errorBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
}

// The JSON answers. Fields are in alphabetical order because Flask sorts
// the keys of what it returns.
type (
	gameItem struct {
		GUI  string `json:"gui"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
	variantItem struct {
		GUI  string `json:"gui"`
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	gameAnswer struct {
		AllowCustomVariantCreation bool          `json:"allowCustomVariantCreation"`
		ID                         string        `json:"id"`
		Name                       string        `json:"name"`
		SupportsWinBy              bool          `json:"supportsWinBy"`
		Variants                   []variantItem `json:"variants"`
	}
	variantAnswer struct {
		AutoguiStartPosition string `json:"autoguiStartPosition"`
		GUI                  string `json:"gui"`
		ID                   string `json:"id"`
		ImageAutoGUIData     any    `json:"imageAutoGUIData"`
		Name                 string `json:"name"`
		StartPosition        string `json:"startPosition"`
	}
	moveAnswer struct {
		AutoguiMove     string `json:"autoguiMove"`
		AutoguiPosition string `json:"autoguiPosition"`
		DeltaRemoteness int    `json:"deltaRemoteness"`
		Move            string `json:"move"`
		MoveValue       string `json:"moveValue"`
		Position        string `json:"position"`
		PositionValue   string `json:"positionValue"`
		Remoteness      int    `json:"remoteness"`
		// Rule says which rule of play decided the position the move
		// leads to (then Remoteness is its Plies); not the UWAPI's.
		Rule  *tiergame.RuleInfo `json:"rule,omitempty"`
		order int                // the back end's move order, before sorting
		// stored is the child's remoteness as the run stores it: what
		// orders moves of one value (a rule decision's encodes its round
		// and plies, after every ordinary remoteness).
		stored int
	}
	positionAnswer struct {
		AutoguiPosition string       `json:"autoguiPosition"`
		Moves           []moveAnswer `json:"moves"`
		Position        string       `json:"position"`
		PositionValue   string       `json:"positionValue"`
		Remoteness      int          `json:"remoteness"`
		// Rule says which rule of play decided the position (then
		// Remoteness is its Plies); not the UWAPI's.
		Rule *tiergame.RuleInfo `json:"rule,omitempty"`
	}
	instructionsAnswer struct {
		Instructions string `json:"instructions"`
	}
)

func (h *handler) serveGames(w http.ResponseWriter) {
	out := make([]gameItem, 0, len(h.games))
	for _, g := range h.games {
		out = append(out, gameItem{GUI: g.gui, ID: g.id, Name: g.name, Type: "twoPlayer"})
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) serveGame(w http.ResponseWriter, id string) {
	g := h.byID[id]
	if g == nil {
		writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Game", Reason: "no game " + quote(id) + " is served here"})
		return
	}
	a := gameAnswer{ID: g.id, Name: g.name, Variants: make([]variantItem, 0, len(g.variants))}
	for _, v := range g.variants {
		a.Variants = append(a.Variants, variantItem{GUI: v.gui, ID: v.id, Name: v.name})
	}
	writeJSON(w, http.StatusOK, a)
}

// lookup finds a game's variant or writes the UWAPI's error.
func (h *handler) lookup(w http.ResponseWriter, gameID, variantID string) *variant {
	g := h.byID[gameID]
	if g == nil {
		writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Game", Reason: "no game " + quote(gameID) + " is served here"})
		return nil
	}
	for _, v := range g.variants {
		if v.id == variantID {
			return v
		}
	}
	ids := make([]string, len(g.variants))
	for i, v := range g.variants {
		ids[i] = v.id
	}
	writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Variant",
		Reason: fmt.Sprintf("no variant %s of %s is served here (served: %s)", quote(variantID), g.id, strings.Join(ids, ", "))})
	return nil
}

func (h *handler) serveVariant(w http.ResponseWriter, gameID, variantID string) {
	v := h.lookup(w, gameID, variantID)
	if v == nil {
		return
	}
	writeJSON(w, http.StatusOK, variantAnswer{
		AutoguiStartPosition: v.start.autogui,
		GUI:                  v.gui,
		ID:                   v.id,
		ImageAutoGUIData:     v.imageAutoGUI,
		Name:                 v.name,
		StartPosition:        v.start.position,
	})
}

func (h *handler) serveInstructions(w http.ResponseWriter, gameID string) {
	g := h.byID[gameID]
	if g == nil {
		writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Game", Reason: "no game " + quote(gameID) + " is served here"})
		return
	}
	writeJSON(w, http.StatusOK, instructionsAnswer{Instructions: g.instructions})
}

// queryP returns the first p parameter of a raw query. It reads the query
// itself because net/url drops a pair holding a ';', which the UWAPI keeps
// (and cuts off: what follows it names part-moves).
func queryP(raw string) (string, bool) {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		key, val, _ := strings.Cut(pair, "=")
		if key != "p" {
			continue
		}
		s, err := url.QueryUnescape(val)
		if err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// badPosition is the error of answer for a position that is malformed or
// not held by the run; it says which and why.
type badPosition struct{ msg string }

func (e *badPosition) Error() string { return e.msg }

// bad returns a badPosition of the message.
func bad(format string, args ...any) error { return &badPosition{fmt.Sprintf(format, args...)} }

func (h *handler) servePosition(w http.ResponseWriter, r *http.Request, gameID, variantID string) {
	v := h.lookup(w, gameID, variantID)
	if v == nil {
		return
	}
	p, ok := queryP(r.URL.RawQuery)
	p, _, _ = strings.Cut(p, ";")
	if !ok || p == "" {
		writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Position", Reason: "no position: want ?p=POSITION"})
		return
	}
	a, err := answer(v, p)
	var b *badPosition
	switch {
	case errors.As(err, &b):
		writeJSON(w, http.StatusOK, errorBody{Error: "Invalid Position", Reason: err.Error()})
	case err != nil:
		h.log.Error("universal API: position", "game", gameID, "variant", variantID, "p", clip(p), "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "Internal Server Error", Reason: "the database could not be read"})
	default:
		writeJSON(w, http.StatusOK, a)
	}
}

// answer is the UWAPI's answer for position p of variant v.
func answer(v *variant, p string) (*positionAnswer, error) {
	if len(p) > maxPosition {
		return nil, bad("a position of %d bytes, more than %d", len(p), maxPosition)
	}
	g := v.oracle.Game
	text, err := v.codec.toText(p)
	if err != nil {
		return nil, bad("%s: %v", quote(p), err)
	}
	t, pos, err := g.Parse(text)
	if err != nil {
		return nil, bad("%s: %v", quote(p), err)
	}
	rec, err := v.oracle.Lookup(t, pos)
	if err != nil {
		if notHeld(err) {
			return nil, bad("%s: the run does not hold it: %v", quote(p), err)
		}
		return nil, err
	}
	moves, err := v.oracle.Moves(t, pos)
	if err != nil {
		if notHeld(err) {
			return nil, bad("%s: the run does not hold a position a move leads to: %v", quote(p), err)
		}
		return nil, err
	}
	a := &positionAnswer{Moves: make([]moveAnswer, 0, len(moves))}
	if a.Position, a.AutoguiPosition, err = v.codec.fromText(g.Format(t, pos)); err != nil {
		return nil, fmt.Errorf("position %s: %w", quote(p), err)
	}
	a.PositionValue, a.Remoteness = rec.Value().String(), rec.Remoteness()
	if rec.Value() == tiergame.Draw {
		a.Remoteness = remotenessInfinity
	}
	if a.Rule = query.RuleOf(v.oracle, t, pos, rec.Value(), rec.Remoteness()); a.Rule != nil {
		a.Remoteness = a.Rule.Plies
	}
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = m.Name
	}
	ms, err := v.codec.moves(text, names)
	if err != nil {
		return nil, fmt.Errorf("moves of %s: %w", quote(p), err)
	}
	for i, m := range moves {
		ma := moveAnswer{Move: ms[i].move, AutoguiMove: ms[i].autogui, order: ms[i].order}
		if ma.Position, ma.AutoguiPosition, err = v.codec.fromText(g.Format(m.Tier, m.Pos)); err != nil {
			return nil, fmt.Errorf("move %s of %s: %w", m.Name, quote(p), err)
		}
		ma.PositionValue, ma.Remoteness = m.Child.Value().String(), m.Child.Remoteness()
		ma.stored = ma.Remoteness
		if m.Child.Value() == tiergame.Draw {
			ma.Remoteness = v.drawMoveRemoteness
		}
		if ma.Rule = query.RuleOf(v.oracle, m.Tier, m.Pos, m.Child.Value(), m.Child.Remoteness()); ma.Rule != nil {
			ma.Remoteness = ma.Rule.Plies
		}
		a.Moves = append(a.Moves, ma)
	}
	// The back end lists moves in its own order; the UWAPI then sorts them
	// stably by value and delta remoteness, so ties keep that order.
	slices.SortStableFunc(a.Moves, func(x, y moveAnswer) int { return x.order - y.order })
	wrangle(a)
	return a, nil
}

// notHeld reports whether a lookup error means the run does not hold the
// position (rather than that a file could not be read).
func notHeld(err error) bool {
	return errors.Is(err, oracle.ErrUnreachable) || errors.Is(err, oracle.ErrTierNotSolved)
}

// valueOrder is the UWAPI's order of move values, best first.
var valueOrder = map[string]int{"win": 0, "tie": 1, "draw": 2, "lose": 3, "unsolved": 4, "undecided": 5}

// wrangle sets each move's moveValue and deltaRemoteness and sorts the
// moves best first, as server.py's wrangle_move_objects_2Player does: the
// move value is the child's value seen from the mover (the turn always
// passes in these games), and the delta remoteness is how much slower a
// win or tie is than the fastest of its kind, or how much faster a loss is
// than the slowest, 0 for a draw. The deltas are of the stored
// remoteness, which is the remoteness but for a rule decision's: so a
// rule win stays behind every mate, and its delta from one is large
// (GamesmanUni only compares deltas, to shade moves).
func wrangle(a *positionAnswer) {
	maxWin, minLose, minTie := 0, 1, 1
	first := map[string]bool{}
	for _, m := range a.Moves {
		switch m.PositionValue {
		case "win":
			maxWin = max(maxWin, m.stored)
		case "lose":
			if !first["lose"] || m.stored < minLose {
				minLose = m.stored
			}
			first["lose"] = true
		case "tie":
			if !first["tie"] || m.stored < minTie {
				minTie = m.stored
			}
			first["tie"] = true
		}
	}
	for i := range a.Moves {
		m := &a.Moves[i]
		switch m.PositionValue {
		case "win":
			m.MoveValue = "lose"
			m.DeltaRemoteness = maxWin - m.stored
		case "lose":
			m.MoveValue = "win"
			m.DeltaRemoteness = m.stored - minLose
		case "tie":
			m.MoveValue = "tie"
			m.DeltaRemoteness = m.stored - minTie
		default:
			m.MoveValue = m.PositionValue
		}
	}
	slices.SortStableFunc(a.Moves, func(x, y moveAnswer) int {
		if d := valueOrder[x.MoveValue] - valueOrder[y.MoveValue]; d != 0 {
			return d
		}
		return x.DeltaRemoteness - y.DeltaRemoteness
	})
}

// writeJSON writes v as the answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"Internal Server Error"}`)
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// A length, not chunks: answers larger than net/http's buffer would
	// otherwise be sent chunked, which costs a client more to read.
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// quote quotes user text for an error message, clipped.
func quote(s string) string { return fmt.Sprintf("%q", clip(s)) }

// clip shortens s for a message or a log record.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
