"""PyTorch eager timings of the example problems on this GPU (fp32, TF32
off), with an L2 flush between runs: the comparison kf's numbers need.
Prints JSON: {name: {"median_ms": ..., "p10_ms": ..., "p90_ms": ...}}."""
import json
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device=dev)


def time_fn(fn, runs=20):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    q = lambda f: times[int(f * (len(times) - 1))]
    return {"median_ms": q(0.5), "p10_ms": q(0.1), "p90_ms": q(0.9)}


def u(*shape, lo=-1.0, hi=1.0):
    return torch.empty(*shape, device=dev).uniform_(lo, hi)


results = {}
x = u(4096, 393216)
results["relu"] = time_fn(lambda: torch.relu(x))
results["softmax"] = time_fn(lambda: torch.softmax(x, dim=1))
y = torch.empty_like(x)
results["copy_4096x393216"] = time_fn(lambda: y.copy_(x))
del x, y
x = u(128, 4096, 4095)
results["sum_reduction"] = time_fn(lambda: torch.sum(x, dim=1, keepdim=True))
del x
x = torch.randn(16, 64, 256, 256, device=dev)
ln = torch.nn.LayerNorm((64, 256, 256)).to(dev)
with torch.no_grad():
    results["layernorm"] = time_fn(lambda: ln(x))
del x
a, b = u(4096, 4096), u(4096, 4096)
results["matmul"] = time_fn(lambda: a @ b)
xg, w, bias = u(1024, 8192), u(8192, 8192, lo=-0.011, hi=0.011), torch.randn(8192, device=dev)
results["gemm_bias_relu"] = time_fn(lambda: torch.relu(xg @ w.t() + bias))
results["device"] = torch.cuda.get_device_name()
print(json.dumps(results, indent=1))
