#!/usr/bin/env bash
# Evolves the CUDA examples on the GPU host (issue 8): each kernel as
# written is the baseline, kf-evolve's CUDA experts tune its launch-plan
# parameters, launch bounds and register cap, and every candidate is checked
# against the problem's trusted reference (or, for the standalone plan with
# no problem file, against the kernel as written). Prints each search's
# result with the as-written time and the speedup over it; PyTorch's times for the same
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
search() { # name, kernel, plan, then kf-evolve arguments
  local name=$1 kernel=$2 plan=$3; shift 3
  echo "== $name: $evals evaluations, at most $seconds s"
  local start=$(date +%s)
  "$kf" "$examples/cuda/$kernel.cu" --launch "$examples/cuda/$plan" "$@" \
    --budget-evals "$evals" --budget-time "$seconds" --seed 1 --runs 10 --min-runs 5 \
    --time-budget-ms 300 --timeout 60 --no-library --output "$out/$name" \
    > "$out/$name.out" 2> "$out/$name.log" || echo "search failed: $(tail -2 "$out/$name.log")"
  echo "$(cat "$out/$name.out") ($(( $(date +%s) - start )) s)"
  python3 - "$out/$name/result.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no result:", e)
    sys.exit(0)
c = r.get("cuda", {})
best = r["best"]["seconds"] * 1e3
line = "as written: %s %.3f ms; best %.3f ms (%s); %.2fx over as written" % (
    c.get("as_written_status"), c.get("as_written_seconds", float("nan")) * 1e3, best,
    r["best"]["genome"], c.get("speedup_over_as_written", float("nan")))
if r.get("reference") == "cuda-as-written":
    line += "; reference: the kernel as written (no problem file)"
else:
    line += "; kf's default schedule %.3f ms (%s)" % (r["default_seconds"] * 1e3, r["default_status"])
print(line)
PY
}
# Against the problems' trusted references.
search softmax_rows softmax_rows softmax_rows.plan.json --problem "$examples/problems/softmax.mlir"
search matmul_naive matmul_naive matmul_naive.plan.json --problem "$examples/problems/matmul.mlir"
# No problem file: the plan describes the problem, the kernel as written is
# the reference.
search softmax_rows_standalone softmax_rows softmax_rows.standalone.json
