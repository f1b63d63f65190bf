package tiergame

// Judged is a position whose value a game's rules of play decide, and the
// record to store for it: its value and the remoteness the game gives
// it (a form the game reads back with RuleReader).
type Judged struct {
	Pos        Position
	Value      Value
	Remoteness int
}

// Judge is implemented by a loopy game whose rules of play decide
// positions that retrograde analysis alone leaves drawn (xiangqi's
// perpetual check and chase). After the ordinary solve of a tier the
// solver asks Judge for the positions the rules decide and stores their
// records instead. A game whose option turns its rules off reports
// Judges false for every tier, so its runs are the same bytes as
// without the interface.
type Judge interface {
	// Judges reports whether the rules may decide positions of tier t.
	Judges(t Tier) bool
	// Judge gives j.Yield the positions of tier t the rules decide, in
	// increasing order (see Judging); it stops at Yield's first error,
	// and returns it.
	Judge(t Tier, j Judging) error
}

// Judging is what Judge reads and where its decisions go.
type Judging struct {
	// Value is the value of a position of the tier by the ordinary
	// solve (Undecided for a position not in the tier), and Child the
	// value of a position of a tier the tier's moves lead to (already
	// judged). Judge reads every Value before its first Yield, so Yield
	// may store the records in place of the values.
	Value func(Position) Value
	Child func(Child) Value
	// Yield takes each decision in turn: one at a time, the decisions
	// (up to one a draw of the tier) are never held beside the tier.
	Yield func(Judged) error
	// Progress, if not nil, is told from time to time where the pass
	// is, in a few words ("round 2: removing false cycles, sweep 3"):
	// on a large tier it runs for minutes.
	Progress func(detail string)
	// ChildrenDone, if not nil, is called at most once, on the goroutine
	// that called Judge, once Judge reads no more children (Child): the
	// caller may free the child tiers then, for the rest of the pass.
	ChildrenDone func()
	// ValuesDone, if not nil, is called at most once, on the goroutine
	// that called Judge, once Judge reads no more values (Value) and
	// before its first Yield: the caller may set the tier's records
	// aside (on disk) until Judge returns, so that they are not held
	// beside the pass's own memory.
	ValuesDone func()
}

// RuleInfo says which rule of play decided a stored record: the rule's
// name, the round of the rule pass that decided it (1 first) and the
// plies to the position where the side that broke the rule is declared
// lost.
type RuleInfo struct {
	Rule  string `json:"rule"`
	Round int    `json:"round"`
	Plies int    `json:"plies"`
}

// RuleReader is implemented by a game whose Judge stores records it can
// read back: which of them the rules decided, and which rule.
type RuleReader interface {
	// RuleRecord returns the round and plies of a record the rules
	// decided, and false for one they did not.
	RuleRecord(v Value, remoteness int) (round, plies int, ok bool)
	// RuleBroken names the rule that the side to move at p broke, p a
	// position the rules declared lost (plies 0).
	RuleBroken(t Tier, p Position) string
}
