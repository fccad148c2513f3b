"""Reads what the harness needs back out of a problem file: the reference's
argument types and the declared input distributions."""

import re

ARGUMENT = re.compile(r"%\w+: tensor<([0-9x]*)x?(\w+)>")
SIGNATURE = re.compile(r"func\.func @\w+\(([^)]*)\)")
INPUTS = re.compile(r"inputs\(\[(.*?)\]\)", re.S)
DISTRIBUTION = re.compile(r"#kf\.(uniform|normal|int_range)<([^,>]+),\s*([^>]+)>")


def arguments(text):
    """[(shape, element type)] of the reference function's arguments."""
    signature = SIGNATURE.search(text).group(1)
    result = []
    for dims, elem in ARGUMENT.findall(signature):
        shape = [int(d) for d in dims.split("x") if d]
        result.append((shape, elem))
    return result


def distributions(text):
    """[(kind, a, b)] per input, in order; kf's defaults when undeclared."""
    match = INPUTS.search(text)
    if not match:
        return None
    return [(kind, float(a), float(b))
            for kind, a, b in DISTRIBUTION.findall(match.group(1))]
