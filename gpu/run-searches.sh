#!/usr/bin/env bash
# kf-evolve searches on the GPU host, from an unpacked bundle, with the
# GPU evaluator: each example gets a budget of evaluations and of seconds,
# all runs share one experience library (in $OUT_DIR), and the table at the
# end gives each best kernel's time, its fraction of the roofline floor and
# its speedup over the default schedule and over PyTorch eager and
# torch.compile measured in the same run (gpu/torch_baselines.py).
#
#   kf-bundle/gpu/run-searches.sh relu:300:120 softmax:300:150 ...
#   (problem:evaluations:seconds; TORCH=0 skips the PyTorch timings)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
kf=$bundle/bin/kf-evolve
problems=$bundle/examples/problems
out=${OUT_DIR:-/tmp/kf-gpu}
mkdir -p "$out/search"

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true

if [ "${TORCH:-1}" = 1 ]; then
  echo "== PyTorch eager and torch.compile on the same shapes"
  start=$(date +%s)
  python3 "$here/torch_baselines.py" > "$out/torch.json" 2> "$out/torch.err" \
    || echo "torch baselines failed: $(tail -3 "$out/torch.err")"
  echo "($(( $(date +%s) - start )) s)"
fi

for spec in "$@"; do
  IFS=: read -r p evals seconds <<< "$spec"
  echo "== search $p: $evals evaluations, at most $seconds s"
  "$kf" compile "$problems/$p.mlir" --emit=diagnosis > "$out/search/$p.diagnosis.json" 2>/dev/null
  start=$(date +%s)
  "$kf" "$problems/$p.mlir" --budget-evals "$evals" --budget-time "$seconds" --seed 1 \
    --trials 4 --runs 10 --min-runs 5 --time-budget-ms 300 --timeout 20 \
    --db "$out/library.sqlite" --output "$out/search/$p" \
    > "$out/search/$p.out" 2> "$out/search/$p.log" || echo "search $p failed: $(tail -2 "$out/search/$p.log")"
  echo "$(cat "$out/search/$p.out") ($(( $(date +%s) - start )) s)"
done

python3 - "$out" "$@" <<'PY'
import json, os, sys
out = sys.argv[1]
torch = {}
try:
    torch = json.load(open(os.path.join(out, "torch.json")))
except Exception:
    pass
names = {}
print("\n| problem | evals (stop) | default ms | best ms | floor ms | fraction of floor | x default | eager ms | x eager | compile ms | x compile |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for spec in sys.argv[2:]:
    p = spec.split(":")[0]
    try:
        r = json.load(open(os.path.join(out, "search", p, "result.json")))
    except Exception as e:
        print(f"| {p} | no result ({e}) |")
        continue
    try:
        floor = json.load(open(os.path.join(out, "search", p + ".diagnosis.json")))["problem"]["floor_ms"]
    except Exception:
        floor = float("nan")
    best = r["best"]["seconds"] * 1e3
    default = r["default_seconds"] * 1e3 if r["default_status"] == "correct" else float("nan")
    key = names.get(p, p)
    eager = torch.get(key, {}).get("median_ms", float("nan"))
    comp = torch.get(key + "_compiled", {}).get("median_ms", float("nan"))
    print(f"| {p} | {r['evaluations']} ({r['stop_reason']}) | {default:.3f} | {best:.3f} | {floor:.3f} | {floor / best:.2f} | "
          f"{default / best:.2f} | {eager:.3f} | {eager / best:.2f} | {comp:.3f} | {comp / best:.2f} |")
    print(f"|  | best: {r['best']['genome']} |")
PY
