#!/usr/bin/env bash
# Times palace's network against a PyTorch twin of the same network
# (scripts/torch_twin.py) in one run and prints a markdown table of both
# speeds and the ratio palace/PyTorch.
#
# Inference: `palace net bench --workers 2` against two single-thread PyTorch
# processes run at once (torch.set_num_threads(1) each), their positions/s
# summed; batch norm folded into the convolutions on both sides. palace runs
# its default kernel path (bf16 where the CPU has AVX-512 BF16) and, where
# that is bf16, also its float32 path (--kernel avx512): PyTorch's own
# precision, the like-for-like column. PyTorch runs twice: float32, and its
# fastest path, bf16 autocast with channels-last tensors (--bf16); palace's
# ratio is against the faster of the two. Training:
# `go test -bench TrainStep ./nn/gnet` (6×64, batch 64, SGD momentum 0.9;
# bf16 products where the CPU has AVX-512 BF16, and float32) against one
# PyTorch process with torch.set_num_threads(2) doing the same step (policy
# and WDL cross-entropy, L2, SGD momentum), float32 and bf16 autocast.
# Before timing, the twin's parameter count must equal `palace net info`'s
# for each shape.
#
# Usage: scripts/torch-vs-palace.sh        (about a minute on 2 cores)
# Knobs (environment):
#   PALACE_PYTHON       the python with torch (default: python3, else /usr/bin/python3)
#   TVP_SHAPES          BLOCKSxFILTERS shapes, space-separated (default "6x64 4x32")
#   TVP_BATCHES         inference batch sizes (default 1,8,32)
#   TVP_POSITIONS       palace net bench --positions, per worker per batch (default 2048)
#   TVP_SECONDS         PyTorch's measured seconds per batch size (default 3)
#   TVP_WORKERS         palace workers and PyTorch processes (default 2)
#   TVP_TRAIN_STEPS     palace's training steps, -benchtime Nx (default 20)
#   TVP_TRAIN_SECONDS   PyTorch's measured training seconds (default 5)
#   TVP_TRAIN_THREADS   PyTorch's training threads (default 2)
#   TVP_TRAIN=0         skip the training row
set -euo pipefail
cd "$(dirname "$0")/.."

shapes=${TVP_SHAPES:-6x64 4x32}
batches=${TVP_BATCHES:-1,8,32}
positions=${TVP_POSITIONS:-2048}
seconds=${TVP_SECONDS:-3}
workers=${TVP_WORKERS:-2}
train_steps=${TVP_TRAIN_STEPS:-20}
train_seconds=${TVP_TRAIN_SECONDS:-5}
train_threads=${TVP_TRAIN_THREADS:-2}

# A python that imports torch: PALACE_PYTHON, else python3 on PATH, else
# Debian's own (a pyenv or venv python3 on PATH does not see python3-torch).
py="" found=""
for cand in ${PALACE_PYTHON:-python3 /usr/bin/python3}; do
	command -v "$cand" >/dev/null 2>&1 || continue
	found=$cand
	if "$cand" -c 'import torch' >/dev/null 2>&1; then
		py=$cand
		break
	fi
done
if [ -z "$found" ]; then
	echo "torch-vs-palace: ${PALACE_PYTHON:-python3} not found (apt-get install python3 python3-torch)" >&2
	exit 1
elif [ -z "$py" ]; then
	echo "torch-vs-palace: PyTorch not found for ${PALACE_PYTHON:-python3 or /usr/bin/python3} (apt-get install python3-torch, or set PALACE_PYTHON to a python that has torch)" >&2
	exit 1
