"""Prints the table of a run-gpu-tests.sh output folder."""
import glob
import json
import os
import sys

out = sys.argv[1]
bundle_path = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--bundle" else None
everything = {}
torch_times = {}
try:
    torch_times = json.load(open(os.path.join(out, "torch.json")))
except Exception:
    pass

rows = []
bottlenecks = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(path)[:-5]
    if name == "torch":
        continue
    if name == "all-results":
        continue
    try:
        data = json.load(open(path))
        everything[name] = data
    except Exception as e:
        rows.append((name, "-", "unreadable: %s" % e, "", "", "", "", "", ""))
        continue
    for r in data if isinstance(data, list) else [data]:
        t = r.get("time") or {}
        med = t.get("median_ms")
        spread = ("%.3f-%.3f" % (t["p10_ms"], t["p90_ms"])) if med else ""
        problem = r.get("problem", "")
        eager = torch_times.get(problem, {}).get("median_ms")
        compiled = torch_times.get(problem + "_compiled", {}).get("median_ms")
        b = r.get("bottleneck", {})
        bottlenecks.append((name, os.path.basename(r.get("candidate", "")),
                            b.get("predicted", ""), b.get("measured", ""),
                            b.get("predicted_because", "")[:90]))
        rows.append((name, os.path.basename(r.get("candidate", "")), r.get("status", ""),
                     "%.3f" % med if med else "", spread,
                     "%.0f" % r["achieved_gb_per_s"] if "achieved_gb_per_s" in r else "",
                     "%.2f" % r["fraction_of_floor"] if "fraction_of_floor" in r else "",
                     "%.3f" % eager if eager else "",
                     "%.3f" % compiled if compiled else ""))
        if r.get("status") not in ("correct", None):
            print("%s / %s: %s" % (name, r.get("candidate"), r.get("message", "")[:300]))

print("bottleneck: predicted vs measured")
for row in bottlenecks:
    if row[2] or row[3]:
        print("  %-24s %-24s predicted %-14s measured %-14s (%s)" % row)
print()

# What each run must give (statuses in order for multi-candidate runs).
expected = {
    "relu-sequence": ["correct", "correct", "incorrect", "runtime-fault",
                      "correct", "timeout", "correct"],
    "matmul-shared": ["correct"],
    # The default schedule as a candidate is plain f32. Its sequential sums
    # over 393216 (softmax) and 4M (layer norm) terms missed rtol 1e-4
    # against the f64-accumulating reference; shared among reduction lanes
    # (four chains per lane, then a tree across lanes) they meet it
    # (H200, bundle 8068aa5, 2026-12-02).
    "default-softmax": ["correct"],
    "default-layernorm": ["correct"],
    "eval-small-relu": ["correct"],
    "eval-small-relu-cubin": ["correct"],
    "eval-small-softmax-zeros": ["rejected"],
    # 100 KB of dynamic shared memory: correct only when the runtime opts
    # in above 48 KB and the dynamic buffer does not overlap the static one.
    "dynamic-shared-relu": ["correct"],
    "degenerate-relu": ["degenerate-problem"],
    "degenerate-softmax": ["degenerate-problem"],
    "sum-racy-schedule": ["incorrect"],
    # A CUDA kernel writing its input: rejected by the static checks at its
    # .cu line.
    "cuda-relu-writes-input": ["rejected"],
}
failures = []
checked = {}  # problem -> degenerate-problem check verdicts seen
for name, data in everything.items():
    if name.startswith("check-reference-"):
        if data.get("status") != "agree":
            failures.append("%s: %s" % (name, data.get("status")))
        continue
    statuses = [r.get("status") for r in (data if isinstance(data, list) else [data])]
    # The adversarial corpus: static cheats are rejected at compile time,
    # the others must fail a dynamic check, honest kernels must pass.
    if name.startswith("corpus-cheats-"):
        want = ["rejected"]
    elif name.startswith("corpus-dynamic-"):
        # Either dynamic verdict will do: wrong values or unchanged outputs.
        want = statuses if statuses and all(
            s in ("incorrect", "cheating") for s in statuses) else ["incorrect"]
    else:
        want = expected.get(name, ["correct"] * len(statuses))
    for r in data if isinstance(data, list) else [data]:
        if name.startswith("degenerate-"):
            continue  # test problems that share an example's name
        if isinstance(r, dict) and r.get("problem_check"):
            checked.setdefault(r.get("problem"), set()).add(r["problem_check"])
    if statuses != want:
        failures.append("%s: got %s, expected %s" % (name, statuses, want))
# Every example problem passes the degenerate-problem check (in some run
# whose candidate got through all trials).
for problem in ("relu", "softmax", "sum_reduction", "layernorm", "matmul", "gemm_bias_relu"):
    if checked.get(problem) != {"passed"}:
        failures.append("degenerate-problem check of %s: %s" % (problem, sorted(checked.get(problem, []))))
# A run with an expectation must have left a result (a crash leaves none).
for name in expected:
    if name not in everything:
        failures.append("%s: no result (see %s.err)" % (name, name))
for path in glob.glob(os.path.join(out, "check-reference-*.json")):
    name = os.path.basename(path)[:-5]
    if name not in everything:
        failures.append("%s: no result" % name)

header = ("run", "candidate", "status", "median ms", "p10-p90 ms", "GB/s", "floor frac", "eager ms",
          "compile ms")
widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
for row in [header] + rows:
    print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))

if bundle_path:
    for path in glob.glob(os.path.join(out, "*.err")):
        text = open(path).read()
        if text.strip():
            everything.setdefault("stderr", {})[os.path.basename(path)] = text[-4000:]
    everything["torch"] = torch_times
    json.dump(everything, open(bundle_path, "w"), indent=1)

# Issue 4's check: on the memory-bound examples, the best hand-written
# schedule is within 15% of the predicted floor (floor / time >= 1 / 1.15).
print("\nfloor check (best correct candidate per memory-bound problem):")
best = {}
for name, data in everything.items():
    for r in data if isinstance(data, list) else [data]:
        if not isinstance(r, dict) or r.get("status") != "correct":
            continue
        a = r.get("analysis", {})
        if a.get("floor_bound") != "memory" or "fraction_of_floor" not in r:
            continue
        p = r.get("problem")
        if p not in best or r["fraction_of_floor"] > best[p][0]:
            best[p] = (r["fraction_of_floor"], r["time"]["median_ms"], a.get("floor_ms"),
                       os.path.basename(r.get("candidate", "")))
for p, (frac, ms, floor, cand) in sorted(best.items()):
    print("  %-16s floor %.3f ms, best %.3f ms (%s): %.2f of floor, %s" % (
        p, floor, ms, cand, frac, "within 15%" if frac >= 1 / 1.15 else "NOT within 15%"))

if failures:
    print("\nUNEXPECTED:")
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("\nall GPU checks gave the expected results")
