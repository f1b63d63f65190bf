package levelfile

import (
	"fmt"
	"strconv"
	"strings"
)

// Name is a level-file name from the document:
//
//	full:         m<game>_<option>_<tier>.dat.gz
//	intermediate: m<game>_<option>_<tier>_<type>.dat.gz
//	partial:      m<game>_<option>_<tier>_<start>_<type>.dat.gz
//
// Game and option must not contain '_' or '/'. The option is written in
// its portable form (see PortableOption); ParseName also reads names
// written before, with '=' and ',' in the option, and returns the option
// as the name has it.
type Name struct {
	Game, Option string
	Tier         uint64
	Kind         Kind
	Start        uint64 // partial: the first position of the worker's share
	Type         Type   // intermediate and partial
}

// Kind tells the three kinds of level-file names apart.
type Kind int

// The kinds of names.
const (
	Full Kind = iota
	Intermediate
	Partial
)

// FullName returns m<game>_<option>_<tier>.dat.gz, the option in its
// portable form.
func FullName(game, option string, tier uint64) string {
	return Name{Game: game, Option: option, Tier: tier}.String()
}

// PartialName returns m<game>_<option>_<tier>_<start>_<type>.dat.gz, the
// option in its portable form.
func PartialName(game, option string, tier, start uint64, t Type) string {
	return Name{Game: game, Option: option, Tier: tier, Kind: Partial, Start: start, Type: t}.String()
}

// PortableOption is a game's option string as file names hold it: '='
// dropped and ',' turned into '-' ("width=5,height=4" becomes
// "width5-height4"), so that names keep to letters, digits, '.', '-' and
// '_', which every file system, shell and URL takes as they are.
func PortableOption(option string) string {
	return strings.NewReplacer("=", "", ",", "-").Replace(option)
}

// String formats the name.
func (n Name) String() string {
	s := fmt.Sprintf("m%s_%s_%d", n.Game, PortableOption(n.Option), n.Tier)
	switch n.Kind {
	case Intermediate:
		s += fmt.Sprintf("_%d", n.Type)
	case Partial:
		s += fmt.Sprintf("_%d_%d", n.Start, n.Type)
	}
	return s + ".dat.gz"
}

// Valid reports whether game and option can appear in a name.
func (n Name) Valid() error {
	for _, f := range []struct{ what, s string }{{"game", n.Game}, {"option", n.Option}} {
		if f.s == "" || strings.ContainsAny(f.s, "_/") {
			return fmt.Errorf("level-file name: %s %q must be non-empty without '_' or '/'", f.what, f.s)
		}
	}
	return nil
}

// ParseName parses a base file name of any of the three kinds.
func ParseName(base string) (Name, error) {
	bad := func() (Name, error) {
		return Name{}, fmt.Errorf("%q is not a level-file name (m<game>_<option>_<tier>[_<start>]_[<type>].dat.gz)", base)
	}
	s, ok := strings.CutSuffix(base, ".dat.gz")
	if !ok || !strings.HasPrefix(s, "m") {
		return bad()
	}
	parts := strings.Split(s[1:], "_")
	if len(parts) < 3 || len(parts) > 5 {
		return bad()
	}
	n := Name{Game: parts[0], Option: parts[1]}
	nums := make([]uint64, len(parts)-2)
	for i, p := range parts[2:] {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil || strconv.FormatUint(v, 10) != p {
			return bad()
		}
		nums[i] = v
	}
	n.Tier = nums[0]
	switch len(nums) {
	case 2:
		n.Kind, n.Type = Intermediate, Type(nums[1])
	case 3:
		n.Kind, n.Start, n.Type = Partial, nums[1], Type(nums[2])
	}
	if n.Kind != Full && nums[len(nums)-1] > 3 || n.Valid() != nil {
		return bad()
	}
	return n, nil
}
