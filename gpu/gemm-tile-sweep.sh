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
# eager; gpu/eval-genomes.sh) and writes OUT_DIR/sweep.jsonl.
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
  genomes=()
  while read -r variant; do genomes+=("$dir/$variant.json"); done < "$dir/names"
  "$here/eval-genomes.sh" "$out" "$problem" "${genomes[@]}"
done
