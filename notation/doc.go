// Package notation reads and writes single moves in the notations game
// records use, each resolved against a rules.Game to exactly one legal
// move: ICCS coordinates, WXF (ASCII and full-width), Chinese (traditional
// and simplified), and Fairy-Stockfish's SAN for both games.
package notation
