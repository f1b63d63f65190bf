#!/bin/sh
# gen.sh TABLE: generates xiangqitb's (ChessDB's generator's) WDL and DTC
# tables of TABLE (for example KRNKRA) and the sub-tables it needs, on 2
# threads, in the current folder: the peer of the bench's games group of
# the same endgame. XIANGQITB names a built checkout (its genegtb), by
# default /work/peers/xiangqitb as ../shared/peers builds it.
set -eu
XIANGQITB=${XIANGQITB:-/work/peers/xiangqitb}
printf 'MaxMem = 8192\nThreads = 2\nMaxPieces = 7\nGenerateRunList = 0\nGenerateTablebases = 1\nSaveWDL = 1\nSaveDTC = 1\nSaveDTM = 0\nwdltb = ./wdl/\ndtctb = ./dtc/\ntmpdir = ./tmp/\n' > option.ini
echo "$1" > autoList.txt
exec "$XIANGQITB/genegtb" > gen.log
