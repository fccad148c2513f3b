#!/usr/bin/env python3
"""Which structure gene breaks (or speeds up) a problem? Evaluates, in one
`kf-evolve eval` run on the GPU host, the problem's default schedule and
the default with each of its structure genes flipped in turn, every op
re-derived for the new structure (a genome without "ops" gives only the
structure genes, docs/search.md). Prints one row per variant: status, the
worst output's mismatches and largest errors, and the median time; rows
go to OUT_DIR/gene-sweep.jsonl. For "every candidate incorrect" (L2-45 on
the H100, 2026-12-07): the gene whose flip makes it correct is where to
look. Run from an unpacked bundle:

  python3 kf-bundle/gpu/gene-sweep.py OUT_DIR PROBLEM.mlir [--trials 2]
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from eval_results import read_candidates  # noqa: E402

# The boolean structure genes of a genome (include/kf/Schedule/Schedule.h),
# and the K-outer copies' settings.
BOOLEAN_GENES = ["fuse", "collapse", "decompose", "im2col", "interchange",
                 "collapse_mn", "epilogue", "transpose_product", "commute_sums",
                 "fold_scans", "fuse_reductions", "split_softmax",
                 "pad_contractions", "gather_selections"]
COPIES = ["none", "b", "ab"]


def variants(default):
    structure = {k: v for k, v in default.items() if k != "ops"}
    yield "default", dict(default)
    for gene in BOOLEAN_GENES:
        flipped = dict(structure)
        flipped[gene] = not structure.get(gene, False)
        yield f"{gene}={'on' if flipped[gene] else 'off'}", flipped
    current = structure.get("transpose", "none")
    for copies in COPIES:
        if copies != current:
            changed = dict(structure)
            changed["transpose"] = copies
            yield f"transpose={copies}", changed
    if any(structure.get("splits", [])):
        unsplit = dict(structure)
        unsplit["splits"] = []
        yield "splits=none", unsplit


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("problem")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--kf-evolve", default=os.path.join(HERE, "..", "bin", "kf-evolve"))
    args = parser.parse_args()
    kf = args.kf_evolve
    name = os.path.splitext(os.path.basename(args.problem))[0]
    work = os.path.join(args.out_dir, name + "-genes")
    os.makedirs(work, exist_ok=True)

    genome = subprocess.run([kf, "compile", args.problem, "--emit=genome"],
                            check=True, capture_output=True, text=True).stdout
    default = json.loads(genome)
    # Variants whose structure does not compile are reported, not evaluated;
    # a flip that changes no kernel (a gene the problem has no op for: the
    # same PTX) is named beside the variant it equals.
    names, paths, scripts = [], [], {}
    for label, variant in variants(default):
        path = os.path.join(work, label.replace("=", "-") + ".json")
        with open(path, "w") as f:
            json.dump(variant, f, indent=1)
        check = subprocess.run([kf, "compile", args.problem, "--schedule", path,
                                "--emit=ptx"], capture_output=True, text=True)
        if check.returncode != 0:
            first = (check.stderr.strip().splitlines() or ["?"])[0]
            print(f"  {label:26} does not compile: {first[:90]}")
            continue
        if check.stdout in scripts:
            print(f"  {label:26} same kernels as {scripts[check.stdout]}")
            continue
        scripts[check.stdout] = label
        names.append(label)
        paths.append(path)

    command = [kf, "eval", args.problem, "--trials", str(args.trials), "--runs", "5",
               "--min-runs", "3", "--time-budget-ms", "300"]
    for path in paths:
        command += ["--schedule", path]
    eval_path = os.path.join(work, "eval.json")
    with open(eval_path, "w") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.DEVNULL)
    results = read_candidates(eval_path)
    print(f"== {name}: {len(names)} variants")
    with open(os.path.join(args.out_dir, "gene-sweep.jsonl"), "a") as sink:
        for label, result in zip(names, results):
            errors = result.get("errors") or [{}]
            worst = max(errors, key=lambda e: (e.get("mismatches", 0), e.get("max_abs_error", 0)))
            median = (result.get("time") or {}).get("median_ms")
            row = {"problem": name, "variant": label, "status": result.get("status"),
                   "mismatches": worst.get("mismatches"),
                   "max_abs_error": worst.get("max_abs_error"),
                   "max_rel_error": worst.get("max_rel_error"),
                   "median_ms": median}
            sink.write(json.dumps(row) + "\n")
            print(f"  {label:26} {str(row['status']):10} mismatches {row['mismatches']} "
                  f"abs {row['max_abs_error']} rel {row['max_rel_error']} "
                  f"{'' if median is None else f'{median:.3f} ms'}")


if __name__ == "__main__":
    main()
