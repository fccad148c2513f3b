#!/usr/bin/env bash
# Evolves the CUDA examples on the GPU host (issue 8): each kernel as
# written is the baseline, kf-evolve's CUDA experts tune its launch-plan
# parameters, launch bounds and register cap, and every candidate is checked
# against the problem's trusted reference. Prints each search's result with
# the as-written time and the speedup over it; PyTorch's times for the same
# problems come from gpu/torch_baselines.py (run-searches.sh).
#
#   kf-bundle/gpu/run-cuda-searches.sh [evaluations] [seconds]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
examples=$bundle/examples
out=${OUT_DIR:-/tmp/kf-gpu}/cuda
evals=${1:-40}
seconds=${2:-120}
mkdir -p "$out"
# No clang here: the CUDA imports come from the bundle's cache
# (scripts/bundle fills it for every combination of the plans' choices).
export KF_CUDA_CACHE=${KF_CUDA_CACHE:-$bundle/cuda-cache}
for pair in softmax:softmax_rows matmul:matmul_naive; do
  problem=${pair%%:*}
  kernel=${pair##*:}
  echo "== $kernel.cu on $problem: $evals evaluations, at most $seconds s"
  start=$(date +%s)
  "$kf" "$examples/cuda/$kernel.cu" --problem "$examples/problems/$problem.mlir" \
    --launch "$examples/cuda/$kernel.plan.json" --budget-evals "$evals" \
    --budget-time "$seconds" --seed 1 --runs 10 --min-runs 5 --time-budget-ms 300 \
    --timeout 60 --no-library --output "$out/$kernel" \
    > "$out/$kernel.out" 2> "$out/$kernel.log" || echo "search failed: $(tail -2 "$out/$kernel.log")"
  echo "$(cat "$out/$kernel.out") ($(( $(date +%s) - start )) s)"
  python3 - "$out/$kernel/result.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no result:", e)
    sys.exit(0)
c = r.get("cuda", {})
best = r["best"]["seconds"] * 1e3
print("as written: %s %.3f ms; best %.3f ms (%s); %.2fx over as written; kf's default schedule %.3f ms (%s)" % (
    c.get("as_written_status"), c.get("as_written_seconds", float("nan")) * 1e3, best,
    r["best"]["genome"], c.get("speedup_over_as_written", float("nan")),
    r["default_seconds"] * 1e3, r["default_status"]))
PY
done
