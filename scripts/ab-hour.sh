#!/usr/bin/env bash
# An A/B of two run configs at equal wall-clock (issue 43: every change is
# kept only if it helps at the budget that counts): A and B run at once,
# one core each (GOMAXPROCS=1, pinned with taskset), for the same duration;
# then the best network of each plays the other at 800 simulations on
# choosing openings (colours swapped), and each is rated on the ladder at
# 800 simulations. Report a kept change on fresh openings afterwards
# (docs/self-play-strength.md: choosing seeds 4301-4399, the reporting seed
# 43043 touched once).
#
#   scripts/ab-hour.sh A.yaml B.yaml DIR [DURATION] [SEED] [PAIRS]
#
# DURATION (default 60m) each run's `palace run --duration`; SEED (default
# 4305) the match's openings (4 random plies) and the ladders'; PAIRS
# (default 50) the match's game pairs. PALACE names the palace binary
# (default: palace on PATH); SIMS (default 800) the match's and the
# ladders' simulations; LADDERS=0 skips the ladders. The runs go to DIR/a and DIR/b, the match to
# DIR/match.jsonl, the ladders to DIR/ladder-a and DIR/ladder-b; rerunning
# resumes the runs (each for DURATION more) and the match.
set -euo pipefail
usage="usage: scripts/ab-hour.sh A.yaml B.yaml DIR [DURATION] [SEED] [PAIRS]"
a=${1:?$usage}
b=${2:?$usage}
dir=${3:?$usage}
duration=${4:-60m}
seed=${5:-4305}
pairs=${6:-50}
palace=${PALACE:-$(command -v palace || true)}
sims=${SIMS:-800}
[ -x "$palace" ] || { echo "ab-hour: no palace binary (set PALACE)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "ab-hour: needs two cores (one a run)" >&2; exit 2; }
mkdir -p "$dir"
rules=$(awk '/^rules:/ { print $2; exit }' "$a")
[ "$rules" = "$(awk '/^rules:/ { print $2; exit }' "$b")" ] || { echo "ab-hour: $a and $b play other rules" >&2; exit 2; }

# run NAME CONFIG CORE: one run on one core (a resumed run keeps its config).
run() {
	local cfg=(--config "$2")
	[ -e "$dir/$1/config.yaml" ] && cfg=()
	GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 taskset -c "$3" "$palace" run "${cfg[@]}" --dir "$dir/$1" --duration "$duration" --progress log >>"$dir/$1.log" 2>&1
}
echo "== $rules: $a and $b, $duration each, one core each"
run a "$a" 0 &
run b "$b" 1 &
wait
best() { python3 -c "import json,sys; print(sys.argv[1] + '/' + json.load(open(sys.argv[1] + '/best.json'))['key'])" "$dir/$1"; }
na=$(best a) nb=$(best b)
echo "== best: A $na, B $nb; A against B at $sims simulations"
"$palace" arena --rules "$rules" --player "net:$na,sims=$sims" --player "net:$nb,sims=$sims" --pairs "$pairs" \
	--opening-plies 4 --seed "$seed" --concurrency 4 --out "$dir/match.jsonl" --progress log >"$dir/match.log" 2>&1
tail -n 12 "$dir/match.log"
[ "${LADDERS:-1}" = 0 ] && exit 0
echo "== ladders at $sims simulations"
GOMAXPROCS=1 taskset -c 0 "$palace" ladder --rules "$rules" --player "net:$na,nodes=$sims" --pairs 10 --seed "$seed" \
	--out "$dir/ladder-a" --progress log >"$dir/ladder-a.log" 2>&1 &
GOMAXPROCS=1 taskset -c 1 "$palace" ladder --rules "$rules" --player "net:$nb,nodes=$sims" --pairs 10 --seed "$seed" \
	--out "$dir/ladder-b" --progress log >"$dir/ladder-b.log" 2>&1 &
wait
grep -h "rating" "$dir/ladder-a.log" "$dir/ladder-b.log"
