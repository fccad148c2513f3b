#!/usr/bin/env bash
# Evaluates schedule genomes of one problem in one kf-evolve eval run
# (correctness trials, then timing with the L2 flushed), beside PyTorch
# eager (TF32 off) in the same call, and prints one row per genome: median
# ms, p10-p90 and the fraction of eager. Each genome's file name (without
# .json) names its row; rows are appended to OUT_DIR/sweep.jsonl. Run on
# the GPU host from an unpacked bundle:
#
#   kf-bundle/gpu/eval-genomes.sh OUT_DIR PROBLEM.mlir GENOME.json...
#
# What gemm-tile-sweep.sh runs per problem; also for genomes made
# elsewhere (kf-evolve compile --emit=genome, then edited).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT_DIR PROBLEM.mlir GENOME.json..." >&2
  exit 2
fi
out=$1 problem=$2
shift 2
name=$(basename "$problem" .mlir)
level=1
case "$problem" in */level2/*) level=2 ;; esac
dir=$out/$name
mkdir -p "$dir"
args=() names=()
for genome in "$@"; do
  args+=(--schedule "$genome")
  names+=("$(basename "$genome" .json)")
done
printf '%s\n' "${names[@]}" > "$dir/names"
"$kf" eval "$problem" "${args[@]}" --trials 2 --runs 10 --min-runs 5 \
  --time-budget-ms 800 > "$dir/eval.json" 2> "$dir/eval.err"
/usr/bin/env python3 "$bundle/bench/torch-baseline" --level "$level" --name "$name" \
  --no-compile --budget 1.5 "$problem" > "$dir/torch.json" 2> "$dir/torch.err"
KF_GPU_DIR=$here /usr/bin/env python3 - "$dir" "$name" "$out/sweep.jsonl" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["KF_GPU_DIR"])
from eval_results import read_candidates
d, name, sink = sys.argv[1:]
names = open(f"{d}/names").read().split()
results = read_candidates(f"{d}/eval.json")
try:
    eager = json.load(open(f"{d}/torch.json"))["eager"]["median_ms"]
except Exception:
    eager = None
print(f"== {name}: eager {eager if eager else '?'} ms")
with open(sink, "a") as out:
    for variant, r in zip(names, results):
        t = r.get("time") or {}
        m = t.get("median_ms")
        row = {"problem": name, "variant": variant, "status": r.get("status"),
               "median_ms": m, "p10_ms": t.get("p10_ms"), "p90_ms": t.get("p90_ms"),
               "eager_ms": eager}
        out.write(json.dumps(row) + "\n")
        if m is None:
            print(f"  {variant:22} {r.get('status', '?'):10} {str(r.get('message', ''))[:70]}")
        else:
            frac = f"{eager / m:6.2f}" if eager else ""
            print(f"  {variant:22} {r['status']:10} {m:8.3f} ({t['p10_ms']:.3f}-{t['p90_ms']:.3f}) {frac}")
PY
