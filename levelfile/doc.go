// Package levelfile reads and writes level files: the gzip-compressed lists
// of the reachable positions of a tier, in the four encodings of the
// Gamescrafters "Level Files" document (see LAYOUT.md in this folder, and the
// format facts in ../shared/specs/levelfile.md of the project).
//
// After gunzip a level file is
//
//	"1\n"                      start check bit
//	"#...\n" (any number)      comments
//	"<type>\n"                 0, 1, 2 or 3
//	"<min> <max> SEP\n"        absolute positions (classic type 2: "<min> <max> <lastZero> SEP\n")
//	<data>                     type 0: ASCII decimals, each followed by a space
//	                           type 1: reachable offsets p−min, bitsPerPosition bits each, MSB-first
//	                           type 2: the same for the unreachable offsets in [min, max]
//	                           type 3: one bit per offset, MSB-first, 1 = reachable
//	SEP "\n" "1"               end check bit (classic type 3: SEP "1")
//
// SEP is 0x12 in the document (the Spec dialect, which this package writes by
// default) and 0x0C in every file GamesmanClassic wrote (the Classic
// dialect). Readers detect the dialect from the byte that ends the min/max
// line.
//
// Writing keeps, by default, the smallest of the four compressed encodings
// (ties go to the lower type) and always makes the same choice as compressing
// all four. Each type has the compression that suits it: deflate at
// WriteOptions.Level for bitmaps (type 3), Huffman coding only for ASCII
// (type 0), stored blocks for packed fields (types 1 and 2). LAYOUT.md says
// why, and how the writer avoids most of the work. Reading streams:
// Reader.All and Reader.Runs iterate over the members, Reader.ReadInto fills
// a bitarray.Set, and none holds the file in memory. Hostile input gets an
// error wrapping ErrFormat (or ErrTooLarge past a limit), never a panic or an
// allocation sized by the header alone.
package levelfile
