#!/usr/bin/env bash
# Throughput on one GPU and on every GPU of the host (issue 10): the same
# search (problem, seed, budget, round size) with --gpus 0, with --gpus all,
# and as an MPI job (rank 0 drives, one evaluating rank per GPU, through the
# bundle's Open MPI); prints each run's throughput.json (evaluations per
# second, each GPU's busy fraction) and each rate over that of one GPU.
# Every mode runs rounds of the same size (ROUND_SIZE, default 8), so that
# the runs propose the same candidates (they part only where the GPUs'
# timings rank two candidates differently). MODES picks the runs (default
# "0 all mpi"); "0-serial" is one GPU with rounds that do not overlap.
# SEED (default 1) seeds the search; EXTRA_FLAGS go to every run (e.g.
# "--rounds-in-flight 3" or "--mpi-depth 2"). Every run must measure with
# the same evaluator (the GPU's model, as result.json names it; an MPI job
# takes the one its ranks report): the script exits 1 when one differs or
# a run gave no result.
#
#   kf-bundle/gpu/run-multi-gpu.sh [problem] [evaluations]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problem=${1:-relu}
evals=${2:-60}
round=${ROUND_SIZE:-8}
out=${OUT_DIR:-/tmp/kf-gpu}/multi-gpu
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader || true
gpu_count=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
modes=${MODES:-0 all mpi}
common=("$bundle/examples/problems/$problem.mlir" --budget-evals "$evals" --round-size "$round"
  --seed "${SEED:-1}" --runs 10 --min-runs 5 --time-budget-ms 200 --timeout 30 --no-library ${EXTRA_FLAGS:-})
for mode in $modes; do
  rm -rf "$out/$mode"
  case $mode in
    mpi)
      ranks=$((gpu_count + 1))
      echo "== $problem, $evals evaluations, rounds of $round, mpirun -n $ranks --mpi"
      "$bundle/bin/mpirun" --allow-run-as-root --oversubscribe -n "$ranks" \
        "$kf" "${common[@]}" --mpi --output "$out/$mode" > "$out/$mode.out" 2> "$out/$mode.log" \
        || echo "search failed: $(tail -2 "$out/$mode.log")"
      ;;
    *)
      gpus=${mode%-serial}
      extra=()
      [ "$mode" != "$gpus" ] && extra=(--overlap-rounds=false)
      echo "== $problem, $evals evaluations, rounds of $round, --gpus $gpus ${extra[*]}"
      "$kf" "${common[@]}" --gpus "$gpus" "${extra[@]}" --output "$out/$mode" \
        > "$out/$mode.out" 2> "$out/$mode.log" \
        || echo "search failed: $(tail -2 "$out/$mode.log")"
      ;;
  esac
  cat "$out/$mode.out"
  grep "throughput:" "$out/$mode.log"
done
python3 - "$out" $modes <<'PY'
import json, os, sys
out = sys.argv[1]
rates = {}
evaluators = {}
failed = False
for mode in sys.argv[2:]:
    try:
        t = json.load(open(os.path.join(out, mode, "throughput.json")))
        r = json.load(open(os.path.join(out, mode, "result.json")))
    except Exception as e:
        print("%s: no throughput (%s)" % (mode, e))
        failed = True
        continue
    evaluators[mode] = r.get("evaluator", "")
    rates[mode] = t["evaluations_per_second"]
    busy = t.get("gpu_busy_fraction") or [x.get("busy_fraction", 0) for x in t.get("ranks", [])]
    best = r.get("best", {}).get("seconds")
    span = ("measuring %.1f-%.1f s" % (t["measuring_from_seconds"], t["measuring_to_seconds"])
            if "measuring_from_seconds" in t else "")
    evals = t["evaluations"]
    print("%-8s %6.1f s  %.2f evaluations/s  GPU busy %s  GPU-seconds/s %.2f  GPU-s/evaluation %.2f  %s  best %s%s" % (
        mode, t["wall_seconds"], t["evaluations_per_second"],
        " ".join("%.0f%%" % (100 * b) for b in busy), sum(busy),
        sum(busy) * t["wall_seconds"] / max(evals, 1), span,
        "%.3f ms" % (best * 1e3) if best else "-",
        "" if mode == "0" or "0" not in rates else
        "  %.2fx one GPU" % (t["evaluations_per_second"] / rates["0"])))
print("evaluators: " + ", ".join("%s %s" % item for item in evaluators.items()))
if len(set(evaluators.values())) > 1 or not all(evaluators.values()):
    print("error: the runs did not all measure with one named evaluator")
    failed = True
sys.exit(1 if failed else 0)
PY
