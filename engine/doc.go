// Package engine is palace as an engine: it speaks the text protocols chess
// GUIs and match runners drive engines with (UCI, UCI with Fairy-Stockfish's
// UCI_Variant, UCCI, and CECP, xboard's protocol) and answers with palace's
// search. Engine reads
// commands line by line and answers them; its search runs in a goroutine of
// its own, so stop, isready and quit are answered while it thinks. (Package
// uci is the other direction: palace driving another engine program.)
//
// Each protocol is a type behind the protocol interface (protocol.go): the
// line that names one ("uci", "ucci", "xboard") chooses it, and it owns its commands,
// its handshake, how options are declared, move and score text and go's
// parameters; the Engine keeps what every protocol shares (the options'
// values, the position, the search and its job). The notes it writes to
// the client ("info string uci: ...") start "uci: " in every protocol, as
// they always have (the golden transcripts in testdata pin them); the
// errors Run returns start "engine: ".
//
// # Dialects and move notation
//
// Plain UCI, as Pikafish speaks it: xiangqi, moves with ranks 0–9 (h2e2).
// Once the client sets UCI_Variant (to any of rules.PresetNames: xiangqi,
// janggi, janggitraditional, janggimodern, janggicasual, janggiclassic),
// moves are written as Fairy-Stockfish writes them, ranks 1–10 (h3e3,
// a10a9).
// A "ucci" command switches to UCCI: "id", the options in UCCI's form
// (single-word names: hashsize, clearhash, ponder, MoveOverhead),
// "ucciok"; ranks 0–9; go's times in seconds unless "setoption
// usemillisec true"; "nobestmove" when there is no move; "bye" after quit.
// The MoveNotation option (auto, ranks1, ranks0) overrides the notation for
// both reading and writing. With auto, the notation is also read from the
// moves the client sends, whatever UCI_Variant says: a position's move list
// is read both ways, and one that only one reading plays (a move with rank
// 10 is ranks 1–10, one with rank 0 is ranks 0–9) is read that way, and
// the engine writes its own moves so until ucinewgame, UCI_Variant or
// MoveNotation; a list both readings play is read in the notation in
// force. UCI2WB, XBoard's adapter, writes ranks 0–9 (Cyclone's dialect)
// whatever UCI_Variant says, and marks its position commands: the moves
// keyword with no move after it, a FEN of board and side only. Until moves
// have told the notation, that mark means ranks 0–9, so that palace can
// move first under UCI2WB with no option set by hand
// (testdata/uci-uci2wb.txt). FENs are the same in every dialect and
// protocol (UCI's and UCCI's position, CECP's setboard): one reader takes
// them leniently, as GUIs write them, trailing fields shortened or left out
// ("FEN w 0 1", as XBoard writes them, "FEN w - - 3", "FEN w"), the rest
// being "- - 0 1". Two readings differ from Fairy-Stockfish 11.1's, which
// takes every side but "w" as Black: a side written "r" is red (Cho) to
// move, since the UCCI programs that write "r" mean red by it, and the
// board alone is red to move, the side that starts a game, where
// Fairy-Stockfish's reading would have the engine move for the wrong side.
// A janggi pass is the general's square twice (e2e2 with ranks 1–10).
//
// The network is palace's built-in one for the variant unless --net or
// WeightsFile names a checkpoint (model.Builtin, package nets); the
// handshake says so in one "info string uci: network: ..." line that names
// the network as palace net info does: for the built-in ones each file, id
// and games ("nets/xiangqi.palnet: network 6c42c12157bf5693, games
// xiangqi; nets/janggi.palnet: ..."), for a checkpoint its file, id and
// games, or why it does not load. Without
// a network (WeightsFile none or <empty>) it says "info string uci: no
// network: ..." instead: the search is then plain MCTS over uniform
// priors.
//
// # Commands
//
//	uci | ucci                  identify, list options, uciok | ucciok
//	isready                     readyok (loads the network first when idle)
//	setoption name N [value V]  (UCCI: setoption N [V]); names ignore case
//	ucinewgame                  drop the search tree; back to the start position
//	position startpos|fen FEN [moves M...]
//	go [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS movestogo N]
//	   [depth N] [mate N] [searchmoves M...] [infinite] [ponder] [perft N]
//	   UCCI: [time T increment T opptime T oppincrement T movestogo N depth N|infinite nodes N ponder draw]
//	stop                        end the search now: its bestmove follows
//	ponderhit                   the pondering search becomes a normal one (UCCI: [draw], ignored)
//	d                           print the position as "Fen: FEN"
//	quit                        stop and return (UCCI answers bye)
//	banmoves M...               UCCI: the position's search leaves these moves out
//	probe [startpos|fen FEN [moves M...]]
//	                            UCCI: pophash [bestmove M lowerbound S depth D upperbound S depth D]
//
// A malformed line never stops the engine: it answers "info string uci:
// ..." and goes on. A position command that cannot be applied (a bad FEN,
// an unreadable or illegal move in its list, in both readings of the
// notation) is reported and leaves the engine without a position: until a
// position command that applies (or ucinewgame), every go answers "info
// string uci: go: no position to search: ..." and "bestmove (none)" (UCCI
// "nobestmove"), a perft the note alone, d the note, so that a GUI never
// gets a move for a position it did not mean. A go before any position
// searches the start position. A go always ends in a bestmove (a perft in
// its count): bad arguments are reported and the rest of the command is
// used; only a perft depth outside 1–20 answers with the error alone. A go
// while a search runs stops it first (its bestmove is written); a perft is
// left to finish. A position whose game is over by a rule a GUI may not
// apply (repetition, move limit) but has moves is searched without its
// history, with a note; one without moves answers "bestmove (none)". debug
// and register are accepted and ignored. Lines longer than 1 MiB are
// dropped with a note.
//
// go searchmoves M... searches only those root moves (an illegal one is
// reported and dropped; none legal: every move). UCCI's banmoves M... takes
// moves out of the position's search until the next position command or
// ucinewgame (a later banmoves replaces the list); when it leaves no legal
// move, go answers nobestmove. Either way the tree keeps the other moves
// for later searches.
//
// probe (UCCI, ElephantEye's) looks a position up in the search tree
// without setting it: the position searched last, or one reached from it by
// the moves since in the same game (the tree of an idle engine; while a
// search runs, or after an option dropped the tree, nothing is found);
// without arguments, the position set. A position the tree holds answers
// "pophash bestmove M lowerbound S depth D upperbound S depth D": M its
// most visited move (the proof's, when proven), S its value in UCCI's
// centipawns as both bounds (an MCTS mean is an estimate, not a bound:
// palace writes what it has; a proof is exact), D the length of its
// principal variation. Any other answers "pophash".
//
// # Options
//
//	UCI_Variant    combo  rules.PresetNames; a new variant starts at its start position
//	MoveNotation   combo  auto, ranks1, ranks0
//	UCI_ShowWDL    check  wdl in info lines (UCI only)
//	usemillisec    check  go's times in ms (UCCI only)
//	Threads        spin   network copies evaluating each batch in parallel; the
//	                      search gathers 8 leaves per thread for each batch
//	Nodes          spin   the budget of a go without limits
//	DrawScore      spin   a draw's worth to the side choosing a move, in
//	                      hundredths of a win (lc0's draw score, -100..100,
//	                      0); below 0 the engine plays on rather than draw
//	Move Overhead  spin   ms kept back from every time limit (30); setoption
//	                      also takes MoveOverhead, UCCI's name for it
//	MultiPV        spin   lines in each set of info lines (1; UCI only)
//	Ponder         check  bestmove names the reply expected ("bestmove M
//	                      ponder P": the PV's second move, else a legal
//	                      reply, whenever there is one); UCCI: ponder
//	Hash           spin   the evaluation cache, in MB (16; 0: none; about 300
//	                      bytes a position); UCCI: hashsize. The search tree
//	                      is apart (Tree Memory)
//	Tree Memory    spin   the search tree's cap, in MB (1024, about 11
//	                      million nodes at 96 bytes a node; 1–65536); the
//	                      tree grows as a search needs it, up to the cap,
//	                      where a search stops with "info string uci: the
//	                      search tree is full (N nodes, Tree Memory M MB):
//	                      ..." (go infinite then waits for stop); UCCI:
//	                      treememory
//	Clear Hash     button empty the cache and drop the search tree; UCCI: clearhash
//	UCI_AnalyseMode check the client analyses: the search's draw score is
//	                      0, so that scores are the position's (UCI only)
//	Debug Log File string a file that gets every line exchanged from then
//	                      on, appended: "> " the client's, "< " the
//	                      engine's, each written at once (<empty>: none);
//	                      UCCI: debuglogfile
//	Skill Level    spin   0–20 (20: full strength); below 20 a weaker search:
//	                      up to 10 the network's single look, its move drawn
//	                      at a temperature falling from 2 (skill 0) to 0
//	                      (skill 10); from 10 to 20 the deterministic search
//	                      at 800^((skill−10)/10) simulations (12: 4, 14: 14,
//	                      16: 55, 18: 210); UCCI: skilllevel
//	UCI_LimitStrength check play at UCI_Elo (UCI only); over Skill Level
//	UCI_Elo        spin   the strength on palace's absolute scale (palace
//	                      ladder: Fairy-Stockfish at 1 node = 0, 100 nodes
//	                      about +170 in xiangqi, +275 in janggi): the
//	                      fractional skill whose rating it is, read between
//	                      the skills rated on the ladder with the built-in
//	                      network (strength.go; docs/strength-levels.md). A
//	                      value outside the variant's rated range plays its
//	                      nearest end; janggi's other rule sets use janggi's
//	                      calibration, said in an info string, as is what
//	                      each setting plays (simulations, temperature) at
//	                      the first go after a change. A limit caps every
//	                      move's search (pondering included), never go
//	                      infinite (UCI only)
//	WeightsFile    string the network checkpoint; builtin: palace's own for the
//	                      variant (palace uci's default); none or <empty>:
//	                      the uniform evaluator
//
// A network is loaded at the next isready or go; one that fails to load is
// reported and the uniform evaluator stands in. A new network, Threads or
// variant empties the cache.
//
// # Search budgets
//
// The search is palace's MCTS with the settings of an arena match: the full
// budget every move, no noise, Gumbel's deterministic choice. Its nodes are
// simulations (leaves visited below the root).
//
//   - go nodes N: one search of N simulations.
//   - go depth N: MCTS has no depth; it maps to 2^(N+3) simulations (depth 1:
//     16, 7: 1024, 10: 8192; at most 2^24). With nodes, the smaller budget.
//   - go with no limit: the Nodes option's budget (default 800).
//   - go mate N: the search ends as soon as the root is proven won in N
//     moves or fewer (2N−1 plies; palace's MCTS proves results, as
//     MCTS-Solver does), and considers every root move to find one. Its
//     budget is that of nodes, depth or the clock when given, else the
//     larger of Nodes and 2^(2N+8) simulations (mate 1: 1024, 3: 16384, at
//     most 2^24). Without the mate in that budget it answers with its best
//     move all the same, after "info string uci: go mate N: no mate in N
//     found" (a longer mate shows as its score).
//   - go movetime MS, or the clock (wtime/btime/winc/binc/movestogo): a time
//     limit of movetime less Move Overhead, or of remaining/movestogo +
//     0.8·increment capped at 0.8·remaining, remaining being the clock less
//     Move Overhead; without movestogo, 20 moves at the start of a game
//     with an increment, one fewer every 8 plies down to 8 (so that a
//     typical game's clock is used up, the increment keeping long games
//     going), and 30 without an increment; the overhead never takes more
//     than three quarters of movetime or the clock. The search runs as a
//     sequence of searches of the same tree: 32 simulations that no clock
//     cuts short (only stop does: every go searches at least that much, and
//     a go stopped before any search plays the network's choice after one
//     visit, never a move picked blind), then 64 and twice as many each
//     time, the last sized to the time left at the speed measured so far,
//     with the limit as a hard deadline; an "info" line follows each. The
//     move played is the last search's unless a deadline or stop cut it
//     short, then the one before.
//   - go infinite: the same sequence without a deadline until stop;
//     bestmove is written only after stop, even when the search has
//     nothing left to do.
//   - go ponder (the position after the reply the engine expects): the same
//     sequence without a deadline until ponderhit or stop. Its nodes, depth
//     or mate budget caps the whole go, pondering included; its time limits
//     count from ponderhit. At ponderhit the search goes on in the same tree
//     as a normal search under the go's limits (answering at once when the
//     budget is spent); at stop it answers with what it has (the GUI drops
//     it). Either way bestmove comes only after one of them.
//   - go perft N: each move's leaf count N plies deep ("h2e2: 44", sorted),
//     then "Nodes searched: TOTAL", as Stockfish writes it; stop ends it.
//
// The tree is kept between moves of a game (mcts reuses the subtree of the
// new position) and dropped by ucinewgame.
//
// # Info lines
//
//	info depth D seldepth S [multipv K] score cp C [wdl W D L] nodes N nps X [hashfull H] time MS pv M...
//
// depth is the depth the search has reached: the mean depth, in plies
// below the root, of the leaves this go's simulations reached, rounded, at
// least 1 (lc0's depth), and never less than the go's previous info line
// said, so that it rises from one line to the next as the search deepens
// (MCTS has no iterations of full width; the principal variation's length,
// which palace reported before, went up and down with the tree's shape);
// every line of a MultiPV set has the same depth. seldepth is the deepest
// leaf this go's searches reached (at least depth); nodes the simulations of this go so far;
// hashfull the evaluation cache's fill in per mille, estimated from the
// positions it stored (m positions hashed into E slots fill E·(1 −
// e^(−m/E)) in expectation), absent with Hash 0. The score is a value v ∈
// [-1, 1] (win − loss, side to move) as centipawns, cp =
// round(100·tan(1.5637·v)) clamped to ±9900 (lc0's shape: v = 0.5 is 99
// cp, 0.9 is 606 cp; see ValueToCentipawns). A result the search proved is
// "score mate M": M moves to the win, −M moves to the loss (M =
// ⌈plies/2⌉); a proven draw is cp 0. wdl (per mille, summing to 1000) is
// written when the client sets UCI_ShowWDL. With MultiPV K > 1 each set
// holds K lines, "multipv 1" to "multipv K", the root's moves (the
// searched ones only, with searchmoves or banmoves) ranked as the search
// ranks them: multipv 1 is the move bestmove plays, then the others by
// the search's policy target (Gumbel's improved policy, softmax(logit +
// σ(completed Q)), by which it chooses; ties by visits). Each line has its
// own PV and its move's own score: the move's value to the side to move,
// the mean of the results backed up through it (a proof's, when proven;
// for a move not visited, the root's estimate, Gumbel's v_mix). So a line
// below may score above multipv 1: Gumbel's choice weighs the network's
// prior with the value, and a move of few visits has an uncertain mean.
// With one line the score is the root's value, the mean over all its
// visits (restricted to some moves: the chosen move's).
//
// UCCI writes "info depth D score S nodes N time MS pv M..." (D as UCI's) with S in
// centipawns and a mate as ±(10000 − plies), ElephantEye's convention
// (above 9900 is a mate); no seldepth, hashfull or MultiPV.
//
// # CECP (xboard)
//
// A first line "xboard" chooses CECP, the Chess Engine Communication
// Protocol (version 2) as XBoard 4.9 and Fairy-Stockfish speak it
// (cecp.go). Unlike UCI the engine keeps the game: the GUI sends the moves
// one by one, and the engine answers "move M" when it is the side it
// plays. Moves have ranks 0–9 in every variant (h2e2), as XBoard numbers
// the 10-rank board; a pass is written "@@@@" (Fairy-Stockfish's CECP
// pass), and read as "@@@@" or as the general's square twice (e1e1).
//
//	protover N             the features: done=0, myname="palace VERSION",
//	                       variants="xiangqi,janggi,..." (rules.PresetNames),
//	                       setboard=1 usermove=1 ping=1 sigint=0 san=0
//	                       colors=0 analyze=1 memory=0 reuse=1 name=0
//	                       debug=1 exclude=0, an option= for each option
//	                       (spin, check as 0/1, combo, a ...File string as
//	                       -file), done=1
//	new                    the variant's start position; leave force mode,
//	                       the engine plays Black; drop the tree and sd's
//	                       depth (the variant and time control stay)
//	variant NAME           one of rules.PresetNames (a "9x10_" prefix is
//	                       allowed), at its start position
//	force                  play neither side (a search under way is dropped,
//	                       its move unsent)
//	go | playother         play the side to move (and start) | the other side
//	usermove M | M         the opponent's move (in force mode either side's);
//	                       then the engine moves when it is its turn
//	?                      move now
//	time N, otim N         the engine's and the opponent's clocks, centiseconds
//	level MPS BASE INC     moves per session (0: all), minutes or MIN:SEC,
//	                       seconds; st S: S seconds a move; sd D: go depth D
//	nps N                  unsupported: a note, ignored
//	post | nopost          thinking output while playing
//	analyze | exit | .     analysis (thinking output until exit; moves,
//	                       undo and setboard change the position); . is
//	                       accepted and answered with nothing
//	setboard FEN           the position, its FEN read as position's is
//	                       ("tellusererror Illegal position" for a bad
//	                       one); a FEN that is the game's position
//	                       after a pass is played as that pass, as XBoard
//	                       tells passes it cannot send
//	undo | remove          take back one ply | two
//	option NAME=VALUE      set an option (NAME as declared)
//	ping N                 pong N
//	result R {C}           the game is over: force mode
//	d                      "# Fen: FEN"
//	quit                   end
//
// hard makes the engine ponder: after its move it searches on in the
// position after it, writing nothing, until the GUI's next command
// (usually the opponent's move, whose subtree the next search reuses);
// easy stops that. random, computer, name, rating, ics, accepted, rejected,
// draw, hint, bk, cores, memory and egtpath are accepted and ignored. With
// a time control (level, st, or time) the search uses the clock as go's
// wtime/btime/movestogo would (movestogo from MPS and the move number);
// without one, the Nodes budget; sd caps either as go depth does.
// Thinking output is "PLY SCORE TIME NODES PV": PLY the depth of UCI's
// info lines, centipawns for the side to move (a proven win ±(100000 + moves),
// XBoard's mate score), centiseconds, simulations. When a move of the
// engine's ends the game, the result follows it ("1-0 {Red mates}", Cho and
// Han in janggi), and so after a move of the GUI's outside force mode.
// Malformed input is answered "Error (REASON): COMMAND", an illegal move
// "Illegal move (REASON): M", an unknown command "Error (unknown command):
// WORD"; other notes are "# ..." lines (debug output, which XBoard
// ignores).
//
// XBoard does not know janggi. After "variant janggi" (or another janggi
// preset), and at new in one, the engine sends what XBoard needs to show
// and check the game, as Fairy-Stockfish does for the variants XBoard
// lacks: "setup (.N.R.AB.P..C.........K.n.r.ab.p..c.........k)
// 9x10+0_xiangqi FEN" (the xiangqi board, palace's letters in slots of
// XBoard's piece table so that FENs read the same both ways, the soldier
// and general out of the Pawn and King slots so that XBoard applies no
// rule of its own to them; FEN the start position), then the
// pieces' moves in Betza notation as Fairy-Stockfish sends them ("piece R&
// RB", "piece C& pRpB", "piece P& fsWfF", "piece N& nN", "piece B&
// mafsmafW", "piece A& WF", "piece K& WF"). Betza cannot confine moves to
// the palace and its diagonals nor forbid the cannon to jump cannons, so
// XBoard allows a superset of the moves and the engine rejects the rest as
// illegal.
package engine