fi
twin() { "$py" scripts/torch_twin.py "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/palace
go build -o "$bin" ./cmd/palace

# jget FILE KEY: KEY's number from each JSON line of FILE.
jget() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1"; }

rows=$tmp/rows
: >"$rows"
: >"$tmp/notes"
for shape in $shapes; do
	blocks=${shape%x*} filters=${shape#*x}
	printf 'blocks: %s\nfilters: %s\n' "$blocks" "$filters" >"$tmp/$shape.yaml"
	"$bin" net init --config "$tmp/$shape.yaml" --out "$tmp/$shape.ckpt" >/dev/null
	pp=$("$bin" net info "$tmp/$shape.ckpt" | awk '/^parameters/{print $2}')
	twin --mode params --blocks "$blocks" --channels "$filters" >"$tmp/$shape.params"
	tp=$(jget "$tmp/$shape.params" params)
	echo "$shape: parameters palace $pp, PyTorch twin $tp" | tee -a "$tmp/notes" >&2
	if [ -z "$pp" ] || [ "$pp" != "$tp" ]; then
		echo "torch-vs-palace: $shape: the twin's parameter count ($tp) is not palace's ($pp); scripts/torch_twin.py no longer matches nn/model" >&2
		exit 1
	fi

	"$bin" net bench --workers "$workers" --batch "$batches" --positions "$positions" "$tmp/$shape.ckpt" >"$tmp/$shape.palace"
	head -1 "$tmp/$shape.palace" | tee -a "$tmp/notes" >&2
	# Beside a reduced-precision default, palace's float32 path: the
	# like-for-like figure against PyTorch's float32.
	: >"$tmp/$shape.palace32"
	if head -1 "$tmp/$shape.palace" | grep -q '; kernel bf16 (this CPU: .*avx512'; then
		"$bin" net bench --kernel avx512 --workers "$workers" --batch "$batches" --positions "$positions" "$tmp/$shape.ckpt" >"$tmp/$shape.palace32"
	fi
	# PyTorch's float32 path, then its bf16 autocast + channels-last path,
	# each as $workers single-thread processes at once.
	for mode in fp32 bf16; do
		flag=""
		[ "$mode" = bf16 ] && flag=--bf16
		pids=()
		for w in $(seq "$workers"); do
			twin --mode infer --threads 1 $flag --blocks "$blocks" --channels "$filters" --batch "$batches" --seconds "$seconds" >"$tmp/$shape.torch-$mode.$w" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
	done

	# torchsum MODE BATCH: the processes' positions/s summed.
	torchsum() { cat "$tmp/$shape.torch-$1."* | grep "\"batch\": $2," | sed -n 's/.*"positions_per_s": \([0-9.e+-]*\).*/\1/p' | awk '{s += $1} END {print s}'; }
	for b in ${batches//,/ }; do
		ppos=$(awk -v b="$b" '$1 == "batch" && $2 + 0 == b {print $3}' "$tmp/$shape.palace")
		p32=$(awk -v b="$b" '$1 == "batch" && $2 + 0 == b {print $3}' "$tmp/$shape.palace32")
		echo "${blocks}×${filters} $b $(torchsum fp32 "$b") $(torchsum bf16 "$b") $ppos ${p32:--}" >>"$rows"
	done
done

if [ "${TVP_TRAIN:-1}" != 0 ]; then
	# nn/gnet's BenchmarkTrainStep is 6×64 at batch 64 (bench_test.go):
	# float32, and bf16 products where the CPU has AVX-512 BF16.
	go test -run '^$' -bench '^BenchmarkTrainStep$' -benchtime "${train_steps}x" ./nn/gnet >"$tmp/train.palace"
	sps() { awk -v name="$1" 'index($1, "BenchmarkTrainStep/" name) == 1 {for (i = 2; i <= NF; i++) if ($i == "samples/s") print $(i-1)}' "$tmp/train.palace"; }
	p32=$(sps fp32) pbf=$(sps bf16)
	twin --mode train --threads "$train_threads" --blocks 6 --channels 64 --batch 64 --seconds "$train_seconds" >"$tmp/train.torch"
	twin --mode train --threads "$train_threads" --bf16 --blocks 6 --channels 64 --batch 64 --seconds "$train_seconds" >"$tmp/train.torch-bf16"
	echo "6×64 train 64 $(jget "$tmp/train.torch" samples_per_s) $(jget "$tmp/train.torch-bf16" samples_per_s) ${pbf:-$p32} $p32" >>"$rows"
fi

tv=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)
echo
echo "PyTorch $tv ($py), $workers single-thread processes for inference, $train_threads threads for training; palace net bench --workers $workers; $(nproc) cores"
cat "$tmp/notes"
echo
echo "| shape | batch | PyTorch fp32 /s | PyTorch bf16 /s | palace /s | palace / PyTorch's best | palace float32 /s | float32 / PyTorch fp32 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
awk '{
	if ($2 == "train") { shape = $1 " train"; b = $3; t = $4; tb = $5; p = $6; f = $7; unit = " samples" }
	else { shape = $1; b = $2; t = $3; tb = $4; p = $5; f = $6; unit = "" }
	best = (tb > t) ? tb : t
	r = (best > 0) ? sprintf("%.2f", p / best) : "n/a"
	if (f == "-") { fs = "–"; fr = "–" } else { fs = sprintf("%.0f", f); fr = (t > 0) ? sprintf("%.2f", f / t) : "n/a" }
	printf "| %s | %s | %.0f%s | %.0f%s | %.0f%s | %s | %s | %s |\n", shape, b, t, unit, tb, unit, p, unit, r, fs, fr
}' "$rows"
