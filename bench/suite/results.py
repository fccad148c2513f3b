"""The benchmark table: rows from bench/run's results.jsonl files, merged,
with KernelBench's summaries.

fast_p (KernelBench): the share of problems whose kf kernel is correct and
more than p times faster than the baseline; fast_0 is the share solved
correctly. Problems that failed, timed out or were not measured count as
not fast. Geometric means are over the problems with both times."""

import json
import math


def load(paths):
    """Rows keyed by (level, name); a later file's row replaces an earlier
    one (a re-run of a problem supersedes the older measurement)."""
    rows = {}
    for path in paths:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    # A run cut off mid-write leaves a partial last line.
                    continue
                rows[(row["level"], row["name"])] = row
    return [rows[k] for k in sorted(rows, key=lambda k: (k[0], int(k[1].split("_")[0])))]


def _ms(value):
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else "%.3f" % value


def _ratio(a, b):
    if a is None or b is None or not b:
        return None
    return a / b


def _fmt_ratio(value):
    return "-" if value is None else "%.2f" % value


def speedups(row):
    """(x eager, x compile) for a correct kf kernel, else (None, None)."""
    kf = row.get("kf_ms") if row.get("status") == "correct" else None
    if kf is None:
        return None, None
    eager = (row.get("eager") or {}).get("median_ms")
    compiled = (row.get("compiled") or {}).get("median_ms")
    return _ratio(eager, kf), _ratio(compiled, kf)


def summary(rows):
    lines = []
    for level in sorted({r["level"] for r in rows}):
        subset = [r for r in rows if r["level"] == level]
        n = len(subset)
        correct = sum(r.get("status") == "correct" for r in subset)
        parts = ["Level %d: %d problems, %d correct (fast_0 = %.2f)" % (level, n, correct, correct / n)]
        for index, baseline in ((0, "eager"), (1, "torch.compile")):
            ratios = [speedups(r)[index] for r in subset]
            fast = ["fast_%s = %.2f" % (label, sum(1 for x in ratios if x is not None and x > p) / n)
                    for label, p in (("1", 1.0), ("1.5", 1.5))]
            measured = [x for x in ratios if x is not None]
            geo = math.exp(sum(math.log(x) for x in measured) / len(measured)) if measured else None
            parts.append("against %s: %s; geometric-mean speedup %s over %d problems"
                         % (baseline, ", ".join(fast), _fmt_ratio(geo), len(measured)))
        lines.append("- " + "; ".join(parts[:1]) + "\n  - " + "\n  - ".join(parts[1:]))
    return "\n".join(lines)


def table(rows):
    out = ["| level | problem | status | evals | default ms | kf ms | floor ms | of floor | eager ms (p10-p90) | compile ms (p10-p90) | x eager | x compile |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        eager = r.get("eager") or {}
        compiled = r.get("compiled") or {}
        xe, xc = speedups(r)
        floor = r.get("floor_ms")
        # Predictions (no GPU) are shown, never counted as measured.
        kf = r.get("kf_ms") if r.get("status") in ("correct", "predicted") else None

        def spread(t):
            if "median_ms" not in t:
                return "error" if "error" in t else "-"
            return "%s (%s-%s)" % (_ms(t["median_ms"]), _ms(t["p10_ms"]), _ms(t["p90_ms"]))
        status = r.get("status", "?")
        if r.get("message") and status != "correct":
            status += ": " + r["message"][:80].replace("|", "/")
        out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["level"], r["name"], status, r.get("evaluations", "-"), _ms(r.get("default_ms")),
            _ms(kf), _ms(floor), _fmt_ratio(_ratio(floor, kf)), spread(eager), spread(compiled),
            _fmt_ratio(xe), _fmt_ratio(xc)))
    return "\n".join(out)
