// Command xqcompare compares a xiangqi run solved with rules=chessdb with
// the values of ChessDB's generator xiangqitb, position by position: the
// lines of a dump (tools/xiangqitb-dump: FEN, side, W/L/D), each with its
// mirror image. With --plain (the same endgame solved without the
// rules) it also counts the positions the rules decide on each side:
// ours, and xiangqitb's (its value differing from the plain one).
//
//	go run ./tools/xqcompare --material KRvKNN --rules DIR --plain DIR2 DUMP
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tiersolve/tiersolve/games/xiangqi"
	"github.com/tiersolve/tiersolve/internal/xq"
	"github.com/tiersolve/tiersolve/solver/oracle"
	"github.com/tiersolve/tiersolve/tiergame"
	"github.com/tiersolve/tiersolve/valuedb"
)

func main() {
	material := flag.String("material", "", "the endgame (KRvKNN)")
	rules := flag.String("rules", "", "the run folder solved with rules=chessdb")
	plain := flag.String("plain", "", "the run folder solved without the rules (optional)")
	flag.Parse()
	if *material == "" || *rules == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: xqcompare --material M --rules DIR [--plain DIR] DUMP")
		os.Exit(2)
	}
	if err := run(*material, *rules, *plain, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "xqcompare:", err)
		os.Exit(1)
	}
}

// open opens run dir of the endgame, with the rules or without.
func open(material, rules, dir string) (tiergame.Game, *oracle.Oracle, error) {
	opts := tiergame.Options{"material": material}
	if rules != "" {
		opts["rules"] = rules
	}
	g, err := xiangqi.New(opts)
	if err != nil {
		return nil, nil, err
	}
	// One cache holds the decompressed blocks: the dump's order is not the
	// databases', so without it a block would be decompressed again and again.
	o, err := oracle.OpenWith(dir, g, oracle.Options{Cache: valuedb.NewBlockCache(2 << 30)})
	if err != nil {
		return nil, nil, err
	}
	return g, o, nil
}

func run(material, rulesDir, plainDir, dump string) error {
	g, o, err := open(material, "chessdb", rulesDir)
	if err != nil {
		return err
	}
	var po *oracle.Oracle
	if plainDir != "" {
		if _, po, err = open(material, "", plainDir); err != nil {
			return err
		}
	}
	f, err := os.Open(dump)
	if err != nil {
		return err
	}
	defer f.Close()
	letters := map[string]tiergame.Value{"W": tiergame.Win, "L": tiergame.Lose, "D": tiergame.Draw}
	var n, differ, oursRule, theirsRule, foreign int
	declared := map[string]int{} // positions the rules declared lost, by the rule broken
	rr := g.(tiergame.RuleReader)
	seen := map[tiergame.Tier][]uint64{} // bit sets of the positions compared, by tier
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			return fmt.Errorf("line %q: want FEN, side, value", sc.Text())
		}
		want, ok := letters[fields[2]]
		if !ok {
			return fmt.Errorf("line %q: value %q", sc.Text(), fields[2])
		}
		b, side, err := xq.ParseFEN(fields[0] + " " + fields[1])
		if err != nil {
			return fmt.Errorf("line %q: %w", sc.Text(), err)
		}
		for _, bb := range []xq.Board{b, b.Mirror()} {
			fen := bb.FEN(side)
			t, p, err := g.Parse(fen)
			if err != nil {
				var tm *xiangqi.TooManyPieces
				if errors.As(err, &tm) {
					return err
				}
				foreign++ // the dump's colours the other way round: not this endgame
				continue
			}
			set := seen[t]
			if set == nil {
				set = make([]uint64, (g.TierSize(t)+63)/64)
				seen[t] = set
			}
			if set[p/64]>>(p%64)&1 != 0 {
				continue // a symmetric position, or the dump's mirror of an earlier line
			}
			set[p/64] |= 1 << (p % 64)
			rec, err := o.Lookup(t, p)
			if err != nil {
				return fmt.Errorf("%s: %w", fen, err)
			}
			n++
			if _, plies, ok := rr.RuleRecord(rec.Value(), rec.Remoteness()); ok && plies == 0 {
				declared[rr.RuleBroken(t, p)]++
			}
			if rec.Value() != want {
				differ++
				if differ <= 10 {
					fmt.Printf("differ: %s ours %v, xiangqitb %v\n", fen, rec, want)
				}
			}
			if po != nil {
				prec, err := po.Lookup(t, p)
				if err != nil {
					return fmt.Errorf("%s (plain run): %w", fen, err)
				}
				if prec.Value() != rec.Value() {
					oursRule++
				}
				if prec.Value() != want {
					theirsRule++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("%s: %d positions compared, %d differ", material, n, differ)
	if foreign > 0 {
		fmt.Printf(" (%d lines of another endgame skipped)", foreign)
	}
	if po != nil {
		fmt.Printf("; values changed by the rules: ours %d, xiangqitb %d", oursRule, theirsRule)
	}
	fmt.Printf("; declared lost by the rules (ours): %v", declared)
	fmt.Println()
	if differ > 0 {
		return fmt.Errorf("%d positions differ", differ)
	}
	return nil
}
