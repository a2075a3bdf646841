#!/usr/bin/env bash
# A hostile user's pass over the palace command line (issue 25: nothing a
# user types can crash, hang or quietly corrupt palace). Runs a list of
# hostile cases, each under a timeout and a memory limit, with standard
# input from /dev/null unless the case gives some, and classifies each:
#
#   error    exit 1 or 2 and a message on stderr that starts "palace " (or
#            "palace:" / "usage: palace" at the top level): a clear refusal
#   ok       exit 0 where that is right (the case expects ok or any)
#   silent   exit 0 where palace should have refused (an unexpected acceptance)
#            and nothing from palace on stderr
#   warned   exit 0 where palace should have refused, with a warning from
#            palace on stderr (reported, not counted as a failure)
#   panic    "panic:", "goroutine N [", "fatal error" or SIGSEGV on stderr,
#            or an exit status of 128 or more not caused by our timeout
#   hang     killed by the timeout
#   oom      out of memory (Go's "out of memory", "cannot allocate memory",
#            a thread that could not be created under the limit)
#   unclear  any other exit status, or exit 1/2 without a "palace " message
#   fail     an error where the case expects exit 0 (a regression, or a
#            fixture that no longer works)
#   corrupt  the case's post-check failed: an input, a fixture or a device
#            was changed, a file was written where none should be, or
#            palace ended by itself leaving temporary files
#   block    a case that opens a FIFO nobody writes timed out: opening a
#            FIFO blocks in the kernel (cat does the same); noted, not a failure
#   long     a case that asks for a huge amount of work was still working at
#            its (short) timeout without running out of memory: as asked
#
# Usage: scripts/hostile-pass.sh [PALACE_BINARY [WORK_DIR]]
#   PALACE_BINARY  default: built from this repository into a temporary dir
#   WORK_DIR       default: a new temporary directory (kept, its path printed)
# Environment:
#   HOSTILE_ONLY=REGEX     run only the cases whose command line matches
#   HOSTILE_LIST=1         list the cases (number, expectation, command) without running them
#   HOSTILE_TIMEOUT=SECS   the usual timeout (default 20)
#   HOSTILE_MEM_GB=N       the usual address-space limit (default 4)
#   HOSTILE_INF_MEM_GB=N   the limit for cases reading an endless input
#                          (/dev/zero, /dev/urandom; default 2: an endless
#                          read then runs out in seconds, not a minute)
# Output: one line per case (class, expectation, exit status, milliseconds,
# command, the stderr line that matters: a crash's first line, else palace's
# last message, else the first line), then the counts. Details of every
# case stay in WORK_DIR/c/N (.out, .err) and WORK_DIR/results.tsv.
# Exit status: 1 if any case is panic, hang, oom, silent, unclear, fail or
# corrupt; else 0.
set -u -o pipefail
set -f # no globbing of case arguments

repo=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-}
W=${2:-}
if [ -z "$BIN" ]; then
	bdir=$(mktemp -d)
	BIN=$bdir/palace
	echo "building $BIN" >&2
	(cd "$repo" && go build -o "$BIN" ./cmd/palace) || { echo "hostile-pass: build failed" >&2; exit 3; }
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -x "$BIN" ] || { echo "hostile-pass: $BIN is not executable" >&2; exit 3; }
[ -n "$W" ] || W=$(mktemp -d /tmp/hostile-pass.XXXXXX)
mkdir -p "$W"
W=$(cd "$W" && pwd)
rm -rf "$W/c" "$W/fx"
mkdir -p "$W/c" "$W/fx"
F=$W/fx
TIMEOUT=${HOSTILE_TIMEOUT:-20}
MEM=$(( ${HOSTILE_MEM_GB:-4} << 20 ))         # KiB, for ulimit -v
INF=$(( ${HOSTILE_INF_MEM_GB:-2} << 20 ))
ONLY=${HOSTILE_ONLY:-}
RESULTS=$W/results.tsv
: >"$RESULTS"
echo "hostile-pass: binary $BIN, work $W" >&2

# ---------------------------------------------------------------- fixtures
P() { "$BIN" "$@"; } # fixtures are made without limits; a failure stops the pass
die() { echo "hostile-pass: fixture: $*" >&2; exit 3; }
(
	set -e
	cd "$F"
	printf 'blocks: 1\nfilters: 8\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n' >tiny.yaml
	P net init --rules janggi --config tiny.yaml --out janggi.palnet >/dev/null
	P net init --rules xiangqi --config tiny.yaml --out xq.palnet >/dev/null
	cat >x.pgn <<'EOF'
[Event "hostile fixture 1"]
[Red "A"]
[Black "B"]
[Result "1-0"]

1. h2e2 h9g7 2. h0g2 i9h9 3. c3c4 g6g5 4. b0c2 b9c7 5. i0i1 c9e7 1-0

[Event "hostile fixture 2"]
[Result "0-1"]

1. h2e2 b9c7 2. h0g2 h7f7 3. g3g4 h9g7 4. b2c2 i9h9 0-1

EOF
	P import --out games.jsonl x.pgn >/dev/null 2>&1
	cat >sp.yaml <<EOF
output: $F/sp
rules: xiangqi
games: 4
seed: 11
concurrent_games: 2
games_per_shard: 2
max_plies: 30
cache_entries: 4096
random_network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 2}
search: {simulations: 8, cheap_simulations: 2, gumbel_k: 4}
EOF
	P selfplay --config sp.yaml --progress none >/dev/null
	cat >run.yaml <<'EOF'
rules: xiangqi
seed: 5
generations: 1
network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 2}
selfplay:
  games: 8
  concurrent_games: 4
  max_plies: 30
  games_per_shard: 4
  cache_entries: 4096
  search: {simulations: 8, cheap_simulations: 2, gumbel_k: 4}
train:
  batch: 32
  samples_per_position: 2
  window: {min_rows: 100}
  checkpoint_every: 4
  schedule: {kind: constant, rate: 0.02}
arena:
  pairs: 4
  opening_plies: 2
  simulations: 4
  concurrent_games: 4
  evaluators: 1
  sprt: {elo0: 0, elo1: 200}
  accept_score: 0.5
EOF
	P run --config run.yaml --dir run1 --progress none >/dev/null 2>&1
	cat >train.yaml <<'EOF'
seed: 1
network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 1}
epochs: 1
eval_every: 0
train:
  batch: 32
  schedule: {kind: constant, rate: 0.01}
  checkpoint_every: 10
EOF
	printf 'base: xiangqi\nname: hostile\nrepetition: 3\n' >rules.yaml
	# A match record of a real (tiny) match, to resume and to damage.
	P arena --player random --player random --pairs 2 --records arena.jsonl --progress none >/dev/null
	# Pseudo-random bytes, the same every pass where openssl is there.
	rnd() {
		if command -v openssl >/dev/null; then
			{ openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv "$(printf '%032x' "$1")" -in /dev/zero 2>/dev/null || true; } | head -c "$2"
		else
			head -c "$2" /dev/urandom
		fi
	}
	for e in bin pgn gib xqf palnet shard jsonl yaml; do rnd 1 65536 >"rand.$e"; done
	: >empty
	for e in pgn gib palnet shard jsonl yaml; do : >"empty.$e"; done
	mkdir emptydir
	mkfifo fifo
	ln -s loop2 loop1
	ln -s loop1 loop2
	ln -s nowhere dangling
	# Truncated and damaged real files.
	s=$(stat -c %s xq.palnet)
	head -c $((s / 2)) xq.palnet >xq-half.palnet
	head -c 100 xq.palnet >xq-100.palnet
	cp xq.palnet xq-flip.palnet
	printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' | dd of=xq-flip.palnet bs=1 seek=$((s / 2)) conv=notrunc 2>/dev/null
	head -c -1 xq.palnet >xq-less1.palnet
	{ cat xq.palnet; printf 'trailing junk'; } >xq-trail.palnet
	shard=sp/shard-000000.shard
	ss=$(stat -c %s $shard)
	head -c $((ss / 2)) $shard >trunc.shard
	head -c 10 $shard >trunc10.shard
	cp $shard flip.shard
	printf '\377\377\377\377\377\377\377\377' | dd of=flip.shard bs=1 seek=$((ss / 2)) conv=notrunc 2>/dev/null
	gs=$(stat -c %s games.jsonl)
	head -c $((gs * 2 / 3)) games.jsonl >games-trunc.jsonl
	head -n 1 games.jsonl >games-header.jsonl
	{ cat games.jsonl; printf '{"garbage": [1, 2\n'; } >games-badline.jsonl
	sed 's/"moves":"h3e3/"moves":"zz99/' games.jsonl >games-badmove.jsonl
	sed 's/"moves":"h3e3/"moves":"e1e3/' games.jsonl >games-illegal.jsonl
	sed 's/"plies":10/"plies":99/' games.jsonl >games-badplies.jsonl
	sed 's/"result":"1-0"/"result":"7-7"/' games.jsonl >games-badresult.jsonl
	sed 's/"start_fen":"rnbakabnr/"start_fen":"garbage/' games.jsonl >games-badfen.jsonl
	cmp -s games.jsonl games-badmove.jsonl && { echo "games-badmove.jsonl: the edit missed" >&2; exit 1; }
	sed 's/"palace-games"/"palace-gamez"/' games.jsonl >games-badformat.jsonl
	sed 's/"version":2/"version":99/' games.jsonl >games-version99.jsonl
	ars=$(stat -c %s arena.jsonl)
	head -c $((ars * 2 / 3)) arena.jsonl >arena-trunc.jsonl
	# Damaged copies of the self-play directory and the run directory.
	cp -r sp sp-trunc && head -c $((ss / 2)) $shard >sp-trunc/shard-000000.shard
	cp -r sp sp-flip && cp flip.shard sp-flip/shard-000000.shard
	cp -r sp sp-badmanifest && printf '{"garbage":' >sp-badmanifest/manifest.json
	cp -r sp sp-nomanifest && rm sp-nomanifest/manifest.json
	cp -r sp sp-noshard && rm sp-noshard/shard-000001.shard
	cp -r sp sp-badgames && rnd 2 2000 >sp-badgames/shard-000000.games.jsonl
	cp -r sp sp-randshard && cp rand.shard sp-randshard/shard-000000.shard
	cp -r run1 run-badstate && printf '{"gen": ' >run-badstate/state.json
	cp -r run1 run-badmetrics && rnd 3 3000 >run-badmetrics/metrics.jsonl
	cp -r run1 run-badbest && printf 'nope' >run-badbest/best.json
	cp -r run1 run-badconfig && head -c 40 run1/config.yaml >run-badconfig/config.yaml
	cp -r run1 run-truncnet && head -c 1000 run1/nets/gen-0001.palnet >run-truncnet/nets/gen-0001.palnet
	cp -r run1 run-nonets && rm -r run-nonets/nets
	mkdir notarun && cp games.jsonl notarun/
	# Devices of our own for outputs (as root, palace must never rename over /dev/null).
	if mknod null c 1 3 2>/dev/null && mknod full c 1 7 2>/dev/null; then :; else
		rm -f null full; ln -s /dev/null null; ln -s /dev/full full
	fi
) || die "could not make the fixtures in $F"
[ -e "$F/xq.palnet" ] || die "no xq.palnet"
GIB=$(ls "$repo"/gib/testdata/*.gib 2>/dev/null | head -1)
if [ -n "$GIB" ]; then cp "$GIB" "$F/real.gib"; fi

# Malicious YAML.
(
	cd "$F"
	{
		echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
		prev=a
		for k in b c d e f g h i j; do
			printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' $k $k $prev $prev $prev $prev $prev $prev $prev $prev $prev
			prev=$k
		done
	} >bomb-top.yaml
	deep() { local n=$1; printf '%s' "$2"; head -c "$n" /dev/zero | tr '\0' '['; head -c "$n" /dev/zero | tr '\0' ']'; echo; }
	deep 100000 'games: ' >deep-seq.yaml
	{ printf 'search: '; for _ in $(seq 20000); do printf '{a: '; done; printf '1'; for _ in $(seq 20000); do printf '}'; done; echo; } >deep-map.yaml
	{ head -c 10000000 /dev/zero | tr '\0' 'k'; echo ': 1'; } >bigkey.yaml
	{ printf 'output: '; head -c 10000000 /dev/zero | tr '\0' 'o'; echo; } >bigvalue.yaml
	printf 'a: 1\n  b: [\n{{{\n' >syntax.yaml
	printf '\xef\xbb\xbf\xff\xfe\x00\x01\x02: \x03\n' >binary.yaml
	printf -- '---\noutput: a\n---\noutput: b\n' >multidoc.yaml
	printf 'output: !!binary AAAA\n' >tagged.yaml
	printf '<<: *nope\n' >badalias.yaml
	printf '&a [*a]\n' >selfalias.yaml
)
sp_base() { # a valid tiny self-play config writing to $1, then extra lines
	printf 'output: %s\nrules: xiangqi\ngames: 2\nseed: 11\nconcurrent_games: 2\ngames_per_shard: 2\nmax_plies: 20\ncache_entries: 4096\nrandom_network: {blocks: 1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8, seed: 2}\nsearch: {simulations: 8, cheap_simulations: 2, gumbel_k: 4}\n' "$1"
}
# sp_cfg NAME 'yaml lines replacing keys' : NAME.yaml = the base with keys overridden (later keys win? no: yaml.v3 refuses duplicates), so
# the override lines replace the base's lines of the same keys.
sp_cfg() {
	local name=$1 over=$2 base keys
	base=$(sp_base "$W/c/spout-$name")
	keys=$(printf '%s\n' "$over" | sed -n 's/^\([a-z_]*\):.*/\1/p' | paste -sd'|')
	if [ -n "$keys" ]; then base=$(printf '%s\n' "$base" | grep -vE "^($keys):"); fi
	printf '%s\n%s\n' "$base" "$over" >"$F/sp-$name.yaml"
}
run_cfg() { # run_cfg NAME 'override yaml' using the same replace-by-top-level-key rule
	local name=$1 over=$2 keys base
	base=$(cat "$F/run.yaml")
	keys=$(printf '%s\n' "$over" | sed -n 's/^\([a-z_]*\):.*/\1/p' | paste -sd'|')
	if [ -n "$keys" ]; then
		base=$(printf '%s\n' "$base" | awk -v k="^($keys):" '$0 ~ k {skip=1; next} /^[a-z_]/ {skip=0} !skip')
	fi
	printf '%s\n%s\n' "$base" "$over" >"$F/run-$name.yaml"
}
train_cfg() {
	local name=$1 over=$2 keys base
	base=$(cat "$F/train.yaml")
	keys=$(printf '%s\n' "$over" | sed -n 's/^\([a-z_]*\):.*/\1/p' | paste -sd'|')
	if [ -n "$keys" ]; then
		base=$(printf '%s\n' "$base" | awk -v k="^($keys):" '$0 ~ k {skip=1; next} /^[a-z_]/ {skip=0} !skip')
	fi
	printf '%s\n%s\n' "$base" "$over" >"$F/train-$name.yaml"
}

