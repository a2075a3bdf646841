#!/usr/bin/env bash
# palace uci at the clocks people play (issue 45 items 3 and 4): its
# built-in network for GAME at 1 s a move and at 1 minute + 1 s a game,
# each placed on the absolute scale (palace ladder: Fairy-Stockfish at fixed
# nodes) and played against Fairy-Stockfish at the same clock. Every engine
# has one thread; two games run at once, so that on a 2-core machine each
# engine that is thinking has a core (the one not to move waits).
#
#   scripts/clock-matches.sh GAME DIR [PAIRS] [SEED]
#
# GAME is xiangqi or janggi; PAIRS (default 10) game pairs a match and a
# ladder rung, colours swapped; SEED (default 4501) the openings' (4 random
# plies). PALACE names the palace binary (default: palace on PATH), FSF
# Fairy-Stockfish (default /usr/games/fairy-stockfish). Records, ratings
# and summaries go to DIR; running it again resumes every match. The clock
# matches' summaries say how each engine used its clock (time left at the
# games' ends, games lost on time).
set -euo pipefail
game=${1:?usage: scripts/clock-matches.sh GAME DIR [PAIRS] [SEED]}
dir=${2:?usage: scripts/clock-matches.sh GAME DIR [PAIRS] [SEED]}
pairs=${3:-10}
seed=${4:-4501}
palace=${PALACE:-$(command -v palace || true)}
fsf=${FSF:-/usr/games/fairy-stockfish}
[ -x "$palace" ] || { echo "clock-matches: no palace binary (set PALACE)" >&2; exit 2; }
[ -x "$fsf" ] || { echo "clock-matches: no Fairy-Stockfish at $fsf (set FSF)" >&2; exit 2; }
mkdir -p "$dir"
engine="uci:$palace,arg=uci,option.Threads=1"
other="uci:$fsf,option.Threads=1"
common=(--rules "$game" --pairs "$pairs" --opening-plies 4 --concurrency 2 --progress log)

for clock in movetime=1000 tc=60+1; do
	name=${clock//=/-}
	echo "== $game, palace at $clock on the ladder"
	"$palace" ladder --player "$engine,$clock" "${common[@]}" --seed "$seed" --out "$dir/ladder-$name" |
		tee "$dir/ladder-$name.log" | tail -n 12
	echo "== $game, palace against Fairy-Stockfish, both at $clock"
	"$palace" arena --player "$engine,$clock" --player "$other,$clock" "${common[@]}" --seed "$((seed + 1))" \
		--out "$dir/fsf-$name.jsonl" | tee "$dir/fsf-$name.log" | tail -n 16
done
