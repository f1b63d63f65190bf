// dump: every legal position of one xiangqitb endgame with its WDL value,
// one line each: FEN (as xiangqitb writes it), side to move, value.
// Written for the tiersolve comparison; it only calls xiangqitb's API.
#include "chess/chess.h"
#include "chess/attack.h"
#include "chess/piece_config.h"
#include "egtb/egtb.h"
#include "egtb/egtb_gen.h"
#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
	if (argc != 3 && argc != 4) {
		std::fprintf(stderr, "usage: dump WDLDIR NAME [gen] (e.g. KRKN; gen for a table of the same pieces on both sides, read from its .gen file)\n");
		return 2;
	}
	init_possible();
	attack_init();
	EGTB_Paths paths;
	paths.add_wdl_path(argv[1]);
	paths.set_tmp_path("./tmp/");
	paths.init_directories();
	const Piece_Config ps{std::string(argv[2])};
	const Piece_Config_For_Gen epsi(ps);
	WDL_File_For_Probe wdl(paths, ps, argc == 4);
	const char* names[] = { "D", "L", "W", "X" };
	char fen[MAX_FEN_LENGTH];
	for (size_t i = 0; i < epsi.num_positions(); ++i) {
		for (const Color c : { WHITE, BLACK }) {
			Position_For_Gen pg(epsi, static_cast<Board_Index>(i), c);
			if (!pg.is_legal() || !pg.board().is_legal())
				continue;
			const WDL_Entry v = wdl.read(c, static_cast<Board_Index>(i));
			pg.get_fen(Span<char>(fen));
			std::printf("%s %s\n", fen, names[static_cast<int>(v)]);
		}
	}
	return 0;
}