# ------------------------------------------------------------- the runner
n=0
declare -A count=()
fails=0
stamp=$W/.stamp
# The fixtures as they were: a deleted one is reported at the end.
find "$F" -type f ! -name '*.lock' | sort >"$W/.fixtures"
# Messages that are palace's own, and the marks of a crash or of memory running out.
re_clear='^(palace[ :]|usage: palace)'
re_oom='out of memory|cannot allocate memory|pthread_create failed|Resource temporarily unavailable'
re_panic='panic:|goroutine [0-9]+ \[|fatal error|SIGSEGV'

# show ARGS...: sets SHOWN to the command line as the report prints it (W for the work dir).
show() {
	local a q
	SHOWN=palace
	for a in "$@"; do
		if [ ${#a} -gt 120 ]; then a="${a:0:60}…(${#a} chars)"; fi
		if [[ $a =~ [^A-Za-z0-9_@%+=:,./-] || -z $a ]]; then printf -v q '%q' "$a"; a=$q; fi
		SHOWN+=" $a"
	done
	SHOWN=${SHOWN//$W/W}
}

# c EXPECT [in=FILE] [t=SECS] [mem=KIB] [pre=SHELL] [check=SHELL] -- ARGS...
# EXPECT: err (must be refused clearly), ok (must succeed), any (either is
# fine), block (may block on a FIFO), long (may work past a short timeout).
# pre runs in the case's fresh working directory before palace, check
# after it (a failing check is a corruption).
c() {
	local expect=$1
	shift
	local in=/dev/null t=$TIMEOUT mem=$MEM pre= check=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		in=*) in=${1#in=} ;;
		t=*) t=${1#t=} ;;
		mem=*) mem=${1#mem=} ;;
		pre=*) pre=${1#pre=} ;;
		check=*) check=${1#check=} ;;
		*) echo "hostile-pass: bad case option $1" >&2; exit 3 ;;
		esac
		shift
	done
	shift
	n=$((n + 1))
	show "$@"
	local cmd=$SHOWN
	if [ "$in" != /dev/null ]; then cmd+=" < ${in//$W/W}"; fi
	if [ -n "$pre" ]; then cmd+="  [setup: ${pre//$W/W}]"; fi
	if [ -n "$ONLY" ] && ! [[ $cmd =~ $ONLY ]]; then return; fi
	if [ -n "${HOSTILE_LIST:-}" ]; then printf '%d\t%s\t%s\n' "$n" "$expect" "$cmd"; return; fi
	local d=$W/c/$n
	mkdir -p "$d"
	if [ -n "$pre" ]; then (cd "$d" && eval "$pre") >"$d/.pre" 2>&1 || echo "hostile-pass: case $n: setup failed: $(head -c 200 "$d/.pre")" >&2; fi
	printf x >"$stamp"
	local s=$EPOCHREALTIME rc=0 el
	# (The outer subshell keeps bash's "Killed" notice off the report.)
	{ (cd "$d" && ulimit -v "$mem" && exec timeout -k 2 "$t" "$BIN" "$@") <"$in" >"$d/.out" 2>"$d/.err"; rc=$?; } 2>/dev/null
	local e=$EPOCHREALTIME
	s=${s/./} e=${e/./}
	el=$(((10#$e - 10#$s) / 1000))
	local err=
	IFS= read -r -d '' -N 65536 err <"$d/.err" 2>/dev/null
	local cls
	if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && [ $el -ge $((t * 1000)) ]; }; then
		cls=hang
		case $expect in block) cls=block ;; long) cls=long ;; esac
		[[ $err =~ $re_oom ]] && cls=oom
	elif [[ $err =~ $re_oom ]]; then
		cls=oom
	elif [[ $err =~ $re_panic ]] || [ $rc -ge 128 ]; then
		cls=panic
	elif [ $rc -eq 0 ]; then
		case $expect in
		ok | any | long) cls=ok ;;
		*) if [[ $'\n'$err =~ $'\n'palace[\ :] ]]; then cls=warned; else cls=silent; fi ;;
		esac
	elif { [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && [[ $'\n'$err =~ $'\n'(palace[ :]|usage: palace) ]]; then
		cls=error
		[ "$expect" = ok ] && cls=fail
	else
		cls=unclear
	fi
	# Post-conditions: the case's own, the fixtures untouched, no temporary files left.
	local note=
	if [ -n "$check" ] && ! (cd "$d" && eval "$check") >"$d/.check" 2>&1; then
		note="check failed: $check"
	fi
	local found f changed= litter=
	found=$(find "$F" "$d" -newer "$stamp" \( \( -path "$F/*" -type f ! -name '*.lock' \) -o -name '.*.tmp-*' \) 2>/dev/null)
	if [ -n "$found" ]; then
		while IFS= read -r f; do
			if [[ ${f##*/} == .*.tmp-* ]]; then litter+=" $f"; elif [[ $f == "$F"/* ]]; then changed+=" $f"; fi
		done <<<"$found"
	fi
	if [ -n "$changed" ]; then note+="${note:+; }fixtures changed:${changed:0:300}"; fi
	# A process our timeout killed may leave its temporary files (the next run clears them);
	# one that ended by itself must not.
	if [ -n "$litter" ] && [[ $cls != block && $cls != long && $cls != hang ]]; then note+="${note:+; }left temporary files:${litter:0:300}"; fi
	note=${note//$W/W}
	if [ -n "$note" ] && [[ $cls != panic && $cls != hang && $cls != oom ]]; then cls=corrupt; fi
	# The line that matters: palace's message, else the crash's first line, else the first line.
	local line= l crash=
	while IFS= read -r l; do
		if [[ $l =~ ^(panic:|fatal error|runtime[:/]) ]]; then crash=$l; break; fi
		if [[ $l =~ $re_clear ]]; then line=$l; fi # the last of palace's lines: its final word
	done <<<"$err"
	[ -n "$crash" ] && line=$crash
	[ -n "$line" ] || line=${err%%$'\n'*}
	line=${line:0:220}
	line=${line//$W/W}
	[ -n "$note" ] && line="[$note] $line"
	count[$cls]=$((${count[$cls]:-0} + 1))
	case $cls in panic | hang | oom | silent | unclear | fail | corrupt) fails=$((fails + 1)) ;; esac
	printf '%-7s %-5s %3d %6dms  %s  | %s\n' "$cls" "$expect" "$rc" "$el" "$cmd" "$line"
	printf '%d\t%s\t%s\t%d\t%d\t%s\t%s\n' "$n" "$cls" "$expect" "$rc" "$el" "$cmd" "$line" >>"$RESULTS"
	# Keep the work directory small: big outputs (which take time to write) are cut.
	if [ $el -gt 1000 ]; then find "$d" -maxdepth 1 -name '.*' -type f -size +1000k -exec truncate -s 1000000 {} + 2>/dev/null; fi
}

# Inputs every file-reading option is tried with. Endless ones (zero,
# urandom) run under the smaller memory limit; the FIFO may block.
badpaths=(/dev/zero /dev/urandom /dev/null "$F/emptydir" "$F/missing" "$F/empty" "$F/fifo" "$F/loop1" "$F/dangling" "$F/rand.bin")
# each_path EXPECT_FOR_EMPTY TEMPLATE...: one case per bad path, @ in the
# template's words replaced by the path. EXPECT_FOR_EMPTY applies to the
# empty inputs (/dev/null, the empty file); the rest expect err.
each_path() {
	local eempty=$1 p exp opts w
	shift
	for p in "${badpaths[@]}"; do
		exp=err
		opts=()
		case $p in
		/dev/zero | /dev/urandom) opts=(mem=$INF t=10) exp=${ENDLESS:-err} ;;
		*/fifo) exp=block opts=(t=2) ;;
		/dev/null | */empty) exp=$eempty ;;
		esac
		local args=()
		for w in "$@"; do args+=("${w//@/$p}"); done
		c "$exp" "${opts[@]}" -- "${args[@]}"
	done
}

XQ=$F/xq.palnet
JG=$F/janggi.palnet
START='rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1'
BIG=9223372036854775807
long10k=$(head -c 10000 /dev/zero | tr '\0' '9')
longarg=$(head -c 100000 /dev/zero | tr '\0' 'r')

echo "== top level"
c err -- 
c ok -- help
c ok -- -h
c ok -- --help
c err -- nope
c err -- ''
c err -- --version
c err -- -- perft
c err -- PERFT
c err -- "$longarg"

echo "== every command: no arguments, -h, --help, an unknown flag, an extra argument"
for cmd in adjudicate arena experiment export gatekeeper import ladder moves net openings perft report search selfplay shard train trainer worker; do
	c err -- $cmd
done
c ok -- version
c ok -- uci
c ok -- ladder show
c ok t=20 -- run --duration 2s --progress none
for cmd in adjudicate arena experiment export gatekeeper import ladder moves net openings perft report run search selfplay shard train trainer uci version worker \
	"net init" "net info" "net bench" "net eval" "shard inspect" "shard verify" "ladder calibrate" "ladder show"; do
	c ok -- $cmd -h
	c ok -- $cmd --help
	c err -- $cmd --no-such-flag
done
c err -- net nope
c err -- shard nope
c err -- ladder nope
c err -- net -x
c err -- perft --start --depth 1 extra
c err -- moves --start extra
c err -- search --start --sims 8 extra
c err -- version extra
c err -- uci extra
c err -- selfplay --config "$F/sp.yaml" extra
c err -- run --dir r extra
c err -- adjudicate --batch - extra
c err -- arena --player random --player random --pairs 1 extra
c err -- net info "$XQ" "$XQ"
c err -- net bench "$XQ" "$XQ"
c err -- shard inspect "$F/sp/shard-000000.shard" extra
c err -- shard verify "$F/sp" extra
c err -- net init --out o.palnet extra
c err -- ladder show extra
c err -- worker extra
c err -- trainer extra
c err -- gatekeeper extra
c err -- perft ---depth 1 --start
c err -- perft --depth= --start
c err -- perft --depth '' --start
c err -- perft --start=maybe --depth 1

echo "== perft"
c err -- perft --start --depth 9223372036854775807
c err -- perft --start --depth 1152921504606846976
c err -- perft --start --depth 1000000000
c err -- perft --start --depth 21
c err -- perft --start --depth 0
c err -- perft --start --depth -1
c err -- perft --start --depth 1e18
c err -- perft --start --depth 99999999999999999999
c err -- perft --start --depth abc
c err -- perft --start --depth 1.5
c ok -- perft --start --depth 0x2
c long t=3 -- perft --start --depth 20
c ok -- perft --start --depth 1
c err -- perft --start --fen "$START" --depth 1
c err -- perft --depth 1
c err -- perft --fen garbage --depth 1
c err -- perft --fen '' --depth 1
c err -- perft --fen "$START $long10k" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 99999999999999999999" --depth 1
c any -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 99999 1" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - -5 -7" --depth 1
c err -- perft --fen "${long10k}/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR/9 w - - 0 1" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1" --depth 1
c err -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAQABNR w - - 0 1" --depth 1
c err -- perft --fen "rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "rnbaaabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "rnbakkbnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "99999999999999999999/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
c err -- perft --fen "0/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" --depth 1
# Facing generals are accepted on purpose (Fairy-Stockfish's endgame set-ups have them; rules/position.go).
c any -- perft --fen "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1" --depth 1
c err -- perft --fen "4k4/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1" --depth 1
c any -- perft --fen "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1" --depth 1
c err -- perft --fen "PPPPPPPPP/9/9/9/9/9/9/9/9/3K1k3 w - - 0 1" --depth 1
c any -- perft --fen "$(printf 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\tw - - 0 1')" --depth 1
c any -- perft --fen "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w" --depth 1
c any -- perft --fen "$START" --rules janggi --depth 1
c err -- perft --rules nope --start --depth 1
c err -- perft --rules '' --start --depth 1
c err -- perft --rules janggi --start --setup nope --depth 1
c err -- perft --rules janggi --start --setup masangsangma --depth 1
c err -- perft --rules janggi --start --setup masangsangma,masangsangma,masangsangma --depth 1
c err -- perft --rules xiangqi --start --setup masangsangma,masangsangma --depth 1
c ok -- perft --rules "$F/rules.yaml" --start --depth 1
each_path err perft --rules @ --start --depth 1
for y in bomb-top deep-seq deep-map bigkey syntax binary multidoc selfalias badalias; do c err -- perft --rules "$F/$y.yaml" --start --depth 1; done
for r in 'base: nope' 'repetition: -1' 'moveLimit: 1e18' 'moveLimit: 99999999999999999999' 'hanBonus: .nan' 'hanBonus: .inf' 'maxPlies: -5' 'name: x' 'pass: sometimes' 'base: [1, 2]' 'base: xiangqi
counting: maybe' 'base: xiangqi
repetition: 4.5' 'base: xiangqi
repetition: 0' 'base: janggi
hanBonus: -1e308' 'base: xiangqi
unknown_switch: true'; do
	printf '%s\n' "$r" >"$F/rules-$n.yaml"
	c err -- perft --rules "$F/rules-$n.yaml" --start --depth 1
done
# --batch
pb() { printf "$1" >"$F/pb-$n.txt"; c "${2:-err}" -- perft --batch "$F/pb-$n.txt"; }
pb "$START\t9223372036854775807\n"
pb "$START\t1152921504606846976\n"
pb "$START\t1000000000\n"
pb "$START\t-1\n"
pb "$START\t0\n" any
pb "$START\tabc\n"
pb "$START\n"
pb "garbage\t1\n"
pb "\t\t\t\n"
pb "$START\t1\t1\t1\n"
pb "\n\n\n" any
pb "$START\t1\r\n" any
pb "$START\t1\n$START\t99\n"
{ printf '%s\t' "$START"; head -c 2000000 /dev/zero | tr '\0' '1'; echo; } >"$F/pb-2mb.txt"
c err -- perft --batch "$F/pb-2mb.txt"
c err in="$F/pb-2mb.txt" -- perft --batch -
c err in="$F/rand.bin" -- perft --batch -
c err -- perft --batch "$F/rand.bin"
c err -- perft --batch "$F/pb-2mb.txt" --start
each_path any perft --batch @

echo "== moves"
c ok -- moves --start
c err -- moves --fen garbage
c err -- moves --fen "$START" --start
c err -- moves --fen "$START $long10k"
c err -- moves --fen "${long10k}/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
c any -- moves --rules janggi --fen "$START"
c err -- moves --rules nope --start
c err -- moves --rules janggi --start --setup garbage,garbage
c err -- moves --start --setup masangsangma,masangsangma
c err in="$F/rand.bin" -- moves --batch -
c err in="$F/pb-2mb.txt" -- moves --batch -
printf 'garbage\n%s\n\n' "$START" >"$F/mb.txt"
c err -- moves --batch "$F/mb.txt"
each_path any moves --batch @

echo "== adjudicate"
ab() { printf "$1" >"$F/ab-$n.txt"; c "${2:-err}" -- adjudicate --batch "$F/ab-$n.txt"; }
ab "$START\th3e3 h10g8\n" ok
ab "$START\tz9z9\n"
ab "$START\th3e3 h3e3\n"
ab "$START\tgarbage moves here\n"
ab "garbage\th3e3\n"
ab "$START\n" any
ab "$START\t\n" any
ab "\t\n"
ab "$START\th3e3\th10g8\n" any
ab "$START\th3e3  h10g8\n" any
ab "$START\th3e3 h10g8\r\n" any
ab "$START $long10k\th3e3\n"
ab "$START\t$(printf 'h3e3 h10g8 e3h3 g8h10 %.0s' $(seq 200))\n" any
{ printf '%s\t' "$START"; for _ in $(seq 100000); do printf 'h3e3 '; done; echo; } >"$F/ab-long.txt"
c err -- adjudicate --batch "$F/ab-long.txt"
c err -- adjudicate --rules nope --batch "$F/ab-long.txt"
c err in="$F/rand.bin" -- adjudicate --batch -
c err in="$F/pb-2mb.txt" -- adjudicate --batch -
c err -- adjudicate --rules janggi --batch "$F/ab-2.txt"
# adjudicate reports a bad line and goes on to the next by design, so an
# endless input is endless work (in constant memory), as with grep.
ENDLESS=long each_path any adjudicate --batch @

echo "== search"
c ok -- search --start --sims 8
for v in 0 -1 $BIG 1e18 abc 1.5; do c err -- search --start --sims "$v"; done
c long t=5 -- search --start --sims 1000000000
for v in 0 -1 1e9 abc; do c err -- search --start --sims 8 --leaves "$v"; done
c any t=10 -- search --start --sims 8 --leaves 100000000
for v in NaN Inf -Inf 2 -2 abc 1e400; do c err -- search --start --sims 8 --draw-score "$v"; done
c err -- search --start --sims 8 --mode nope
c err -- search --start --sims 8 --seed -1
c err -- search --start --sims 8 --seed 18446744073709551616
c err -- search --start --sims 8 --moves "z9z9"
c err -- search --start --sims 8 --moves "h3e3 h3e3"
c err -- search --start --sims 8 --moves "$long10k"
c any -- search --start --sims 8 --moves "h3e3 h10g8 e3h3 g8h10 h3e3 h10g8 e3h3 g8h10 h3e3 h10g8 e3h3 g8h10"
c err -- search --fen garbage --sims 8
c err -- search --start --sims 8 --net "$JG"
c err -- search --start --sims 8 --rules janggi --net "$XQ"
c ok -- search --start --sims 8 --rules janggi --net "$JG"
for f in xq-half xq-100 xq-flip xq-less1 xq-trail rand; do c err -- search --start --sims 8 --net "$F/$f.palnet"; done
each_path err search --start --sims 8 --net @

echo "== net"
c err -- net init --out o.palnet --rules nope
c err -- net init --out o.palnet --rules ''
c ok -- net init --out o.palnet --rules xiangqi,janggi --config "$F/tiny.yaml"
c ok -- net init --out o.palnet --rules xiangqi,xiangqi --config "$F/tiny.yaml"
c err -- net init --out o.palnet --seed -1 --config "$F/tiny.yaml"
c err -- net init --out "$F/null" --config "$F/tiny.yaml" check="test -c '$F/null' || test -L '$F/null'"
c err -- net init --out "$F/full" --config "$F/tiny.yaml"
c err -- net init --out "$F/emptydir" --config "$F/tiny.yaml"
c err -- net init --out "$F/loop1" --config "$F/tiny.yaml"
c err -- net init --out no/such/dir/o.palnet --config "$F/tiny.yaml"
c err -- net init --out "$F/fifo" --config "$F/tiny.yaml"
c ok pre="ln -s target.palnet link.palnet" check="test -L link.palnet && test -f target.palnet" -- net init --out link.palnet --config "$F/tiny.yaml"
c ok pre="printf x >o.palnet" -- net init --out o.palnet --config "$F/tiny.yaml"
each_path any net init --out o.palnet --config @
for y in bomb-top deep-seq deep-map bigkey bigvalue syntax binary multidoc selfalias; do c err -- net init --out o.palnet --config "$F/$y.yaml"; done
printf 'blocks: 0\nfilters: 8\n' >"$F/net-blocks0.yaml"
c any -- net init --out o.palnet --config "$F/net-blocks0.yaml"
for y in 'blocks: 100000' 'filters: 100000' 'blocks: 1000000000
filters: 1000000000' 'blocks: -1' 'filters: 0' 'value_hidden: -8' 'policy_channels: 99999999999' 'blocks: .nan' 'blocks: 1.5' 'blocks: "many"' 'filters: 9223372036854775807' 'unknown: 1' 'blocks: [1]'; do
	printf '%s\n' "$y" >"$F/net-$n.yaml"
	c err -- net init --out o.palnet --config "$F/net-$n.yaml"
done
c ok -- net info "$XQ"
for f in xq-half xq-100 xq-flip xq-less1 xq-trail rand; do c err -- net info "$F/$f.palnet"; done
c err -- net info "$F/sp/shard-000000.shard"
c err -- net info "$F/games.jsonl"
each_path err net info @
c ok -- net bench --positions 8 --batch 1 "$XQ"
c err -- net bench --batch 100000000 "$XQ"
c any -- net bench --positions 8 --batch ' 8' "$XQ"
for v in 0 -1 '' 1,,2 abc 1e18 $BIG 1.5 -8,8; do c err -- net bench --positions 8 --batch "$v" "$XQ"; done
for v in 0 -1 abc $BIG; do c err -- net bench --batch 1 --positions "$v" "$XQ"; done
c long t=5 -- net bench --batch 1 --positions 1000000000 "$XQ"
for v in 100000000 0 -1 abc $BIG; do c err -- net bench --batch 1 --positions 8 --workers "$v" "$XQ"; done
for f in xq-half xq-flip rand; do c err -- net bench --positions 8 --batch 1 "$F/$f.palnet"; done
c ok -- net eval --net "$XQ" --games "$F/games.jsonl"
c ok -- net eval --net "$XQ" "$F/sp"
c err -- net eval --net "$JG" --games "$F/games.jsonl"
c err -- net eval --net "$JG" "$F/sp"
for v in 0 -1 abc; do c err -- net eval --net "$XQ" --every "$v" "$F/sp"; done
c any -- net eval --net "$XQ" --every $BIG "$F/sp"
c err -- net eval --net "$XQ" --max-plies -1 --rules xiangqi "$F/sp"
c err -- net eval --net "$XQ" --min-plies -1 --games "$F/games.jsonl"
c err -- net eval --net "$XQ" --opening-plies -1 --games "$F/games.jsonl"
c any -- net eval --net "$XQ" --min-plies $BIG --games "$F/games.jsonl"
c err -- net eval --net "$XQ" --rules nope --games "$F/games.jsonl"
c err -- net eval --net "$XQ" --games "$F/games.jsonl" "$F/sp"
for f in games-trunc games-header games-badline games-badmove games-illegal games-badplies games-badresult games-badfen games-badformat games-version99 rand; do c err -- net eval --net "$XQ" --games "$F/$f.jsonl"; done
for dd in sp-trunc sp-flip sp-badmanifest sp-nomanifest sp-noshard sp-badgames sp-randshard emptydir notarun; do c err -- net eval --net "$XQ" "$F/$dd"; done
each_path err net eval --net "$XQ" --games @
each_path err net eval --net "$XQ" @

echo "== shard"
c ok -- shard inspect "$F/sp/shard-000000.shard"
for v in -1 abc; do c err -- shard inspect --records "$v" "$F/sp/shard-000000.shard"; done
for v in -1 abc; do c err -- shard inspect --top "$v" "$F/sp/shard-000000.shard"; done
c any -- shard inspect --records $BIG --top $BIG "$F/sp/shard-000000.shard"
c any -- shard inspect --records 1000000000 --top 1000000000 --blocks "$F/sp/shard-000000.shard"
for f in trunc.shard trunc10.shard flip.shard rand.shard empty.shard games.jsonl xq.palnet; do c err -- shard inspect "$F/$f"; done
each_path err shard inspect @
c ok -- shard verify "$F/sp"
for dd in sp-trunc sp-flip sp-badmanifest sp-nomanifest sp-noshard sp-badgames sp-randshard notarun run1; do c err -- shard verify "$F/$dd"; done
c err -- shard verify "$F/sp/shard-000000.shard"
each_path err shard verify @

echo "== import"
c ok -- import --out g.jsonl "$F/x.pgn"
c err pre="cp '$F/x.pgn' x.pgn" check="cmp x.pgn '$F/x.pgn'" -- import --out x.pgn x.pgn
c ok pre="mkdir kept && ln -s kept/g.jsonl link.jsonl" check="test -L link.jsonl && test -s kept/g.jsonl" -- import --out link.jsonl "$F/x.pgn"
c err check="test -c '$F/null' || test -L '$F/null'" -- import --out "$F/null" "$F/x.pgn"
c err check="test -c '$F/full' || test -L '$F/full'" -- import --out "$F/full" "$F/x.pgn"
c err -- import --out "$F/emptydir" "$F/x.pgn"
c err -- import --out "$F/fifo" "$F/x.pgn"
c err -- import --out "$F/loop1" "$F/x.pgn"
c err -- import --out no/such/dir/g.jsonl "$F/x.pgn"
c err -- import --out g.jsonl --format nope "$F/x.pgn"
c err -- import --out g.jsonl --encoding nope "$F/x.pgn"
c err -- import --out g.jsonl --duplicates nope "$F/x.pgn"
c err -- import --out g.jsonl --format gib "$F/x.pgn"
c err -- import --out g.jsonl --strict --format gib "$F/x.pgn"
c err -- import --out '' "$F/x.pgn"
for f in rand.pgn rand.gib rand.xqf rand.bin empty.pgn empty.gib; do
	c err -- import --out g.jsonl --strict "$F/$f"
	c err -- import --out g.jsonl "$F/$f"
done
if [ -n "$GIB" ]; then
	c ok -- import --out g.jsonl "$F/real.gib"
	head -c $(($(stat -c %s "$F/real.gib") / 2)) "$F/real.gib" >"$F/trunc.gib"
	c any -- import --out g.jsonl "$F/trunc.gib"
	c err -- import --out g.jsonl --strict "$F/trunc.gib"
fi
pg() { # pg EXPECT_STRICT 'pgn text' : one case without --strict (any), one with
	printf "$2" >"$F/pg-$n.pgn"
	local f=$F/pg-$n.pgn
	c any -- import --out g.jsonl "$f"
	c "$1" -- import --out g.jsonl --strict "$f"
}
pg err '[Event "unterminated\n\n1. h2e2 *\n'
pg err '[Event "x"]\n[Result "*"]\n\n1. z9z9 *\n'
pg err '[Event "x"]\n[Result "*"]\n\n1. h2e2 h2e2 *\n'
pg any '[Event "x"]\n[Result "*"]\n\n99999999999999999999. h2e2 *\n'
pg err '[Event "x"]\n[Result "*"]\n\n1. h2e2 {unterminated comment *\n'
pg err "[Event \"x\"]\n[Result \"*\"]\n\n1. h2e2 $(head -c 100000 /dev/zero | tr '\0' '(') *\n"
pg err '[Event "x"]\n[Result "*"]\n[FEN "garbage"]\n\n1. h2e2 *\n'
pg err '[Event "x"]\n[Variant "janggi"]\n[Result "*"]\n\n1. h2e2 *\n'
pg err '[Event "x"]\n[Variant "chess"]\n[Result "*"]\n\n1. e4 e5 *\n'
pg err '[Event "x"]\n[Result "9-9"]\n\n1. h2e2 9-9\n'
pg err '[Event "x"]\n[Result "*"]\n\n1. \xe7\x82\xae\xe4\xba\x8c\xe5\xb9\xb3\xe4\xba\x94 \xff\xfe\xfd *\n'
pg any '\x00\x00\x00[Event "x"]\x00\n\n1. h2e2\x00 *\n'
pg any "[Event \"$(head -c 2000000 /dev/zero | tr '\0' 'e')\"]\n[Result \"*\"]\n\n1. h2e2 *\n"
pg err "[Event \"x\"]\n[Result \"*\"]\n\n$(for i in $(seq 3000); do printf '%d. h2e2 e7e6 ' $i; done)*\n"
pg any "$(for i in $(seq 2000); do printf '[Event \"g%d\"]\n[Result \"*\"]\n\n1. h2e2 *\n\n' $i; done)"
c err pre="mkdir d && ln -s . d/self && cp '$F/x.pgn' d/" -- import --out g.jsonl --strict d/self/self/self
c any pre="mkdir d && ln -s ../d d/loop && cp '$F/x.pgn' d/" -- import --out g.jsonl d
each_path err import --out g.jsonl @

echo "== export"
c ok -- export "$F/games.jsonl"
c ok -- export "$F/run1"
c ok -- export "$F/sp"
c err -- export --rules nope "$F/games.jsonl"
c err -- export --rules 'xiangqi@nothex' "$F/games.jsonl"
c err -- export --limit -1 "$F/games.jsonl"
c any -- export --limit $BIG "$F/games.jsonl"
c err pre="cp '$F/games.jsonl' g.jsonl" check="cmp g.jsonl '$F/games.jsonl'" -- export --out g.jsonl g.jsonl
c err check="test -c '$F/null' || test -L '$F/null'" -- export --out "$F/null" "$F/games.jsonl"
c err check="test -c '$F/full' || test -L '$F/full'" -- export --out "$F/full" "$F/games.jsonl"
c err -- export --out "$F/emptydir" "$F/games.jsonl"
c err -- export --out "$F/loop1" "$F/games.jsonl"
c err -- export --out "$F/fifo" "$F/games.jsonl"
c ok pre="ln -s made.pgn dangling.pgn" check="test -L dangling.pgn && test -s made.pgn" -- export --out dangling.pgn "$F/games.jsonl"
c err pre="cp -r '$F/run1' r" check="! test -e r/x.pgn" -- export --out r/x.pgn r
for f in games-trunc games-header games-badline games-badmove games-illegal games-badplies games-badresult games-badfen games-badformat games-version99 rand; do c err -- export "$F/$f.jsonl"; done
# export reads the game records only: a damaged shard or run state is not its business.
for dd in sp-trunc sp-nomanifest run-badstate run-badconfig; do c any -- export "$F/$dd"; done
for dd in sp-badmanifest sp-badgames run-badmetrics emptydir; do c err -- export "$F/$dd"; done
c err -- export "$F/x.pgn"
c err -- export "$F/xq.palnet"
each_path err export @

echo "== openings"
c ok -- openings "$F/games.jsonl"
c ok -- openings "$F/run1"
for v in -1 abc; do c err -- openings --depth "$v" "$F/games.jsonl"; done
c any -- openings --depth $BIG "$F/games.jsonl"
for v in -1 abc; do c err -- openings --top "$v" "$F/games.jsonl"; c err -- openings --min-games "$v" "$F/games.jsonl"; done
c any -- openings --top $BIG --min-games $BIG "$F/games.jsonl"
c err -- openings --format nope "$F/games.jsonl"
for v in 2024.13.45 garbage 99999999999 2024.02.30 -1; do c err -- openings --from "$v" "$F/games.jsonl"; done
for v in 2024.1 ''; do c any -- openings --from "$v" "$F/games.jsonl"; done
c err -- openings --to 12345.67.89 "$F/games.jsonl"
c any -- openings --from 2030 --to 2020 "$F/games.jsonl"
for v in abc 5-3 - -- 1-2-3 99999999999999999999 -5; do c err -- openings --generations "$v" "$F/run1"; done
c err -- openings --position garbage "$F/games.jsonl"
c err -- openings --position "$START $long10k" "$F/games.jsonl"
c err -- openings --moves "z9z9" "$F/games.jsonl"
c err -- openings --moves "$long10k" "$F/games.jsonl"
c err -- openings --rules nope "$F/games.jsonl"
c any -- openings --setups "$F/games.jsonl"
c err check="test -c '$F/null' || test -L '$F/null'" -- openings --out "$F/null" "$F/games.jsonl"
c err check="test -c '$F/null' || test -L '$F/null'" -- openings --chart "$F/null" "$F/games.jsonl"
c err -- openings --chart "$F/emptydir" "$F/games.jsonl"
c err -- openings --chart no/such/dir/c.png "$F/games.jsonl"
c err pre="cp '$F/games.jsonl' g.jsonl" check="cmp g.jsonl '$F/games.jsonl'" -- openings --chart g.jsonl g.jsonl
for f in games-trunc games-header games-badline games-badmove games-illegal games-badplies games-badresult games-badfen games-badformat games-version99 rand; do c err -- openings "$F/$f.jsonl"; done
for dd in sp-trunc run-badstate; do c any -- openings "$F/$dd"; done
for dd in sp-badmanifest sp-badgames run-badmetrics emptydir; do c err -- openings "$F/$dd"; done
each_path err openings @

echo "== report"
c ok -- report --no-charts "$F/run1"
c ok -- report --out charts "$F/run1"
c err -- report "$F/notarun"
c err -- report "$F/sp"
c err -- report "$F/games.jsonl"
c err -- report --no-charts "$F/run-badmetrics"
for dd in run-badstate run-badbest run-badconfig run-truncnet run-nonets; do c any -- report --no-charts "$F/$dd"; done
c err check="test -c '$F/null' || test -L '$F/null'" -- report --out "$F/null" "$F/run1"
c err -- report --out "$F/games.jsonl" "$F/run1"
c err -- report --out "$F/loop1" "$F/run1"
c err -- report --out "$F/fifo" "$F/run1"
c any pre="cp -r '$F/run1' r" -- report r r r
each_path err report @

echo "== selfplay"
c ok pre="cp -r '$F/sp' d" -- selfplay --config "$F/sp.yaml" --output d --progress none
sp_cfg games45 'games: 4.5'
c err -- selfplay --config "$F/sp-games45.yaml"
for v in -1 abc 1.5; do c err -- selfplay --config "$F/sp.yaml" --games "$v"; done
c any -- selfplay --config "$F/sp.yaml" --games 0
sp_cfg big 'games: 2'
c long t=15 -- selfplay --config "$F/sp-big.yaml" --games 1000000000000 --progress none
for v in -1s abc 1 ''; do c err -- selfplay --config "$F/sp.yaml" --duration "$v"; done
c any -- selfplay --config "$F/sp-big.yaml" --interval 0 --progress log
for v in -1s abc; do c err -- selfplay --config "$F/sp-big.yaml" --interval "$v" --progress log; done
c err -- selfplay --config "$F/sp.yaml" --progress nope
c err check="test -c '$F/null' || test -L '$F/null'" -- selfplay --config "$F/sp-big.yaml" --output "$F/null"
c err -- selfplay --config "$F/sp-big.yaml" --output "$F/games.jsonl"
c err -- selfplay --config "$F/sp-big.yaml" --output "$F/loop1"
c any pre="cp -r '$F/notarun' d" -- selfplay --config "$F/sp-big.yaml" --output d --progress none
c err pre="cp -r '$F/run1' d" -- selfplay --config "$F/sp-big.yaml" --output d --progress none
c err pre="cp -r '$F/run1' d" -- selfplay --config "$F/sp-big.yaml" --output d/selfplay/gen-0000 --progress none
c err pre="cp -r '$F/sp' d" -- selfplay --config "$F/sp-big.yaml" --output d --progress none
c ok -- selfplay --config "$F/sp-big.yaml" --output new/deep/dir --progress none
for dd in sp-trunc sp-flip sp-badmanifest sp-noshard sp-badgames sp-randshard; do
	c err pre="cp -r '$F/$dd' d" -- selfplay --config "$F/sp.yaml" --output d --games 6 --progress none
done
c any pre="cp -r '$F/sp-nomanifest' d" -- selfplay --config "$F/sp.yaml" --output d --games 6 --progress none
each_path err selfplay --config @
for y in bomb-top deep-seq deep-map bigkey bigvalue syntax binary multidoc tagged badalias selfalias; do c err -- selfplay --config "$F/$y.yaml"; done
i=0
for y in 'games: 1e18' 'games: 99999999999999999999999' "games: $BIG" 'games: -1' 'games: .nan' 'games: abc' 'games: [1]' 'games: ~' \
	'concurrent_games: 1000000000' 'concurrent_games: 0' 'concurrent_games: -1' 'cache_entries: 1000000000000000' 'cache_entries: -1' \
	'max_plies: -1' "max_plies: $BIG" 'games_per_shard: 0' 'games_per_shard: -1' "games_per_shard: $BIG" 'evaluators: 100000000' 'evaluators: -1' \
	'batch_size: -1' 'batch_size: 1000000000000' 'seed: -1' 'seed: 1.5' 'seed: 18446744073709551616' \
	'search: {simulations: 1000000000}' 'search: {simulations: -1}' 'search: {simulations: 0}' 'search: {gumbel_k: 0}' 'search: {gumbel_k: 100000000}' \
	'search: {full_fraction: .nan}' 'search: {full_fraction: 2}' 'search: {cpuct_init: .inf}' 'search: {mode: nope}' 'search: {temperature: -1}' 'search: {draw_score: 5}' 'search: 5' 'search: {nope: 1}' \
	'random_network: {blocks: 100000, filters: 100000}' 'random_network: {blocks: -1}' 'random_network: {filters: 0}' 'random_network: 5' \
	'nonsense_key: 1' 'rules: nope' 'rules: /dev/zero' "rules: $F/rand.yaml" 'rules: [xiangqi]' "network: /dev/zero" "network: $F/rand.palnet" "network: $F/xq-half.palnet" \
	"network: $JG" 'network: /no/such.palnet' "network: $F/emptydir" 'output: ""' "output: $F/null" \
	'janggi_setups: {cho: {nope: 1}}' 'janggi_setups: {cho: {masangsangma: -1}}' 'janggi_setups: {cho: {masangsangma: .nan}}' 'janggi_setups: {pairs: {"a,b": 1}}' \
	'rules: janggi
janggi_setups: {cho: {masangsangma: 0, masangmasang: 0, sangmasangma: 0, sangmamasang: 0}}' 'rules: janggi
janggi_setups: {cho: {masangsangma: 1}, pairs: {"masangsangma,masangsangma": 1}}'; do
	i=$((i + 1))
	sp_cfg "m$i" "$y"
	opts=()
	case $y in *dev/zero*) opts=(mem=$INF t=10) ;; esac
	e=err
	case $y in "max_plies: $BIG" | 'search: {gumbel_k: 100000000}') e=any ;; esac
	c $e "${opts[@]}" -- selfplay --config "$F/sp-m$i.yaml" --progress none
done
: >"$F/sp-empty.yaml"
c err -- selfplay --config "$F/sp-empty.yaml"
printf 'output: %s/c/spout-x\n' "$W" >"$F/sp-minimal.yaml"
c any t=8 -- selfplay --config "$F/sp-minimal.yaml" --games 1 --progress none --duration 3s
sp_cfg other 'seed: 99'
c err pre="cp -r '$F/sp' d" -- selfplay --config "$F/sp-other.yaml" --output d --progress none

echo "== run"
c err -- run --generations -5 --config "$F/run.yaml" --dir r
c long t=6 -- run --generations $BIG --config "$F/run.yaml" --dir r --progress none
for v in abc 1.5; do c err -- run --generations "$v" --config "$F/run.yaml" --dir r; done
for v in -1s abc; do c err -- run --duration "$v" --config "$F/run.yaml" --dir r; done
c err -- run --progress nope --config "$F/run.yaml" --dir r
c err -- run --workers 100000000 --config "$F/run.yaml" --dir r
c err -- run --workers -1 --config "$F/run.yaml" --dir r
c err -- run --distributed --workers 100000000 --config "$F/run.yaml" --dir r --nats nats://127.0.0.1:1
c err -- run --distributed --config "$F/run.yaml" --dir r --nats nats://127.0.0.1:1
c err -- run --distributed --config "$F/run.yaml" --dir r --nats '://garbage'
c err -- run --distributed --config "$F/run.yaml" --dir r --bucket ftp://x --nats nats://127.0.0.1:1
for v in 0 -1; do c err -- run --distributed --max-deliver "$v" --config "$F/run.yaml" --dir r --nats nats://127.0.0.1:1; done
for v in 0 -1s; do c err -- run --distributed --ack-wait "$v" --config "$F/run.yaml" --dir r --nats nats://127.0.0.1:1; done
c err check="test -c '$F/null' || test -L '$F/null'" -- run --config "$F/run.yaml" --dir "$F/null" --progress none
c err -- run --config "$F/run.yaml" --dir "$F/games.jsonl" --progress none
c err -- run --config "$F/run.yaml" --dir "$F/loop1" --progress none
# An existing directory that is not a run (a self-play directory, one of games files): a run must not move in.
c err pre="cp -r '$F/sp' d" check="! test -e d/state.json" -- run --config "$F/run.yaml" --dir d --progress none
c err pre="cp -r '$F/notarun' d" check="! test -e d/state.json" -- run --config "$F/run.yaml" --dir d --progress none
c err pre="cp -r '$F/run1' r" -- run --config "$F/sp.yaml" --dir r --progress none
run_cfg other 'seed: 77'
c err pre="cp -r '$F/run1' r" -- run --config "$F/run-other.yaml" --dir r --progress none
c any pre="cp -r '$F/run1' r" -- run --dir r --progress none
for dd in run-badstate run-badmetrics run-badbest run-badconfig run-truncnet run-nonets; do
	c err t=20 pre="cp -r '$F/$dd' r" -- run --dir r --generations 2 --progress none
done
each_path err run --config @ --dir r --progress none
for y in bomb-top deep-seq deep-map bigkey syntax binary multidoc selfalias; do c err -- run --config "$F/$y.yaml" --dir r --progress none; done
: >"$F/run-empty.yaml"
c any t=8 -- run --config "$F/run-empty.yaml" --dir r --progress none --duration 3s
i=0
for y in 'generations: -5' 'generations: 1.5' 'generations: .nan' "generations: 1e18" 'seed: -1' 'rules: /dev/zero' 'rules: nope' "rules: $F/rand.yaml" \
	"network: {init: /dev/zero}" "network: {init: $F/rand.palnet}" "network: {init: $JG}" "network: {init: $F/xq-half.palnet}" 'network: {init: /no/such}' \
	'network: {blocks: 100000, filters: 100000, policy_channels: 2, value_channels: 1, value_hidden: 8}' 'network: {blocks: -1, filters: 8, policy_channels: 2, value_channels: 1, value_hidden: 8}' 'network: 5' \
	'selfplay: {games: -1}' 'selfplay: {games: 0}' 'selfplay: {games: 4.5}' 'selfplay: {games: 1e18}' 'selfplay: {concurrent_games: 1000000000, games: 2}' 'selfplay: {cache_entries: 1000000000000000, games: 2}' "selfplay: {output: $W/c/x, games: 2}" 'selfplay: {network: /dev/zero, games: 2}' \
	'train: {batch: 0}' 'train: {batch: 1000000000000}' 'train: {batch: -1}' 'train: {schedule: {kind: constant, rate: .nan}}' 'train: {schedule: {kind: nope}}' 'train: {window: {min_rows: -1}}' 'train: {samples_per_position: .inf}' 'train: {mirror: 2}' 'train: {optimizer: nope}' 'train: {checkpoint_every: 0}' \
	'arena: {pairs: 1000000000000}' 'arena: {pairs: -1}' 'arena: {evaluators: 100000000}' 'arena: {concurrent_games: 0}' 'arena: {sprt: {elo0: .nan, elo1: 1}}' 'arena: {sprt: {elo0: 10, elo1: 0}}' 'arena: {accept_score: 2}' 'arena: {simulations: -1}' \
	'ladder: {every: -1}' 'ladder: {every: 1, engine: /no/such/engine}' "ladder: {every: 1, scale: $F/rand.yaml}" 'unknown_section: {a: 1}' 'gating: maybe'; do
	i=$((i + 1))
	run_cfg "m$i" "$y"
	opts=()
	case $y in *dev/zero*) opts=(mem=$INF t=10) ;; esac
	e=err
	case $y in 'generations: 1e18') e=long opts=(t=6) ;; esac
	c $e "${opts[@]}" -- run --config "$F/run-m$i.yaml" --dir r --progress none
