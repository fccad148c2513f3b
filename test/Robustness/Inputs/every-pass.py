#!/usr/bin/env python3
"""Runs every kf pass and pipeline of kf-opt on every corpus file.

Usage: every-pass.py KF_OPT CORPUS.mlir...

kf-opt's promise (docs/lowering.md): on any IR that verifies, every kf pass
ends in success or in errors that each carry a location. This fails on any
exit by a signal (or a code of 128 or more), any "LLVM ERROR" or stack
dump, any error without a location, and any run longer than a minute. The
passes are read from `kf-opt --help`, so a new pass is covered without
touching this script. Each run takes a whole corpus file with
--split-input-file (one process per pass and file keeps the suite quick);
when a run fails, its splits are run one by one to name the culprit.
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

kf_opt = sys.argv[1]
corpus = sys.argv[2:]

help_text = subprocess.run([kf_opt, "--help"], capture_output=True,
                           text=True).stdout
passes = sorted(set(re.findall(r"^\s+--(kf-[a-z0-9-]+)\b", help_text,
                               re.MULTILINE)))
if len(passes) < 10:
    sys.exit("every-pass.py: found only %d kf passes in kf-opt --help" %
             len(passes))

# Each pass with its defaults, plus the options users vary.
variants = [[p] for p in passes] + [
    ["kf-lower-to-ptx=serialize=false"],
    ["kf-lower-to-ptx=chip=sm_61"],
    ["kf-lower-to-ptx=chip=sm_50"],
    ["kf-lower-to-ptx=chip=sm_999"],
    ["kf-lower-to-ptx=ptx-version=60"],
    ["kf-lower-to-ptx=chip=sm_80 ptx-version=70 contract=false"],
    ["kf-detect-cheats=num-inputs=1"],
    ["kf-lower-to-ptx=serialize=false", "kf-detect-cheats=num-inputs=1"],
    ["kf-lower-to-ptx=serialize=false", "kf-diagnose"],
]

located = re.compile(r"^[^\s:<][^:]*:\d+:\d+: (error|warning|note|remark):")
unlocated = re.compile(r"(^|\s)error:")


def problems(returncode, output):
    found = []
    if returncode < 0 or returncode >= 128:
        found.append("exit %d (a crash)" % returncode)
    for marker in ("LLVM ERROR", "Stack dump", "PLEASE submit a bug report",
                   "Assertion", "AddressSanitizer", "runtime error:"):
        if marker in output:
            found.append("'%s' in the output" % marker)
    for line in output.splitlines():
        if unlocated.search(line) and not located.match(line):
            found.append("an error without a location: " + line.strip())
            break
    return found


def run(arguments, path):
    command = [kf_opt, path, "--split-input-file", "-o", os.devnull]
    command += ["--" + a for a in arguments]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        return command, ["no result within 60 s"], ""
    output = done.stdout + done.stderr
    return command, problems(done.returncode, output), output


def culprits(arguments, path):
    """The splits of `path` on which `arguments` fail, run one by one."""
    text = open(path).read()
    chunks = re.split(r"^// -----\s*$", text, flags=re.MULTILINE)
    line = 1
    named = []
    for chunk in chunks:
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as file:
            file.write("\n" * (line - 1) + chunk)
        _, found, output = run(arguments, file.name)
        os.unlink(file.name)
        if found:
            named.append("  split at line %d: %s\n%s" %
                         (line, "; ".join(found), output[-3000:]))
        line += chunk.count("\n") + 1
    return named


jobs = [(v, path) for path in corpus for v in variants]
failures = []
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = pool.map(lambda job: (job, run(*job)), jobs)
    for (arguments, path), (command, found, output) in results:
        if found:
            failures.append((arguments, path, command, found, output))

for arguments, path, command, found, output in failures:
    print("FAIL: " + " ".join(command))
    print("  " + "; ".join(found))
    for named in culprits(arguments, path) or [output[-3000:]]:
        print(named)
print("%d runs (%d pass variants x %d files), %d failed" %
      (len(jobs), len(variants), len(corpus), len(failures)))
sys.exit(1 if failures else 0)
