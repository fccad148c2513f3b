#!/usr/bin/env bash
# The GEMM kernel's block tiles on every Level 1 contraction problem: for
# each problem, its default schedule (kf-evolve compile --emit=genome) and
# the same schedule with each GEMM tile below, evaluated in one kf-evolve
# eval run per problem (correctness trials, then timing with the L2
# flushed), beside PyTorch eager (cuBLAS, TF32 off) in the same call. What
# the tile model (alternativeContractionTiles) is checked against. Run on
# the GPU host from an unpacked bundle:
#
#   kf-bundle/gpu/gemm-tile-sweep.sh [OUT_DIR] [PROBLEM_NUMBER ...]
#
# Prints one row per problem and tile (median ms, p10-p90, fraction of
# eager) and writes OUT_DIR/sweep.jsonl.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
out=${1:-/tmp/kf-gemm-tile-sweep}
shift || true
numbers=("$@")
[ ${#numbers[@]} -eq 0 ] && numbers=(1 2 3 6 7 9 10 13 16 17 18)
mkdir -p "$out"
: > "$out/sweep.jsonl"
# bm bn bk stages [min blocks per SM]
tiles=(
  "128 128 16 3" "128 128 8 4" "128 64 16 3" "128 64 8 4" "128 64 16 4"
  "64 128 16 3" "64 128 8 4" "64 64 16 3" "64 64 8 4" "128 128 16 3 2"
)
for number in "${numbers[@]}"; do
  problem=$(ls "$bundle"/bench/problems/level1/"${number}"_*.mlir | head -1)
  name=$(basename "$problem" .mlir)
  dir=$out/$name
  mkdir -p "$dir"
  if ! "$kf" compile "$problem" --emit=genome -o "$dir/default.json" 2> "$dir/genome.err"; then
    echo "$name: no default genome: $(head -1 "$dir/genome.err")"
    continue
  fi
  # One genome per tile: every op with GEMM genes gets the tile (its thread
  # tile keeps 16 x 16 threads).
  /usr/bin/env python3 - "$dir" "${tiles[@]}" <<'PY'
import json, sys
d, tiles = sys.argv[1], sys.argv[2:]
base = json.load(open(f"{d}/default.json"))
names = ["default"]
for t in tiles:
    v = [int(x) for x in t.split()]
    bm, bn, bk, stages = v[:4]
    mb = v[4] if len(v) > 4 else 0
    g = json.loads(json.dumps(base))
    hit = False
    for op in g["ops"]:
        if "gemm" in op:
            hit = True
            op["gemm"] = {"bm": bm, "bn": bn, "bk": bk, "tm": bm // 16,
                          "tn": bn // 16, "stages": stages, "min_blocks": mb}
            op["block"] = [bm, bn]
            op["threads"] = [16, 16]
    if not hit:
        break
    name = f"{bm}x{bn}x{bk}-s{stages}" + (f"-mb{mb}" if mb else "")
    json.dump(g, open(f"{d}/{name}.json", "w"))
    names.append(name)
open(f"{d}/names", "w").write("\n".join(names) + "\n")
PY
  args=()
  while read -r variant; do args+=(--schedule "$dir/$variant.json"); done < "$dir/names"
  "$kf" eval "$problem" "${args[@]}" --trials 2 --runs 10 --min-runs 5 \
    --time-budget-ms 800 > "$dir/eval.json" 2> "$dir/eval.err"
  /usr/bin/env python3 "$bundle/bench/torch-baseline" --level 1 --name "$name" \
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
done
