#!/usr/bin/env bash
# Hardware counters of a problem's GEMM kernel under Nsight Compute: where
# its cycles go (FMA pipe, shared-memory wavefronts and bank conflicts,
# warp stall reasons, occupancy). Runs one kf-evolve eval (one trial, one
# timed run) of the default schedule, or of the genomes given, under ncu,
# profiling the launches whose kernel name matches KERNEL_REGEX (default:
# every kernel; the trusted reference's kernels are profiled too and are
# told apart by their grid). Clocks are left alone (--clock-control none).
# Run on the GPU host from an unpacked bundle:
#
#   kf-bundle/gpu/profile-gemm.sh OUT_DIR PROBLEM.mlir [GENOME.json...]
#
# Prints ncu's report (text) and writes it to OUT_DIR/ncu.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
if [ $# -lt 2 ]; then
  echo "usage: $0 OUT_DIR PROBLEM.mlir [GENOME.json...]" >&2
  exit 2
fi
out=$1 problem=$2
shift 2
mkdir -p "$out"
args=()
for genome in "$@"; do args+=(--schedule "$genome"); done
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
  echo "profile-gemm: no ncu on this host" >&2
  exit 1
fi
sections=(SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis_Tables
  WarpStateStats SchedulerStats Occupancy LaunchStats)
section_args=()
for s in "${sections[@]}"; do section_args+=(--section "$s"); done
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
"$ncu" --clock-control none --target-processes all \
  -k "regex:${KERNEL_REGEX:-.}" --launch-count "${LAUNCH_COUNT:-4}" \
  "${section_args[@]}" --metrics "$metrics" \
  "$kf" eval "$problem" "${args[@]}" --trials 1 --runs 1 --min-runs 1 \
  --time-budget-ms 1 > "$out/ncu.txt" 2> "$out/ncu.err"
echo "ncu: rc=$?"
cat "$out/ncu.txt"
tail -5 "$out/ncu.err"
