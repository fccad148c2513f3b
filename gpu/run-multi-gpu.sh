#!/usr/bin/env bash
# Throughput on one GPU and on every GPU of the host (issue 10): the same
# search (problem, seed, budget) with --gpus 0 and then --gpus all; prints
# each run's throughput.json (evaluations per second, each GPU's busy
# fraction) and each rate over that of one GPU. MODES="0-serial 0 all"
# also runs one GPU with rounds that do not overlap (--overlap-rounds=false).
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
modes=${MODES:-0 all}
for mode in $modes; do
  gpus=${mode%-serial}
  extra=()
  [ "$mode" != "$gpus" ] && extra=(--overlap-rounds=false)
  echo "== $problem, $evals evaluations, --gpus $gpus ${extra[*]}"
  rm -rf "$out/$mode"
  "$kf" "$bundle/examples/problems/$problem.mlir" --gpus "$gpus" --budget-evals "$evals" \
    --seed 1 --runs 10 --min-runs 5 --time-budget-ms 200 --timeout 30 --no-library \
    "${extra[@]}" --output "$out/$mode" > "$out/$mode.out" 2> "$out/$mode.log" \
    || echo "search failed: $(tail -2 "$out/$mode.log")"
  cat "$out/$mode.out"
  grep "throughput:" "$out/$mode.log"
done
python3 - "$out" $modes <<'PY'
import json, os, sys
out = sys.argv[1]
rates = {}
for mode in sys.argv[2:]:
    try:
        t = json.load(open(os.path.join(out, mode, "throughput.json")))
    except Exception as e:
        print("%s: no throughput (%s)" % (mode, e))
        continue
    rates[mode] = t["evaluations_per_second"]
    print("--gpus %s: %.2f evaluations/s, busy %s%s" % (
        mode, t["evaluations_per_second"],
        ["%.0f%%" % (100 * b) for b in t.get("gpu_busy_fraction", [])],
        "" if mode == "0" or "0" not in rates else
        "; %.2f x one GPU" % (t["evaluations_per_second"] / rates["0"])))
PY
