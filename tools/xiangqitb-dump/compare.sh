#!/bin/sh
# compare.sh MATERIAL XQTBNAME: solves MATERIAL with tierd with and without
# rules=chessdb, xiangqitb's table XQTBNAME with its generator (2 threads
# each), and compares them position by position (tools/xqcompare), with
# the wall time and peak RSS of each solve. Needs XIANGQITB (a built
# checkout: genegtb) and DUMP (tools/xiangqitb-dump built). Example:
#   XIANGQITB=/work/peers/xiangqitb DUMP=/work/peers/xqdump/dump sh compare.sh KRvKNN KRKNN
set -eu
M=$1 X=$2
W=${WORK:-$(mktemp -d)}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" && go build -o "$W/tierd" ./cmd/tierd
mkdir -p "$W/xqtb" && cd "$W/xqtb"
printf 'MaxMem = 8192\nThreads = 2\nMaxPieces = 7\nGenerateRunList = 0\nGenerateTablebases = 1\nSaveWDL = 1\nSaveDTC = 1\nSaveDTM = 0\nwdltb = ./wdl/\ndtctb = ./dtc/\ntmpdir = ./tmp/\n' > option.ini
echo "$X" > autoList.txt
/usr/bin/time -f "xiangqitb $X: %e s, %M KiB peak" "$XIANGQITB/genegtb" > gen.log
"$DUMP" ./wdl/ "$X" > dump.txt
cd "$W"
/usr/bin/time -f "tierd $M: %e s, %M KiB peak" ./tierd solve --game xiangqi --option material=$M --out plain --workers 2 > /dev/null
/usr/bin/time -f "tierd $M rules=chessdb: %e s, %M KiB peak" ./tierd solve --game xiangqi --option material=$M,rules=chessdb --out rules --workers 2 > /dev/null
cd "$ROOT" && go run ./tools/xqcompare --material "$M" --rules "$W/rules" --plain "$W/plain" "$W/xqtb/dump.txt"
