#!/usr/bin/env bash
# The GEMM kernel's worklog on the 4096^3 matmul (Level 1 problem 1): each
# technique of the contraction generator as a schedule genome, evaluated
# in one kf-evolve eval run (correctness trials, then timing with the L2
# flushed), beside PyTorch (cuBLAS, TF32 off) in the same call. Prints one
# row per variant: median ms with the 10th-90th percentiles, TFLOP/s and
# the fraction of cuBLAS. Run on the GPU host from an unpacked bundle:
#
#   kf-bundle/gpu/gemm-worklog.sh [OUT_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problem=$bundle/bench/problems/level1/1_Square_matrix_multiplication_.mlir
out=${1:-/tmp/kf-gemm-worklog}
mkdir -p "$out/genomes"

# name, then the GEMM genes (bm bn bk tm tn stages [min blocks per SM
# [block group [interleave: 1, the default, or 0]]]);
# "naive" and "staged"
# are the earlier generators: one output per thread, and the shared-memory
# stage gene (64x64 blocks of 4x4 outputs, K tiles of 16, steps of 4).
# Tiles of 8 contiguous columns per thread (tn 8) store B's tile
# interleaved unless the last field is 0.
variants=(
  "naive"
  "staged-64x64x16"
  "gemm-128x64x16-4stages 128 64 16 8 4 4"
  "gemm-128x64x16-4stages-group8 128 64 16 8 4 4 0 8"
  "gemm-128x128x8-4stages-2blocks-plain 128 128 8 8 8 4 2 0 0"
  "gemm-128x128x8-4stages-2blocks 128 128 8 8 8 4 2"
  "gemm-128x128x8-3stages-2blocks 128 128 8 8 8 3 2"
  "gemm-128x128x8-4stages-2blocks-group8 128 128 8 8 8 4 2 8"
  "gemm-128x128x16-3stages-2blocks-plain 128 128 16 8 8 3 2 0 0"
  "gemm-128x128x16-3stages-2blocks 128 128 16 8 8 3 2"
  "gemm-128x128x16-2stages 128 128 16 8 8 2"
  "gemm-64x64x16-3stages 64 64 16 4 4 3"
)
fill='{"block": [4, 64], "threads": [4, 64], "vector": 1, "step": 0}'
args=()
for v in "${variants[@]}"; do
  set -- $v
  name=$1
  case $name in
  naive)
    op='{"block": [4, 64], "threads": [4, 64], "vector": 1, "step": 0}' ;;
  staged-*)
    op='{"block": [64, 64], "threads": [16, 16], "vector": 1, "step": 4, "stage": 16}' ;;
  *)
    op="{\"block\": [$2, $3], \"threads\": [$(($2 / $5)), $(($3 / $6))], \"vector\": 1, \"step\": 0, \"gemm\": {\"bm\": $2, \"bn\": $3, \"bk\": $4, \"tm\": $5, \"tn\": $6, \"stages\": $7, \"min_blocks\": ${8:-0}, \"group\": ${9:-0}, \"interleave\": $([ "${10:-1}" = 0 ] && echo false || echo true)}}" ;;
  esac
  echo "{\"fuse\": false, \"collapse\": false, \"splits\": [], \"ops\": [$fill, $op]}" > "$out/genomes/$name.json"
  args+=(--schedule "$out/genomes/$name.json")
done

"$kf" eval "$problem" "${args[@]}" --trials 2 --runs 20 --min-runs 10 \
  --time-budget-ms 2000 > "$out/eval.json" 2> "$out/eval.err"
echo "kf-evolve eval: rc=$?"
/usr/bin/env python3 "$bundle/bench/torch-baseline" --level 1 \
  --name 1_Square_matrix_multiplication_ --no-compile "$problem" \
  > "$out/torch.json" 2> "$out/torch.err"
echo "torch-baseline: rc=$?"

KF_GPU_DIR=$here /usr/bin/env python3 - "$out" "${variants[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KF_GPU_DIR"])
from eval_results import read_candidates
out, names = sys.argv[1], [v.split()[0] for v in sys.argv[2:]]
flops = 2 * 4096 ** 3
results = read_candidates(f"{out}/eval.json")
try:
    torch = json.load(open(f"{out}/torch.json"))
    eager = torch["eager"]["median_ms"]
except Exception as error:
    eager = None
    print("no PyTorch timing:", error)
print(f"{'variant':28} {'status':10} {'median ms (p10-p90)':26} {'TFLOP/s':>8} {'of cuBLAS':>9}")
if eager:
    print(f"{'cuBLAS (torch.matmul)':28} {'':10} {eager:8.3f}{'':18} {flops / eager / 1e9:8.1f} {1.0:9.2f}")
for name, r in zip(names, results):
    t = r.get("time")
    if not t:
        print(f"{name:28} {r.get('status', '?'):10} {r.get('message', '')[:60]}")
        continue
    m = t["median_ms"]
    frac = f"{eager / m:9.2f}" if eager else ""
    print(f"{name:28} {r['status']:10} {m:8.3f} ({t['p10_ms']:.3f}-{t['p90_ms']:.3f})  {flops / m / 1e9:8.1f} {frac}")
PY
