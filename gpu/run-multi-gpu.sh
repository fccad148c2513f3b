#!/usr/bin/env bash
# Throughput on one GPU and on every GPU of the host (issue 10): the same
# search (problem, seed, budget) with --gpus 0 and then --gpus all; prints
# each run's throughput.json (evaluations per second, each GPU's busy
# fraction) and the ratio of the two rates.
#
#   kf-bundle/gpu/run-multi-gpu.sh [problem] [evaluations]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problem=${1:-relu}
evals=${2:-60}
out=${OUT_DIR:-/tmp/kf-gpu}/multi-gpu
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader || true
for gpus in 0 all; do
  echo "== $problem, $evals evaluations, --gpus $gpus"
  rm -rf "$out/$gpus"
  "$kf" "$bundle/examples/problems/$problem.mlir" --gpus "$gpus" --budget-evals "$evals" \
    --seed 1 --runs 10 --min-runs 5 --time-budget-ms 200 --timeout 30 --no-library \
    --output "$out/$gpus" > "$out/$gpus.out" 2> "$out/$gpus.log" \
    || echo "search failed: $(tail -2 "$out/$gpus.log")"
  cat "$out/$gpus.out"
  grep "throughput:" "$out/$gpus.log"
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
try:
    one = json.load(open(os.path.join(out, "0", "throughput.json")))
    every = json.load(open(os.path.join(out, "all", "throughput.json")))
except Exception as e:
    print("no throughput:", e)
    sys.exit(0)
print("one GPU: %.2f evaluations/s; all GPUs (%s): %.2f evaluations/s, busy %s; ratio %.2f" % (
    one["evaluations_per_second"], every.get("gpus"), every["evaluations_per_second"],
    ["%.0f%%" % (100 * b) for b in every.get("gpu_busy_fraction", [])],
    every["evaluations_per_second"] / one["evaluations_per_second"]))
PY
