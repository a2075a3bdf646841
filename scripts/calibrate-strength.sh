#!/usr/bin/env bash
# Rates palace uci's Skill Levels on the ladder, then checks UCI_Elo settings
# on other openings: the games behind engine/strength.go's calibration
# (issue 50; docs/strength-levels.md). Needs fairy-stockfish.
#
#   scripts/calibrate-strength.sh skills GAME SKILL...   rate Skill Level SKILL (20 pairs a rung, seed 5001)
#   scripts/calibrate-strength.sh check GAME ELO...      rate UCI_Elo ELO (20 pairs a rung, seed SEED, default 5101;
#                                                       a check's seed is 5101-5199, never the calibration's)
#
# Records go to engine/testdata/strength/GAME/skill-SKILL and .../elo-ELO
# (OUT overrides); rerunning resumes them. Each rating's JSON is printed.
set -euo pipefail
what=${1:?usage: scripts/calibrate-strength.sh skills|check GAME VALUE...}
game=${2:?usage: scripts/calibrate-strength.sh skills|check GAME VALUE...}
shift 2
palace=$(command -v "${PALACE:-palace}")
out=${OUT:-engine/testdata/strength}
for v in "$@"; do
	case $what in
	skills) opts="option.Skill Level=$v" dir=$out/$game/skill-$v seed=5001 ;;
	check) opts="option.UCI_LimitStrength=true,option.UCI_Elo=$v" dir=$out/$game/elo-$v seed=${SEED:-5101} ;;
	*) echo "calibrate-strength.sh: want skills or check, got $what" >&2; exit 2 ;;
	esac
	"$palace" ladder --rules "$game" --player "uci:$palace,arg=uci,$opts,nodes=800" \
		--pairs 20 --seed "$seed" --opening-plies 4 --concurrency 2 --progress none --json --out "$dir"
done