done

echo "== train"
c ok -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --progress none
c err pre="cp '$F/games.jsonl' g.jsonl" check="cmp g.jsonl '$F/games.jsonl'" -- train --games g.jsonl --out g.jsonl --config "$F/train.yaml"
c err pre="cp '$F/xq.palnet' n.palnet" check="cmp n.palnet '$F/xq.palnet'" -- train --games "$F/games.jsonl" --init n.palnet --out n.palnet
c err -- train --games "$F/games.jsonl" --init "$JG" --out o.palnet --progress none
for f in xq-half xq-flip rand; do c err -- train --games "$F/games.jsonl" --init "$F/$f.palnet" --out o.palnet --progress none; done
for v in NaN -1 Inf abc; do c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --epochs "$v" --progress none; done
c any -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --epochs 0 --progress none
c long t=6 -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --epochs 1e18 --progress none
for v in NaN -0.1 1 1.5 Inf; do c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --held-out "$v" --progress none; done
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --eval-every -2 --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --min-plies -1 --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --min-plies $BIG --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --opening-plies -1 --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --keep nope --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --after garbage --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --after 2030 --before 2020 --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --rules nope --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --rules janggi --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --progress nope
c err check="test -c '$F/null' || test -L '$F/null'" -- train --games "$F/games.jsonl" --out "$F/null" --config "$F/train.yaml" --progress none
c err -- train --games "$F/games.jsonl" --out "$F/emptydir" --config "$F/train.yaml" --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --work "$F/null" --config "$F/train.yaml" --progress none
c err -- train --games "$F/games.jsonl" --out o.palnet --work "$F/games.jsonl" --config "$F/train.yaml" --progress none
c err pre="cp -r '$F/run1' r" check="! test -e r/job.json" -- train --games "$F/games.jsonl" --out o.palnet --work r --config "$F/train.yaml" --progress none
c err pre="cp -r '$F/sp' d" check="! test -e d/job.json" -- train --games "$F/games.jsonl" --out o.palnet --work d --config "$F/train.yaml" --progress none
for f in games-trunc games-header games-badline games-badmove games-illegal games-badplies games-badresult games-badfen games-badformat games-version99 rand; do c err -- train --games "$F/$f.jsonl" --out o.palnet --config "$F/train.yaml" --progress none; done
c err -- train --games "$F/x.pgn" --out o.palnet --config "$F/train.yaml" --progress none
c err -- train --games "$F/emptydir" --out o.palnet --config "$F/train.yaml" --progress none
each_path err train --games @ --out o.palnet --config "$F/train.yaml" --progress none
each_path any train --games "$F/games.jsonl" --out o.palnet --config @ --progress none
each_path err train --games "$F/games.jsonl" --out o.palnet --init @ --progress none
i=0
for y in 'epochs: .nan' 'epochs: -1' 'epochs: 1e18' 'eval_every: -5' 'seed: -1' 'network: {blocks: 100000, filters: 100000, policy_channels: 2, value_channels: 1, value_hidden: 8}' 'network: {filters: 0}' 'train: {batch: 0}' 'train: {batch: 1000000000000}' 'train: {schedule: {kind: constant, rate: .inf}}' 'train: {label_smoothing: 2}' 'nope: 1'; do
	i=$((i + 1))
	train_cfg "m$i" "$y"
	e=err opts=()
	case $y in 'epochs: 1e18') e=long opts=(t=6) ;; esac
	c $e "${opts[@]}" -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train-m$i.yaml" --progress none
