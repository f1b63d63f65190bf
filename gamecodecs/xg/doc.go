// Package xg reads eXtreme Gammon match and position files (.xg, .xgp).
//
// A file is a TRichGameHeader (with a JPEG thumbnail) followed by a
// ZlibArchive located from the end of the file. The archive holds
// temp.xg, the match as fixed 2560-byte TSaveRec records; temp.xgi, copies
// of its first and last records; temp.xgr, rollouts (TRolloutContext); and
// temp.xgc, RTF comments. [Open] and [NewReader] decode all of it into a
// [File]: every field of XG_format.pas, read only from the file version
// that introduced it, with the CRCs checked and every decompressed size
// bounded by [Options].
//
// On top of the records, [File.Decisions] lists each cube decision and
// checker play as the position seen by the player on roll, with the dice,
// the move in GNU Backgammon's notation and gnubg's Position and Match IDs.
//
// XG numbers its players 1 and 2; gnubg's player 0 is XG's player 1.
// Positions ([Position]) are XG's PositionEngine; [Position.Flip] turns one
// player's view into the other's.
package xg
