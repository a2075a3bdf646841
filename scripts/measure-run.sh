#!/usr/bin/env bash
# Measures a palace run's best network the way issue 7 asks: 200 games (100
# pairs, colours swapped) against a random mover and 200 against the
# generation-0 network, with the run's arena search budget and game cap.
#
#   scripts/measure-run.sh RUN_DIR [SIMS] [MAX_PLIES]
#
# Records go to RUN_DIR/measure/; rerunning resumes them.
set -euo pipefail
run=${1:?usage: scripts/measure-run.sh RUN_DIR [SIMS] [MAX_PLIES]}
sims=${2:-32}
plies=${3:-200}
palace=${PALACE:-palace}
rules=$(sed -n 's/^rules: *\([^ #]*\).*/\1/p' "$run/config.yaml")
best=$(sed -n 's/.*"key":"\([^"]*\)".*/\1/p' "$run/best.json")
mkdir -p "$run/measure"
echo "== $run: best $best, rules $rules, $sims simulations, games capped at $plies plies"
for opp in random "net:$run/nets/gen-0000.palnet,sims=$sims"; do
	name=$( [ "$opp" = random ] && echo random || echo gen0 )
	"$palace" arena --rules "$rules" --max-plies "$plies" --pairs 100 --concurrency 16 --progress none \
		--player "net:$run/$best,sims=$sims" --player "$opp" --records "$run/measure/vs-$name.jsonl"
done