done
for y in bomb-top deep-seq bigkey syntax; do c err -- train --games "$F/games.jsonl" --out o.palnet --config "$F/$y.yaml" --progress none; done
c err pre="mkdir o.palnet.work && printf garbage >o.palnet.work/state.palnet" -- train --games "$F/games.jsonl" --out o.palnet --config "$F/train.yaml" --progress none

echo "== arena"
R=(--player random --player random --pairs 1 --progress none)
c ok -- arena "${R[@]}"
c err -- arena --player "net:$XQ,cache=100000000000" --player random --pairs 1 --progress none
c err -- arena --player "net:$XQ,evaluators=100000000" --player random --pairs 1 --progress none
c err -- arena "${R[@]}" --openings 1000000000000
for sp in "net:$XQ,sims=0" "net:$XQ,sims=-1" "net:$XQ,sims=$BIG" "net:$XQ,draw=NaN" "net:$XQ,draw=2" "net:$XQ,lookahead=2" "net:$XQ,matecheck=x" "net:$XQ,foo=1" "net:$XQ,cache=-1" "net:$XQ,evaluators=0" "net:$XQ,sims=1,sims=2" \
	"net:$JG" "net:$F/xq-half.palnet" "net:$F/rand.palnet" "net:$F/emptydir" 'net:/dev/zero' "net:$F/fifo" 'uniform,sims=0' 'uniform,draw=-Inf' 'random,sims=5' 'nope' '' \
	'uci:/no/such/engine,nodes=1' 'uci:/bin/false,nodes=1' 'uci:/dev/null,nodes=1' "uci:$F/x.pgn,nodes=1" 'uci:/bin/true,nodes=1' 'uci:/bin/cat,nodes=1,timeout=2s' 'uci:/bin/sleep,arg=100,nodes=1,timeout=2s' \
	"uci:$BIN" "uci:$BIN,nodes=-1" "uci:$BIN,tc=abc" "uci:$BIN,tc=-5" "uci:$BIN,movetime=-1" "uci:$BIN,depth=$BIG" "uci:$BIN,nodes=1,protocol=nope" "uci:$BIN,nodes=1,notation=nope" "uci:$BIN,nodes=1,timeout=-1s" "uci:$BIN,nodes=1,log=$F/null" "uci:$BIN,nodes=1,dir=$F/missing"; do
	opts=()
	case $sp in *dev/zero*) opts=(mem=$INF t=10) ;; *fifo*) opts=(t=3) ;; esac
	e=err
	case $sp in *fifo*) e=block ;; esac
	c $e "${opts[@]}" -- arena --player "$sp" --player random --pairs 1 --progress none
