"""PyTorch eager and torch.compile timings of the example problems on this
GPU (fp32, TF32 off), with an L2 flush between runs: the comparison kf's
numbers need. Prints JSON: {name: {"median_ms": ..., "p10_ms": ...,
"p90_ms": ...}}, the torch.compile timings under name + "_compiled" (or
{"error": ...} when compiling failed)."""
import json
import os
import sys

import torch

# The timing function is bench/suite's (bench/ sits beside gpu/ in the
# repository and in the bundle).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench"))
from suite import timing  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device=dev)


def time_fn(fn, runs=20):
    return timing.time_fn(torch, fn, flush, min_runs=runs, max_runs=runs)


def u(*shape, lo=-1.0, hi=1.0):
    return torch.empty(*shape, device=dev).uniform_(lo, hi)


results = {}


def both(name, fn):
    """Times fn eagerly and compiled (torch.compile, default mode)."""
    results[name] = time_fn(fn)
    try:
        compiled = torch.compile(fn)
        results[name + "_compiled"] = time_fn(compiled)
    except Exception as e:  # record, never abort the baselines
        results[name + "_compiled"] = {"error": str(e)[:300]}
    torch._dynamo.reset()


x = u(4096, 393216)
both("relu", lambda: torch.relu(x))
both("softmax", lambda: torch.softmax(x, dim=1))
y = torch.empty_like(x)
results["copy_4096x393216"] = time_fn(lambda: y.copy_(x))
del x, y
x = u(128, 4096, 4095)
both("sum_reduction", lambda: torch.sum(x, dim=1, keepdim=True))
del x
x = torch.randn(16, 64, 256, 256, device=dev)
ln = torch.nn.LayerNorm((64, 256, 256)).to(dev)
with torch.no_grad():
    both("layernorm", lambda: ln(x))
del x
a, b = u(4096, 4096), u(4096, 4096)
both("matmul", lambda: a @ b)
xg, w, bias = u(1024, 8192), u(8192, 8192, lo=-0.011, hi=0.011), torch.randn(8192, device=dev)
both("gemm_bias_relu", lambda: torch.relu(xg @ w.t() + bias))
results["device"] = torch.cuda.get_device_name()
print(json.dumps(results, indent=1))
