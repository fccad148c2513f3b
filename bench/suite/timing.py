"""Timing of PyTorch callables on the GPU, as kf's comparisons need it: one
untimed warm-up, the L2 cache flushed before every timed run, CUDA events
around each run, medians with the 10th and 90th percentiles in
milliseconds. The one timing function of bench/torch-baseline and
gpu/torch_baselines.py."""

import time


def time_fn(torch, fn, flush, min_runs=5, max_runs=30, budget_s=3.0):
    """Times `fn`: at least `min_runs` runs, then more up to `max_runs`
    while `budget_s` seconds have not passed. `flush` is a device tensor
    larger than the L2 cache, zeroed before each run."""
    fn()
    torch.cuda.synchronize()
    times = []
    deadline = time.monotonic() + budget_s
    while len(times) < min_runs or (len(times) < max_runs and
                                    time.monotonic() < deadline):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()

    def q(f):
        return times[int(f * (len(times) - 1))]
    return {"median_ms": q(0.5), "p10_ms": q(0.1), "p90_ms": q(0.9),
            "runs": len(times)}