done
# net: with no file is the shipped network of the match's game, on purpose.
c ok -- arena --player 'net:,sims=1' --player random --pairs 1 --max-plies 6 --progress none
c any t=20 -- arena --player "uci:$BIN,nodes=2,arg=uci" --player random --pairs 1 --max-plies 6 --progress none
c any t=20 -- arena --player "uci:$BIN,nodes=2,arg=uci,option.Threads=256,option.Nodes=-5,option.Nope=1" --player random --pairs 1 --max-plies 6 --progress none
c err -- arena --player random --pairs 1
c err -- arena --player random --player random --player random --pairs 1
for v in NaN 0 1 -1 2 Inf; do c err -- arena "${R[@]}" --alpha "$v"; c err -- arena "${R[@]}" --beta "$v"; done
for v in abc 1 NaN,5 5,0 0,0 inf,inf 1,2,3 ' , ' 1e400,1; do c err -- arena "${R[@]}" --sprt "$v"; done
for v in 0 -1; do c err -- arena "${R[@]}" --concurrency "$v"; done
c any t=20 -- arena "${R[@]}" --concurrency 1000000000
for v in 0 -1 abc; do c err -- arena --player random --player random --progress none --pairs "$v"; done
c long t=5 -- arena --player random --player random --progress none --pairs $BIG
c long t=5 -- arena --player random --player random --progress none --pairs 1000000000000
c any -- arena "${R[@]}" --openings 0
c err -- arena "${R[@]}" --openings -1
c err -- arena "${R[@]}" --max-plies -1
c any -- arena "${R[@]}" --max-plies $BIG
c err -- arena "${R[@]}" --opening-plies -1
c any t=20 -- arena "${R[@]}" --opening-plies 1000000000
c err -- arena "${R[@]}" --seed -1
c err -- arena "${R[@]}" --progress nope
c err -- arena "${R[@]}" --rules nope
c err -- arena --player "net:$XQ" --player random --pairs 1 --progress none --rules janggi
c err check="test -c '$F/null' || test -L '$F/null'" -- arena "${R[@]}" --records "$F/null"
c err check="test -c '$F/full' || test -L '$F/full'" -- arena "${R[@]}" --records "$F/full"
c err -- arena "${R[@]}" --records "$F/emptydir"
c err -- arena "${R[@]}" --records "$F/loop1"
c any -- arena "${R[@]}" --records no/such/dir/a.jsonl
c block t=2 -- arena "${R[@]}" --records "$F/fifo"
c err pre="cp '$F/arena.jsonl' a.jsonl" -- arena --player random --player uniform,sims=2 --pairs 1 --progress none --records a.jsonl
c ok pre="cp '$F/arena.jsonl' a.jsonl" -- arena --player random --player random --pairs 2 --progress none --records a.jsonl
c err pre="cp '$F/arena.jsonl' a.jsonl" -- arena --player random --player random --pairs 3 --progress none --records a.jsonl
# A torn last line is what a kill leaves: dropped and replayed by design; an empty file is a new match.
c any pre="cp '$F/arena-trunc.jsonl' a.jsonl" -- arena --player random --player random --pairs 2 --progress none --records a.jsonl
c any pre="cp '$F/empty.jsonl' a.jsonl" -- arena --player random --player random --pairs 2 --progress none --records a.jsonl
for f in rand.jsonl games.jsonl x.pgn; do
	c err pre="cp '$F/$f' a.jsonl" -- arena --player random --player random --pairs 2 --progress none --records a.jsonl
