#!/usr/bin/env bash
# GPU checks of the evaluation path, run on the GPU host from an unpacked
# bundle (scripts/bundle): no LLVM needed there. Writes JSON results to
# $OUT_DIR (default /tmp/kf-gpu) and prints a table last.
#
#   kf-bundle/gpu/run-gpu-tests.sh [quick]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problems=$bundle/examples/problems
schedules=$bundle/examples/schedules
candidates=$here/candidates
out=${OUT_DIR:-/tmp/kf-gpu}
mkdir -p "$out"

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$kf" --version | tail -2
ls -d /usr/local/cuda/nvvm/libdevice 2>/dev/null || echo "warning: no libdevice under /usr/local/cuda"

run() { # name, then kf-evolve eval arguments
  local name=$1; shift
  local start=$(date +%s%N)
  "$kf" eval "$@" > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  printf '%-28s rc=%d  %d ms\n' "$name" "$rc" "$ms"
}

quick="--trials 2 --runs 10 --min-runs 5 --time-budget-ms 500"
echo "== every example under the default schedule (the trusted reference against itself)"
for p in relu softmax sum_reduction layernorm matmul gemm_bias_relu; do
  run "default-$p" "$problems/$p.mlir" $quick --time-reference=false
done

echo "== relu: vectorized twice, wrong, fault, recovery, hang, recovery"
run relu-sequence "$problems/relu.mlir" --trials 3 --runs 30 --min-runs 10 --time-budget-ms 2000 \
  --timeout 30 \
  --schedule "$schedules/relu_vectorized.mlir" \
  --schedule "$schedules/relu_vectorized.mlir" \
  --kernel "$candidates/relu_copy.mlir" \
  --kernel "$candidates/relu_out_of_bounds.mlir" \
  --schedule "$schedules/relu_vectorized.mlir" \
  --kernel "$candidates/relu_hang.mlir" \
  --schedule "$schedules/relu_vectorized.mlir"

echo "== matmul with shared memory"
run matmul-shared "$problems/matmul.mlir" $quick --schedule "$schedules/matmul_shared.mlir"

echo "== PyTorch eager on the same shapes"
python3 "$here/torch_baselines.py" > "$out/torch.json" 2> "$out/torch.err" || echo "torch baselines failed: $(tail -3 "$out/torch.err")"

# One file to carry back: every result and the logs of failed runs.
python3 "$here/summarize.py" "$out" --bundle "$out/all-results.json"
