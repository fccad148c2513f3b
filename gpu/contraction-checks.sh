#!/usr/bin/env bash
# The contraction work's GPU checks in one time budget, for a device call
# that may be the session's only one: the GEMM worklog (gemm-worklog.sh),
# Nsight Compute on the 4096^3 default and on 128x128 tiles with B's tile
# interleaved and plain (profile-gemm.sh), the suite's Level 1 contraction
# rows (bench/run, 6 evaluations each, deadline from the time left), then
# the GPU checks (run-gpu-tests.sh) with what remains. Each step gets a
# share of SECONDS (default 560) and is cut off at it; outputs go to OUT_DIR
# (default $OUT, else /tmp/kf-contractions): worklog.txt, ncu.txt,
# contractions.jsonl, bench.log, gpu-tests.log. Run on the GPU host from an
# unpacked bundle:
#
#   kf-bundle/gpu/contraction-checks.sh [SECONDS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
total=${1:-560}
out=${OUT_DIR:-${OUT:-/tmp/kf-contractions}}
work=$(mktemp -d)
mkdir -p "$out"
start=$(date +%s)
left() { echo $((total - ($(date +%s) - start))); }
problem=$bundle/bench/problems/level1/1_Square_matrix_multiplication_.mlir

cat "$bundle/REVISION" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader

step=$(date +%s)
timeout $((total * 25 / 100)) "$here/gemm-worklog.sh" "$work/worklog" \
  > "$out/worklog.txt" 2>&1
echo "== worklog: rc=$? $(($(date +%s) - step)) s"
cat "$out/worklog.txt"

# The default's genome, and 128x128 tiles (K step 8, 4 stages, two blocks
# per SM) with B's tile interleaved and plain.
"$kf" compile "$problem" --emit=genome -o "$work/default.json"
/usr/bin/env python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
genome = json.load(open(f"{work}/default.json"))
for name, interleave in (("wide", True), ("wide-plain", False)):
    for op in genome["ops"]:
        if "gemm" in op:
            op["block"], op["threads"] = [128, 128], [16, 16]
            op["gemm"] = {"bm": 128, "bn": 128, "bk": 8, "tm": 8, "tn": 8,
                          "stages": 4, "min_blocks": 2,
                          "interleave": interleave}
    json.dump(genome, open(f"{work}/{name}.json", "w"))
PY
step=$(date +%s)
KERNEL_REGEX=Square LAUNCH_COUNT=8 timeout $((total * 12 / 100)) \
  "$here/profile-gemm.sh" "$work/ncu" "$problem" "$work/default.json" \
  "$work/wide.json" "$work/wide-plain.json" > /dev/null 2>&1
echo "== ncu: rc=$? $(($(date +%s) - step)) s"
cp "$work/ncu/ncu.txt" "$out/ncu.txt" 2>/dev/null
cp "$work/ncu/ncu.err" "$out/ncu.err" 2>/dev/null

budget=$(($(left) * 60 / 100))
step=$(date +%s)
if [ "$budget" -gt 60 ]; then
  (cd "$bundle" && timeout "$budget" bench/run --level 1 \
    --match '^([1-9]|1[0-8])_' --budget-evals 6 --budget-time 10 \
    --out "$work/bench" --deadline $((budget - 30)) > "$out/bench.log" 2>&1)
  echo "== bench: rc=$? $(($(date +%s) - step)) s"
  cp "$work/bench/results.jsonl" "$out/contractions.jsonl" 2>/dev/null
  tail -2 "$out/bench.log"
fi

budget=$(left)
if [ "$budget" -gt 40 ]; then
  OUT_DIR=$work/gpu-tests timeout "$budget" "$here/run-gpu-tests.sh" \
    > "$out/gpu-tests.log" 2>&1
  echo "== gpu tests: rc=$?"
  tail -40 "$out/gpu-tests.log"
fi