done
c err pre="cp '$F/games.jsonl' a.jsonl" check="cmp a.jsonl '$F/games.jsonl'" -- arena --player random --player random --pairs 1 --progress none --records a.jsonl

echo "== experiment"
E=(--net random --games 1 --sims 4 --max-plies 10 --progress none)
c ok -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b janggi "${E[@]}" --out e.jsonl
c err -- experiment --rules-a xiangqi "${E[@]}" --out e.jsonl
c err -- experiment --rules-a nope --rules-b xiangqi "${E[@]}" --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b xiangqi --net "$JG" --games 1 --sims 4 --max-plies 10 --progress none --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b xiangqi --net nope --games 1 --sims 4 --progress none --out e.jsonl
for v in -1 abc; do c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --games "$v" --out e.jsonl; done
c long t=5 -- experiment --rules-a xiangqi --rules-b xiangqi --net random --sims 4 --max-plies 10 --progress none --games $BIG --out e.jsonl
for v in 0 -1 $BIG; do c err -- experiment --rules-a xiangqi --rules-b xiangqi --net random --games 1 --max-plies 10 --progress none --sims "$v" --out e.jsonl; done
for v in -1 1000000000000000000; do c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --cache "$v" --out e.jsonl; done
for v in 0 -1 100000000; do c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --evaluators "$v" --out e.jsonl; done
for v in 0 -1; do c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --concurrency "$v" --out e.jsonl; done
c any t=20 -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --concurrency 1000000000 --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b xiangqi --net random --games 1 --sims 4 --progress none --max-plies -1 --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --opening-plies -1 --out e.jsonl
c any t=20 -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --opening-plies 1000000000 --out e.jsonl
c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --progress nope --out e.jsonl
c err check="test -c '$F/null' || test -L '$F/null'" -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --out "$F/null"
c err -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --out "$F/emptydir"
for f in rand.jsonl games.jsonl arena.jsonl; do
	c err pre="cp '$F/$f' e.jsonl" check="cmp e.jsonl '$F/$f'" -- experiment --rules-a xiangqi --rules-b xiangqi "${E[@]}" --out e.jsonl
