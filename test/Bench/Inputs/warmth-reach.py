"""Checks bench/library-warmth's criterion on made-up runs (argv[1]: the
script): it compares best times, so a cold run whose default schedule is
incorrect (speedup 0) is not "reached" by any correct candidate."""
import importlib.machinery
import importlib.util
import sys

loader = importlib.machinery.SourceFileLoader("warmth", sys.argv[1])
spec = importlib.util.spec_from_loader("warmth", loader)
warmth = importlib.util.module_from_spec(spec)
loader.exec_module(warmth)


def run(times, default_status="incorrect"):
    candidates = [{"id": i, "status": "correct" if t else "incorrect",
                   "seconds": t or 0} for i, t in enumerate(times)]
    best = min(t for t in times if t)
    return {"candidates": candidates, "best": {"seconds": best},
            "default_status": default_status, "speedup_over_default": 0}


cold = run([None, 5.0, 4.0, 3.0])
print("slower warm:", warmth.evals_to_reach(cold, run([None, 4.5, 3.5])))
print("warm at 3:", warmth.evals_to_reach(cold, run([None, 5.0, 3.0, 2.0])))
print("faster seed:", warmth.evals_to_reach(cold, run([None, 2.5])))
