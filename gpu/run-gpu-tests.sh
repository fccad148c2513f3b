#!/usr/bin/env bash
# GPU checks of the evaluation path, run on the GPU host from an unpacked
# bundle (scripts/bundle): no LLVM needed there. It runs what the lit tests
# marked `REQUIRES: cuda` check (the host has no FileCheck), then evaluates
# every example and the hand-written schedules, writes JSON results to
# $OUT_DIR (default /tmp/kf-gpu) and prints a table last. Exits non-zero
# when a result differs from its expectation (gpu/summarize.py).
#
#   kf-bundle/gpu/run-gpu-tests.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problems=$bundle/examples/problems
small=$bundle/examples/small
schedules=$bundle/examples/schedules
candidates=$here/candidates
out=${OUT_DIR:-/tmp/kf-gpu}
mkdir -p "$out" "$out/search"

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

echo "== kf-opt from the bundle: version, and a gpu.module lowered to PTX"
"$bundle/bin/kf-opt" --version | tail -2
"$bundle/bin/kf-opt" "$here/test-inputs/tiny-kernel.mlir" \
  --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' \
  > "$out/tiny-kernel.lowered.mlir" && grep -c '.entry scale' "$out/tiny-kernel.lowered.mlir" | sed 's/^/PTX entries: /'

run() { # name, then kf-evolve arguments
  local name=$1; shift
  local start=$(date +%s%N)
  "$kf" "$@" > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  printf '%-28s rc=%d  %6d ms\n' "$name" "$rc" $(( ($(date +%s%N) - start) / 1000000 ))
}

echo "== the GPU reference against the CPU reference (ExecutionEngine), small shapes"
for p in relu softmax sum_reduction layernorm matmul gemm_bias_relu; do
  run "check-reference-$p" check-reference "$small/$p.mlir" --seed 7
done

echo "== small evaluations"
run eval-small-relu eval "$small/relu.mlir" --trials 2 --runs 5
run eval-small-relu-cubin eval "$small/relu.mlir" --trials 2 --runs 5 --format=bin
run eval-small-softmax-zeros eval "$small/softmax.mlir" --kernel "$here/test-inputs/softmax-zeros.mlir"

echo "== 100 KB of dynamic shared memory beside a static buffer (opt-in above 48 KB, .extern .shared)"
run dynamic-shared-relu eval "$small/relu.mlir" --kernel "$candidates/relu_dynamic_shared.mlir" --trials 2 --runs 5

quick="--trials 2 --runs 10 --min-runs 5 --time-budget-ms 500"
echo "== the degenerate-problem check rejects problems a trivial kernel passes"
run degenerate-relu eval "$here/test-inputs/degenerate-relu.mlir" --trials 3 --runs 5 --min-runs 3 --time-reference=false
run degenerate-softmax eval "$here/test-inputs/degenerate-softmax.mlir" --trials 3 --runs 5 --min-runs 3 --time-reference=false

echo "== CUDA candidates: launch plans, imports from the bundle's cache (no clang here)"
export KF_CUDA_CACHE=${KF_CUDA_CACHE:-$bundle/cuda-cache}
cuda=$bundle/examples/cuda
run cuda-small-softmax eval "$small/softmax.mlir" --cuda "$cuda/softmax_rows.cu" \
  --launch "$cuda/softmax_rows.plan.json" --param BLOCK=256 --launch-bounds $quick
run cuda-small-matmul eval "$small/matmul.mlir" --cuda "$cuda/matmul_naive.cu" \
  --launch "$cuda/matmul_naive.plan.json" --param TX=32 --param TY=8 --param UNROLL=4 $quick
run cuda-small-relu eval "$small/relu.mlir" --cuda "$here/cuda-inputs/relu-naive.cu" \
  --launch "$here/cuda-inputs/relu.plan.json" $quick
run cuda-relu-writes-input eval "$small/relu.mlir" --cuda "$here/cuda-inputs/relu-writes-input.cu" \
  --launch "$here/cuda-inputs/relu.plan.json" $quick