done
each_path err experiment --rules-a xiangqi --rules-b xiangqi --net @ --games 1 --sims 4 --max-plies 10 --progress none --out e.jsonl

echo "== ladder"
c err -- ladder --player nope
c err -- ladder --player "net:$JG" --pairs 1
c err -- ladder --player "net:$F/rand.palnet" --pairs 1
c err -- ladder --player random --pairs 0
c err -- ladder --player random --pairs -1
c err -- ladder --player random --concurrency 0
c err -- ladder --player random --opening-plies -1
c err -- ladder --player random --engine /no/such/engine --pairs 1 --progress none
c err t=20 -- ladder --player random --engine /bin/false --pairs 1 --progress none
c err -- ladder --player random --rules nope
c err -- ladder --player random --progress nope
c err -- ladder --player random --dir "$F/null" --pairs 1 --progress none
c err -- ladder --player random --dir "$F/games.jsonl" --pairs 1 --progress none
c err -- ladder --player random --scale "$F/rand.yaml" --pairs 1 --progress none
each_path err ladder show --scale @
c err -- ladder show --rules nope
c any -- ladder show --rules janggi
c err -- ladder show --rules "$F/rules.yaml"
c err -- ladder show --scale "$F/games.jsonl"
c err -- ladder calibrate
for v in abc '' 10,5 0 -1 1e18 1,1 "$BIG" ' ,'; do c err -- ladder calibrate --out s.json --nodes "$v" --progress none; done
c err -- ladder calibrate --out s.json --pairs 0 --progress none
c err -- ladder calibrate --out s.json --pairs -1 --progress none
c err -- ladder calibrate --out s.json --option garbage --progress none
c err -- ladder calibrate --out "$F/null" --nodes 1,2 --pairs 1 --progress none
c err -- ladder calibrate --out "$F/emptydir" --nodes 1,2 --pairs 1 --progress none
c err -- ladder calibrate --out s.json --engine /no/such/engine --nodes 1,2 --pairs 1 --progress none
# The handshake's own timeout is 30 s.
c err t=45 -- ladder calibrate --out s.json --engine /bin/cat --nodes 1,2 --pairs 1 --progress none

