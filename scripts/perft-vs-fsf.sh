#!/usr/bin/env bash
# Times `palace perft` against Fairy-Stockfish's `go perft` on the same start
# positions, single-threaded, in one run, and prints both speeds and the ratio.
# Usage: scripts/perft-vs-fsf.sh [DEPTH_XIANGQI] [DEPTH_JANGGI]
set -euo pipefail
cd "$(dirname "$0")/.."
fsf=${PALACE_FSF:-/usr/games/fairy-stockfish}
[ -x "$fsf" ] || { echo "fairy-stockfish not found at $fsf (apt-get install fairy-stockfish)" >&2; exit 1; }
dx=${1:-5}
dj=${2:-5}
bin=$(mktemp -d)/palace
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/palace

now() { date +%s.%N; }
printf '%-8s %5s %12s %14s %14s %7s\n' game depth nodes "palace/s" "fsf/s" ratio
for spec in "xiangqi $dx" "janggi $dj"; do
	set -- $spec
	game=$1 depth=$2
	t0=$(now)
	pn=$("$bin" perft --rules "$game" --start --depth "$depth" | awk '/^nodes/{print $2}')
	t1=$(now)
	fn=$(printf 'uci\nsetoption name Threads value 1\nsetoption name UCI_Variant value %s\nposition startpos\ngo perft %s\nquit\n' "$game" "$depth" |
		"$fsf" | awk '/^Nodes searched/{print $3}')
	t2=$(now)
	if [ "$pn" != "$fn" ]; then
		echo "MISMATCH on $game depth $depth: palace $pn, fairy-stockfish $fn" >&2
		exit 1
	fi
	awk -v g="$game" -v d="$depth" -v n="$pn" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
		ps = n / (b - a); fs = n / (c - b)
		printf "%-8s %5d %12d %14.0f %14.0f %6.2fx\n", g, d, n, ps, fs, ps / fs }'
done
