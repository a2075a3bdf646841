// Package uci drives other engine programs (Fairy-Stockfish, Pikafish, a
// UCCI engine, or palace uci itself) over the text protocols UCI, UCI with
// Fairy-Stockfish's UCI_Variant, and UCCI: Client starts the program, does
// the handshake, sets the variant and the options the program advertised
// (Option), and asks for moves under node, depth and time limits, checking
// each legal and telling a hung or crashed program from a slow one. palace
// arena plays external engines through it. Palace as an engine, the other
// direction, is package engine.
//
// # Dialects and move notation
//
// Plain UCI, as Pikafish speaks it: xiangqi, moves with ranks 0–9 (h2e2).
// An engine that advertises UCI_Variant gets the rule set's name (or the
// game's) and is then spoken to in Fairy-Stockfish's notation, ranks 1–10
// (h3e3, a10a9). UCCI (ClientConfig.Protocol "ucci"): "ucci" … "ucciok",
// options without "name", ranks 0–9, no ucinewgame, go's times in seconds
// (the side to move's time first) unless the engine offers usemillisec,
// "nobestmove" when there is no move. ClientConfig.Notation overrides the
// notation. A janggi pass is the general's square twice.
package uci