echo "== the adversarial corpus (test/Cheats) on the small problems"
for kind in cheats dynamic honest; do
  for f in "$here/cheats/$kind"/*.mlir; do
    problem=$(grep -o 'examples/small/[a-z_]*\.mlir' "$f" | head -1)
    run "corpus-$kind-$(basename "$f" .mlir)" eval "$bundle/$problem" --kernel "$f" \
      --trials 3 --runs 5 --min-runs 3 --time-budget-ms 200 --time-reference=false
  done
done

echo "== every example under the default schedule (the trusted reference against itself)"
for p in relu softmax sum_reduction layernorm matmul gemm_bias_relu; do
  run "default-$p" eval "$problems/$p.mlir" $quick --time-reference=false --time-incorrect
done

echo "== relu: vectorized twice, wrong, fault, recovery, hang, recovery"
run relu-sequence eval "$problems/relu.mlir" --trials 3 --runs 30 --min-runs 10 --time-budget-ms 2000 \
  --timeout 30 \
  --schedule "$schedules/relu_vectorized.mlir" \
  --schedule "$schedules/relu_vectorized.mlir" \
  --kernel "$candidates/relu_copy.mlir" \
  --kernel "$candidates/relu_out_of_bounds.mlir" \
  --schedule "$schedules/relu_vectorized.mlir" \
  --kernel "$candidates/relu_hang.mlir" \
  --schedule "$schedules/relu_vectorized.mlir"

echo "== a deliberately wrong schedule: the reduction split over threads without synchronization"
run sum-racy-schedule eval "$problems/sum_reduction.mlir" --trials 2 --runs 5 --min-runs 3 \
  --time-reference=false --schedule "$candidates/sum_reduction_racy_schedule.mlir"

echo "== sum over dim 1 with the reduction split 16 ways"
run sum-split eval "$problems/sum_reduction.mlir" $quick --schedule "$schedules/sum_reduction_split.mlir"
run eval-small-sum-split eval "$small/sum_reduction.mlir" --trials 3 --runs 5 --schedule "$schedules/sum_reduction_split.mlir"

echo "== near-floor hand-written schedules of the memory-bound examples"
run sum-registers eval "$problems/sum_reduction.mlir" $quick --time-reference=false \
  --schedule "$schedules/sum_reduction_registers.mlir"
run softmax-split eval "$problems/softmax.mlir" $quick --time-reference=false \
  --schedule "$schedules/softmax_split.mlir"
run layernorm-split eval "$problems/layernorm.mlir" $quick --time-reference=false \
  --schedule "$schedules/layernorm_split.mlir"

echo "== matmul with shared memory"
run matmul-shared eval "$problems/matmul.mlir" $quick --schedule "$schedules/matmul_shared.mlir"

echo "== kf-evolve search on the GPU (short budgets)"
for spec in relu:12 sum_reduction:16; do
  p=${spec%%:*}; budget=${spec##*:}
  start=$(date +%s)
  "$kf" search "$problems/$p.mlir" --budget-evals "$budget" --seed 1 --trials 2 \
    --runs 10 --min-runs 5 --time-budget-ms 300 --output "$out/search/$p" \
    > "$out/search/$p.out" 2> "$out/search/$p.log" || echo "search $p failed: $(tail -2 "$out/search/$p.log")"
  echo "search $p: $(cat "$out/search/$p.out") ($(( $(date +%s) - start )) s)"
  python3 -c "import json; r=json.load(open('$out/search/$p/result.json')); print('  evaluator', r['evaluator'], '| default', round(r['default_seconds']*1e3,3), 'ms | best', round(r['best']['seconds']*1e3,3), 'ms |', round(r['speedup_over_default'],2), 'x |', r['best']['genome'])" 2>/dev/null
done

echo "== PyTorch eager and torch.compile on the same shapes"
python3 "$here/torch_baselines.py" > "$out/torch.json" 2> "$out/torch.err" || echo "torch baselines failed: $(tail -3 "$out/torch.err")"

# One file to carry back: every result and the logs of failed runs.
python3 "$here/summarize.py" "$out" --bundle "$out/all-results.json"
