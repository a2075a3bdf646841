#!/usr/bin/env bash
# Measures a palace run's best network the way issue 7 asks: 200 games (100
# pairs, colours swapped) against a random mover and 200 against the
# generation-0 network, with the run's arena search (arena.simulations, and
# arena.search's draw_score, root_lookahead and mate_check in block form)
# and game cap (arena.max_plies, else selfplay.max_plies) from the run's
# config.yaml, unless SIMS or MAX_PLIES say otherwise.
#
#   scripts/measure-run.sh RUN_DIR [SIMS] [MAX_PLIES]
#
# Then the absolute scale: the best network on the ladder (palace ladder, the
# built-in scale of the run's rules; needs fairy-stockfish) with the arena
# search and with LADDER_SIMS (default 800, palace uci's) simulations, 10
# pairs a rung.
#
# Records go to RUN_DIR/measure/; rerunning resumes them.
set -euo pipefail
run=${1:?usage: scripts/measure-run.sh RUN_DIR [SIMS] [MAX_PLIES]}
cfg=$run/config.yaml
# key KEY SECTION: the value of "  KEY:" inside the top-level "SECTION:" block.
key() {
	awk -v sec="$2:" -v key="$1:" '
		/^[^ #]/ { in_sec = ($1 == sec) }
		in_sec && $1 == key && /^  [^ ]/ { print $2; exit }' "$cfg"
}
# arena_search KEY: the value of "    KEY:" in arena's "  search:" block.
arena_search() {
	awk -v key="$1:" '
		/^[^ #]/ { in_arena = ($1 == "arena:"); in_search = 0 }
		/^  [^ ]/ { in_search = in_arena && $1 == "search:" }
		in_search && $1 == key && /^    [^ ]/ { print $2; exit }' "$cfg"
}
sims=${2:-$(key simulations arena)}
plies=${3:-$(key max_plies arena)}
plies=${plies:-$(key max_plies selfplay)}
: "${sims:?no arena simulations in $cfg; pass SIMS}" "${plies:?no max_plies in $cfg; pass MAX_PLIES}"
draw=$(arena_search draw_score)
search="sims=$sims${draw:+,draw=$draw}"
[ "$(arena_search root_lookahead)" = false ] && search="$search,lookahead=0"
[ "$(arena_search mate_check)" = false ] && search="$search,matecheck=0"
palace=${PALACE:-palace}
rules=$(sed -n 's/^rules: *\([^ #]*\).*/\1/p' "$cfg")
best=$(sed -n 's/.*"key":"\([^"]*\)".*/\1/p' "$run/best.json")
mkdir -p "$run/measure"
echo "== $run: best $best, rules $rules, search $search, games capped at $plies plies"
for opp in random "net:$run/nets/gen-0000.palnet,$search"; do
	name=$( [ "$opp" = random ] && echo random || echo gen0 )
	"$palace" arena --rules "$rules" --max-plies "$plies" --pairs 100 --concurrency 16 --progress none \
		--player "net:$run/$best,$search" --player "$opp" --out "$run/measure/vs-$name.jsonl"
done
for s in "$sims" "${LADDER_SIMS:-800}"; do
	"$palace" ladder --rules "$rules" --pairs 10 --concurrency 4 --progress none --out "$run/measure/ladder-sims$s" \
		--player "net:$run/$best,sims=$s${search#sims=$sims}"
done
