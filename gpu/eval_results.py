"""Reads what `kf-evolve eval` printed: one JSON value per candidate, or
one object whose "candidates" holds them, or one list of them. The GPU
scripts (gemm-worklog.sh, gemm-tile-sweep.sh) import it from the bundle's
gpu/ directory."""

import json


def read_candidates(path):
    text = open(path).read()
    decoder, results, i = json.JSONDecoder(), [], 0
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        value, i = decoder.raw_decode(text, i)
        results.append(value)
    if len(results) == 1 and isinstance(results[0], dict) and "candidates" in results[0]:
        return results[0]["candidates"]
    if len(results) == 1 and isinstance(results[0], list):
        return results[0]
    return results