echo "== worker, trainer, gatekeeper (no NATS server here)"
NN=(--nats nats://127.0.0.1:1)
for role in worker trainer gatekeeper; do
	c err -- $role "${NN[@]}"
	c err -- $role --nats '://garbage'
	c err -- $role --nats ''
	c err t=20 -- $role --nats nats://10.255.255.1:4222
	c err -- $role "${NN[@]}" --run ''
	c err -- $role "${NN[@]}" --run 'a b/../..'
	c err -- $role "${NN[@]}" --max-deliver -1
	c err -- $role "${NN[@]}" --ack-wait -1s
	c err -- $role "${NN[@]}" --progress nope
	c err -- $role "${NN[@]}" --bucket ftp://nope
	c err -- $role "${NN[@]}" --bucket "file://$F/null"
done
c err -- worker "${NN[@]}" --slots 0
c err -- worker "${NN[@]}" --slots -1
c err -- worker "${NN[@]}" --slots 100000000
c err -- worker "${NN[@]}" --duration -1s
c err -- worker "${NN[@]}" --work "$F/null"
c err -- trainer "${NN[@]}" --config /dev/zero
c err -- trainer "${NN[@]}" --config "$F/bomb-top.yaml"
c err -- trainer "${NN[@]}" --generations -5
c err -- gatekeeper "${NN[@]}" --generations -5

echo "== uci"
u() { # u EXPECT 'input' [palace uci flags...]
	local e=$1 f=$F/uci-$n.txt
	printf "$2" >"$f"
	shift 2
	c "$e" in="$f" -- uci "$@"
}
u ok 'uci\nisready\nposition startpos\ngo nodes 10\nquit\n'
printf 'uci\nposition startpos\ngo perft 20\n' >"$F/uci-perft.txt"
c ok t=4 in="$F/uci-perft.txt" -- uci
printf 'uci\nposition startpos\ngo infinite\n' >"$F/uci-inf.txt"
c ok t=4 in="$F/uci-inf.txt" -- uci
printf 'uci\nposition startpos\ngo nodes 16777216\n' >"$F/uci-bignodes.txt"
c ok t=4 in="$F/uci-bignodes.txt" -- uci
u ok 'uci\nsetoption name Threads value 256\nisready\nposition startpos\ngo nodes 10\nquit\n'
u any 'uci\nsetoption name Threads value 100000000\nisready\nposition startpos\ngo nodes 10\nquit\n'
u any 'uci\nsetoption name Threads value -1\nisready\nposition startpos\ngo nodes 10\nquit\n'
u any 'uci\nsetoption name Nodes value -1\nposition startpos\ngo\nquit\n'
u any "uci\nsetoption name Nodes value $BIG\nposition startpos\ngo nodes 5\nquit\n"
u any 'uci\nsetoption name DrawScore value NaN\nposition startpos\ngo nodes 5\nquit\n'
u any 'uci\nsetoption name MoveOverhead value 99999999999\nposition startpos\ngo wtime 100 btime 100\nquit\n'
u any 'uci\nsetoption name UCI_Variant value nope\nposition startpos\ngo nodes 5\nquit\n'
u any 'uci\nsetoption name MoveNotation value nope\nposition startpos\ngo nodes 5\nquit\n'
u any 'uci\nsetoption name\nsetoption\nsetoption name Nope value 1\nsetoption value 5\nquit\n'
u any "uci\nsetoption name WeightsFile value $F/rand.palnet\nisready\nposition startpos\ngo nodes 5\nquit\n"
u any "uci\nsetoption name WeightsFile value $JG\nisready\nposition startpos\ngo nodes 5\nquit\n"
u any "uci\nsetoption name WeightsFile value $F/xq-half.palnet\nisready\nposition startpos\ngo nodes 5\nquit\n"
u any "uci\nsetoption name WeightsFile value $F/emptydir\nisready\nquit\n"
printf 'uci\nsetoption name WeightsFile value /dev/zero\nisready\nquit\n' >"$F/uci-zero.txt"
c any mem=$INF t=10 in="$F/uci-zero.txt" -- uci
printf "uci\nsetoption name WeightsFile value $F/fifo\nisready\nquit\n" >"$F/uci-fifo.txt"
c block t=3 in="$F/uci-fifo.txt" -- uci
u any 'uci\nposition fen garbage\ngo nodes 5\nquit\n'
u any "uci\nposition fen $START $long10k\ngo nodes 5\nquit\n"
u any "uci\nposition fen ${long10k}/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\ngo nodes 5\nquit\n"
u any 'uci\nposition startpos moves z9z9 a0a1\ngo nodes 5\nquit\n'
u any 'uci\nposition startpos moves h3e3 h3e3 h3e3\ngo nodes 5\nquit\n'
u any "uci\nposition startpos moves $(printf 'h3e3 h10g8 e3h3 g8h10 %.0s' $(seq 2000))\ngo nodes 5\nquit\n"
u any 'uci\ngo nodes 0\ngo nodes -1\ngo depth -1\ngo movetime -5\ngo wtime -100 btime -100\ngo nodes abc\nquit\n'
u any "uci\ngo nodes $BIG\nstop\nquit\n"
u any 'uci\ngo wtime 1 btime 1 winc 0 binc 0\nquit\n'
u any 'uci\ngo movestogo 0 wtime 1000 btime 1000\nquit\n'
u any 'uci\ngo perft -1\ngo perft abc\ngo perft 0\nquit\n'
u any 'stop\nponderhit\nucinewgame\nisready\nquit\n'
u any 'uci\r\nisready\r\nposition startpos\r\ngo nodes 5\r\nquit\r\n'
u any 'uci\n\x00\x00\x00\nisready\n\xff\xfe\nquit\n'
u any '\n\n\n\n'
u any ''
u any 'ucci\nisready\nposition startpos\ngo depth 1\nquit\n'
u any 'uci\nposition startpos\ngo nodes 5\nposition startpos\ngo nodes 5\ngo nodes 5\ngo nodes 5\nquit\n'
u any 'uci\nquit\ngo perft 20\n'
c any in="$F/rand.bin" -- uci
{ printf 'uci\nposition fen '; head -c 2000000 /dev/zero | tr '\0' 'x'; printf '\nisready\nquit\n'; } >"$F/uci-2mb.txt"
c any in="$F/uci-2mb.txt" -- uci
{ printf 'uci\n'; for _ in $(seq 100000); do echo isready; done; echo quit; } >"$F/uci-many.txt"
c any in="$F/uci-many.txt" -- uci
c any -- uci --net "$F/rand.palnet"
printf 'uci\nisready\nposition startpos\ngo nodes 5\nquit\n' >"$F/uci-basic.txt"
# A GUI's engine does not exit on a network of the other game: it says so
# in an info string (stdout, the protocol's channel) and plays the uniform
# search, as TestNetworkOfAnotherGame requires.
c ok in="$F/uci-basic.txt" -- uci --net "$JG"
c err in="$F/uci-basic.txt" -- uci --net "$F/rand.palnet"
c err in="$F/uci-basic.txt" -- uci --net "$F/xq-half.palnet"
c err in="$F/uci-basic.txt" -- uci --net "$F/missing"
c err in="$F/uci-basic.txt" mem=$INF t=10 -- uci --net /dev/zero
for v in 0 -1 $BIG abc; do c err in="$F/uci-basic.txt" -- uci --nodes "$v"; done
for v in 0 -1 100000000 abc; do c err in="$F/uci-basic.txt" -- uci --threads "$v"; done

# --- issue 47: run directories, what palace believes (items 4-11, 19) ---
echo "== issue 47: what a run directory believes"
# Values that pass a range check and break the run later, floats for integers, settings never used.
i=0
for y in 'arena: {sprt: {elo0: 1e308, elo1: 1.7e308}}' 'train: {samples_per_position: 1e300}' 'seed: 5.0' 'generations: 1e1' \
	'train: {records: /etc}' 'train: {records_generations: 3}' 'train: {records: /etc, records_share: 0.5, records_generations: 1}'; do
	i=$((i + 1))
	run_cfg "i47-$i" "$y"
	c err check="! test -e r/state.json" -- run --config "$F/run-i47-$i.yaml" --dir r --progress none
done
# An empty --dir or --config is a mistake, not the default.
c err check="! test -e runs" -- run --config "$F/run.yaml" --dir '' --progress none
c err check="! test -e r" -- run --config '' --dir r --progress none
# A run directory reached through a link, with and without a slash.
c ok pre="cp -r '$F/run1' real && ln -s real link" -- run --dir link --progress none
c ok pre="cp -r '$F/run1' real && ln -s real link" -- run --dir link/ --progress none
# config.yaml edited in place; a state.json of an older palace (no digest) resumes and records it.
c err pre="cp -r '$F/run1' r && sed -i 's/^seed: 5$/seed: 6/' r/config.yaml" -- run --dir r --progress none
c err pre="cp -r '$F/run1' r && sed -i 's/blocks: 1,/blocks: 2,/' r/config.yaml" -- run --dir r --progress none
c ok pre="cp -r '$F/run1' r && sed -i 's/,\"config_hash\".*\$/}/' r/state.json" check="grep -q config_hash r/state.json" -- run --dir r --progress none
# The trainer's state deleted, or another network in its place.
c err pre="cp -r '$F/run1' r && rm r/train/state.palnet" check="! test -e r/train/state.palnet" -- run --dir r --generations 2 --progress none
c err pre="cp -r '$F/run1' r && cp r/nets/gen-0000.palnet r/train/state.palnet" check="cmp -s r/train/state.palnet r/nets/gen-0000.palnet" -- run --dir r --generations 2 --progress none
# A shard swapped for another, a manifest entry removed: refused before training on them.
c err t=90 pre="cp -r '$F/run1' r && cp r/selfplay/gen-0000/shard-000001.shard r/selfplay/gen-0000/shard-000000.shard" check="! test -e r/nets/gen-0002.palnet" -- run --dir r --generations 2 --progress none
c err t=90 pre="cp -r '$F/run1' r && python3 -c 'import json, sys; p = sys.argv[1]; m = json.load(open(p)); m[\"shards\"] = m[\"shards\"][:-1]; json.dump(m, open(p, \"w\"))' r/selfplay/gen-0000/manifest.json" check="! test -e r/nets/gen-0002.palnet" -- run --dir r --generations 2 --progress none
# Links out of the run directory: refused, nothing written through them.
c err pre="cp -r '$F/run1' r && : >out.jsonl && rm r/metrics.jsonl && ln -s ../out.jsonl r/metrics.jsonl" check="test ! -s out.jsonl" -- run --dir r --generations 2 --progress none
c err pre="cp -r '$F/run1' r && mv r/train/state.palnet st.palnet && ln -s ../../st.palnet r/train/state.palnet" check="cmp -s st.palnet '$F/run1/train/state.palnet'" -- run --dir r --generations 2 --progress none
c err pre="cp -r '$F/run1' r && ln -s /nowhere r/notes" -- run --dir r --progress none
# A line of metrics.jsonl that is not a metric; blank lines at the end.
c err pre="cp -r '$F/run1' r && echo '{\"garbage\":1}' >>r/metrics.jsonl" -- run --dir r --progress none
c ok pre="cp -r '$F/run1' r && printf '\n\n' >>r/metrics.jsonl" -- run --dir r --progress none
# --- issue 47: distributed trust, FEN counts (47 items 1-3, 17; 50 item 13) ---
echo "== FEN counts and pieces off their squares (accepted deliberately)"
c err -- perft --rules xiangqi --fen '4k4/9/9/9/9/9/9/9/9/3K5 w - - +1 1' --depth 1
c err -- perft --rules janggi --fen '4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 +1' --depth 1
c ok -- perft --rules xiangqi --fen '4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 0' --depth 1
c ok -- perft --rules xiangqi --fen 'a3k4/9/9/9/9/9/9/9/9/3K5 b' --depth 2
c ok -- perft --rules xiangqi --fen '4k4/9/9/9/9/9/9/9/9/P2K5 w' --depth 2
c ok -- perft --rules janggi --fen '4k4/9/9/9/9/9/9/9/9/P2K5 w' --depth 2
# A NATS server of the block's own (Debian's nats-server), stopped after it.
if command -v nats-server >/dev/null; then
	echo "== distributed trust (nats-server on loopback)"
	h47port=$((20000 + RANDOM % 20000))
	nats-server -js -a 127.0.0.1 -p "$h47port" -sd "$W/h47-nats" >"$W/h47-nats.log" 2>&1 &
	h47pid=$!
	sleep 1
	NS=(--nats "nats://127.0.0.1:$h47port")
	mkdir -p "$F/h47-busy" && echo x >"$F/h47-busy/notes.txt"
	printf '#!/bin/sh\ntouch %s\n' "$W/h47-evil-ran" >"$F/h47-evil.sh" && chmod +x "$F/h47-evil.sh"
	{ cat "$F/run.yaml"; echo "ladder: {every: 1, engine: $F/h47-evil.sh}"; } >"$F/h47-evil.yaml"
	# Buckets: none of these may start a run (or create it on the server).
	c err -- trainer "${NS[@]}" --run h47a --bucket file:///
	c err -- trainer "${NS[@]}" --run h47a --bucket "file://$F/h47-busy"
	c err check='! [ -e "$W/h47-esc" ]' -- trainer "${NS[@]}" --run h47a --bucket "file://$W/h47-bk/x/%2e%2e/%2e%2e/h47-esc"
	c err -- trainer "${NS[@]}" --run h47a --bucket mem://
	c err check='! [ -e "$W/h47-q" ]' -- trainer "${NS[@]}" --run h47a --bucket "file://$W/h47-q?mode=x"
	c err check='! [ -e "$W/h47-f" ]' -- trainer "${NS[@]}" --run h47a --bucket "file://$W/h47-f#x"
	c err -- gatekeeper "${NS[@]}" --run h47a
	# The run's delivery settings belong to its trainer; a mistyped run name creates nothing.
	c err -- worker "${NS[@]}" --run h47a --ack-wait 5s
	c err -- gatekeeper "${NS[@]}" --run h47a --max-deliver 2
	c ok t=10 -- worker "${NS[@]}" --run h47typo --duration 2s --progress none
	c err -- gatekeeper "${NS[@]}" --run h47typo
	# A worker runs only the engines its operator allowed, and checks its work directory first.
	c ok t=30 -- run --distributed "${NS[@]}" --run h47e --bucket "file://$W/h47-e" --config "$F/h47-evil.yaml" --duration 3s --progress none
	c err check='! [ -e "$W/h47-evil-ran" ]' -- worker "${NS[@]}" --run h47e --duration 5s
	c err check='! [ -e "$W/h47-evil-ran" ]' -- worker "${NS[@]}" --run h47e --duration 5s --engine /bin/sh
	c err -- worker "${NS[@]}" --run h47e --duration 5s --engine "$F/h47-evil.sh" --work "$F/missing"
	kill "$h47pid" 2>/dev/null
	wait "$h47pid" 2>/dev/null
else
	echo "== distributed trust: skipped (no nats-server)"
fi
# --- issue 47: items 12-16, 18 (temporary files, own output directories, PALACE_CPUPROFILE, memory settings, flags twice, PALACE_* values) ---
# 12: a killed write's temporary file beside --out is removed by the next run of the command.
c ok pre="printf x >.o.pgn.tmp-1a2b3c" check="! test -e .o.pgn.tmp-1a2b3c" -- export "$F/games.jsonl" --out o.pgn
c ok pre="printf x >.g.jsonl.tmp-1a2b3c" check="! test -e .g.jsonl.tmp-1a2b3c" -- import --out g.jsonl "$F/x.pgn"
c ok pre="printf x >.t.json.tmp-1a2b3c" check="! test -e .t.json.tmp-1a2b3c" -- openings "$F/games.jsonl" --format json --out t.json
# 13: ladder --out and report --out take only a new, empty or their own directory.
c err pre="mkdir o && echo mine >o/notes.txt" check="! test -e o/rating.json && test \$(ls -A o | wc -l) = 1" -- ladder --player random --pairs 1 --out o --progress none
c err t=5 -- ladder --player random --pairs 1 --out / --progress none
c err pre="mkdir o && echo mine >o/notes.txt" check="! test -e o/elo.png && test \$(ls -A o | wc -l) = 1" -- report --out o "$F/run1"
c err -- report --out / "$F/run1"
c err -- report --out / "$F/run1" "$F/run1"
c ok pre="'$BIN' report --out charts '$F/run1' >/dev/null" -- report --out charts "$F/run1"
# 14: PALACE_CPUPROFILE gets --out's checks (shown without the variable: HOSTILE_ONLY=export matches).
PALACE_CPUPROFILE=g.jsonl c err pre="cp '$F/games.jsonl' g.jsonl" check="cmp g.jsonl '$F/games.jsonl'" -- export g.jsonl
PALACE_CPUPROFILE=/dev/full c err -- perft --start --depth 1
PALACE_CPUPROFILE=notes.txt c err pre="echo mine >notes.txt" check="grep -q mine notes.txt" -- perft --start --depth 2
PALACE_CPUPROFILE=cpu.prof c ok check="test -s cpu.prof" -- perft --start --depth 2
# 15: the memory settings' maxima under the 4 GiB limit: refused with the numbers, never out of memory.
u any 'uci\nsetoption name Hash value 4736\nisready\nposition startpos\ngo nodes 5\nquit\n'
u any 'uci\nsetoption name Hash value 4000\nisready\nposition startpos\ngo nodes 5\nquit\n'
c err -- arena --player "net:$XQ,cache=16777216" --player random --pairs 1 --out a.jsonl --progress none
c err -- experiment --rules-a xiangqi --rules-b xiangqi --net "$XQ" --games 1 --cache 16777216 --out e.jsonl --progress none
c err pre="sed -e 's#^output: .*#output: sp#' -e 's/^cache_entries: .*/cache_entries: 16777216/' '$F/sp.yaml' >sp.yaml" -- selfplay --config sp.yaml --progress none
# 16: a flag given twice, or under its old name and its new one.
c err -- arena --records a1 --out a2 --player random --player random --pairs 1 --progress none
c err -- search --start --sims 4 --nodes 8
c err -- perft --rules xiangqi --rules janggi --start --depth 1
c err -- perft --start --depth 1 --divide --divide
c ok -- arena --player random --player random --pairs 1 --out a.jsonl --progress none
# 18: a PALACE_* value a variable does not take (shown without the variable: HOSTILE_ONLY=perft matches).
PALACE_BLAS=garbage c err -- perft --start --depth 1
PALACE_WINOGRAD=garbage c err -- perft --start --depth 1
PALACE_KERNEL=garbage c err -- perft --start --depth 1
PALACE_WINOGRAD=off c ok -- perft --start --depth 1

# ------------------------------------------------------------- the counts
echo
echo "== summary"
total=0
for k in "${!count[@]}"; do total=$((total + count[$k])); done
printf 'inputs %d; clear errors %d; ok as expected %d; panics %d; hangs %d; OOMs %d; silent acceptances %d; unclear %d; unexpected errors (fail) %d; corruptions %d; warned acceptances (noted) %d; blocked on a FIFO (noted) %d; long work at a short timeout %d\n' \
	"$total" "${count[error]:-0}" "${count[ok]:-0}" "${count[panic]:-0}" "${count[hang]:-0}" "${count[oom]:-0}" "${count[silent]:-0}" \
	"${count[unclear]:-0}" "${count[fail]:-0}" "${count[corrupt]:-0}" "${count[warned]:-0}" "${count[block]:-0}" "${count[long]:-0}"
echo "details ($n cases listed): $W/results.tsv and $W/c/N/.err"
# No fixture may have gone.
gone=$(find "$F" -type f ! -name '*.lock' | sort | comm -23 "$W/.fixtures" -)
if [ -n "$gone" ]; then echo "CORRUPTION: fixtures removed by some case: ${gone//$'\n'/ }" >&2; fails=$((fails + 1)); fi
# The devices of our own must still be devices (never renamed over).
for d in null full; do
	if [ -e "$F/$d" ] && ! [ -c "$F/$d" ] && ! [ -L "$F/$d" ]; then echo "CORRUPTION: $F/$d is no longer a device" >&2; fails=$((fails + 1)); fi
done
for d in /dev/null /dev/full /dev/zero; do [ -c $d ] || { echo "CORRUPTION: $d is no longer a device" >&2; fails=$((fails + 1)); }; done
[ "$fails" -eq 0 ]
