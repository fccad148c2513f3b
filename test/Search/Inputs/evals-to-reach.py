"""How many evaluations a warm run needed to reach a cold run's final
speedup (both result.json files of kf-evolve runs on the same problem).

Prints one line and exits 1 when the warm run needed more than half the
cold run's evaluations (the experience library's criterion), or never got
there.
"""
import json
import sys

cold = json.load(open(sys.argv[1]))
warm = json.load(open(sys.argv[2]))
target = cold["speedup_over_default"]
default = warm["default_seconds"]
best = None
reached = None
for candidate in warm["candidates"]:
    if candidate["status"] == "correct" and candidate["seconds"] > 0:
        best = min(best or candidate["seconds"], candidate["seconds"])
        if default / best >= target * 0.999:
            reached = candidate["id"] + 1
            break
print(
    "cold: %.2fx in %d evaluations; warm reached it after %s of %d"
    % (target, cold["evaluations"], reached, warm["evaluations"])
)
sys.exit(0 if reached is not None and reached <= cold["evaluations"] / 2 else 1)
