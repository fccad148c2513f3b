"""Level 1 normalizations (KernelBench 33-40). 23_Softmax and 24_LogSoftmax
are registered with the activations (level1_activations.py).

Statistics are written as reductions whose loops the default schedule runs
sequentially in one thread per output element; where a statistic covers
millions of elements over few outputs (BatchNorm: 64 channels of 16.7M;
LayerNorm: 16 samples of 1M), it is split in two stages (over H, W per
(N, C), then over the rest) so that the reference keeps thousands of
threads busy."""

from .level1_reductions import add, apply_over, reduce_all, reduce_over, reshape, wrap
from .mlir import Func, normal, problem_file
from .registry import Problem, register

EPS = 1e-5


def moments(f, x, kept, split=()):
    """(mean, rstd) of x over the dims not in `kept`, indexed by the kept
    dims: the biased variance (as PyTorch normalizes with), computed in two
    passes (mean, then squared deviations) like examples/problems/layernorm.
    `split`: dims reduced in a second stage (kept in the first)."""
    shape = f.shape(x)
    count = 1
    for d in range(len(shape)):
        if d not in kept:
            count *= shape[d]

    def total(step, extras=()):
        first = [d for d in range(len(shape)) if d not in kept and d not in split]
        partial = reduce_over(f, x, first, 0.0, step, extras)
        if not split:
            return partial
        stage1 = sorted(kept + list(split))
        return reduce_over(f, partial, [stage1.index(d) for d in split], 0.0, add)

    mean = f.elementwise([total(add)],
                         lambda b, v: b.bin("arith.divf", v, b.const(float(count))))

    def squared_deviation(b, acc, v, m):
        d = b.bin("arith.subf", v, m)
        return b.bin("arith.addf", b.bin("arith.mulf", d, d), acc)

    squares = total(squared_deviation, [(mean, kept)])
    # 1 / sqrt rather than math.rsqrt: kf's CPU reference cannot call rsqrtf.
    rstd = f.elementwise([squares], lambda b, v: b.bin("arith.divf", b.const(1.0), b.un(
        "math.sqrt", b.bin("arith.addf", b.bin("arith.divf", v, b.const(float(count))),
                           b.const(EPS)))))
    return mean, rstd


def normalize(f, x, kept, split=(), affine=None):
    """(x - mean) * rstd over the dims not in `kept`, then * weight + bias
    when affine = (weight, bias, the x dims they are indexed by)."""
    mean, rstd = moments(f, x, kept, split)
    extras = [(mean, kept), (rstd, kept)]
    if affine:
        weight, bias, wdims = affine
        extras += [(weight, wdims), (bias, wdims)]

    def body(b, v, m, r, *wb):
        y = b.bin("arith.mulf", b.bin("arith.subf", v, m), r)
        return b.bin("arith.addf", b.bin("arith.mulf", y, wb[0]), wb[1]) if wb else y

    return apply_over(f, x, extras, body)


def _np_normalize(np, x, axes, weight=None, bias=None):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + EPS)
    return y if weight is None else y * weight + bias


def _register(name, title, full, small, args, build, dists, atol, rtol, why,
              torch_fn, numpy_fn):
    """Registers a normalization problem. args: (name, size keys) for the
    reference's arguments; build(f, s) returns the output value."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", [(a, [s[k] for k in keys]) for a, keys in args])
        f.ret(build(f, s))
        shape = "x".join(str(s[k]) for k in args[0][1])
        comment = wrap("KernelBench level 1, problem %s: %s on x of shape %s fp32."
                       % (name.split("_")[0], title, shape), why)
        return problem_file(symbol, f, dists, atol, rtol, comment)

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_fn, numpy=numpy_fn))


X4 = ("x", ("N", "C", "H", "W"))
AFFINE = ("weight", ("C",)), ("bias", ("C",))
# x is neither centred nor of unit scale, so that the output of a
# normalization without affine parameters differs from a copy of x.
X_DIST = normal(0.5, 2.0)
AFFINE_DISTS = [normal(1.0, 0.1), normal(0.0, 0.1)]
AFFINE_WHY = ("The affine weight and bias are inputs drawn around PyTorch's initial 1 and 0,"
              " so a kernel cannot assume their initial values.")
STATS_WHY = ("x ~ N(0.5, 2) is neither centred nor of unit scale: a copy of x fails; "
             "atol and rtol 1e-4 as in examples/problems/layernorm.mlir cover fp32 "
             "statistics summed in another order.")

_register(
    "33_BatchNorm", "nn.BatchNorm2d(64) in training mode (batch statistics, biased "
    "variance, eps 1e-5)",
    {"N": 64, "C": 64, "H": 512, "W": 512}, {"N": 3, "C": 5, "H": 17, "W": 13},
    [X4, *AFFINE],
    lambda f, s: normalize(f, f.arg("x"), [1], split=[0],
                           affine=(f.arg("weight"), f.arg("bias"), (1,))),
    [X_DIST] + AFFINE_DISTS, 1e-4, 1e-4,
    ["The statistics are per channel over N, H, W (16.7M elements at full size), summed",
     "over H, W per (n, c) and then over N.", STATS_WHY, AFFINE_WHY],
    lambda torch, x, weight, bias, s: torch.nn.functional.batch_norm(
        x, None, None, weight, bias, training=True, momentum=0.1, eps=EPS),
    lambda np, x, weight, bias, s: _np_normalize(
        np, x, (0, 2, 3), weight.reshape(1, -1, 1, 1), bias.reshape(1, -1, 1, 1)))

_register(
    "34_InstanceNorm", "nn.InstanceNorm2d(64) (no affine parameters, eps 1e-5)",
    {"N": 112, "C": 64, "H": 512, "W": 512}, {"N": 3, "C": 5, "H": 17, "W": 13},
    [X4],
    lambda f, s: normalize(f, f.arg("x"), [0, 1]),
    [X_DIST], 1e-4, 1e-4,
    ["The statistics are per (n, c) over H, W.", STATS_WHY],
    lambda torch, x, s: torch.nn.functional.instance_norm(x, eps=EPS),
    lambda np, x, s: _np_normalize(np, x, (2, 3)))

GROUPS = {"full": 8, "small": 4}


def _group_norm(f, s, groups):
    """x [N, C, H, W] seen as [N, G, C/G, H, W]: statistics per (n, g),
    summed over H, W per channel, then over the group's channels."""
    n, c, h, w = s["N"], s["C"], s["H"], s["W"]
    x5 = reshape(f, f.arg("x"), [[0], [1, 2], [3], [4]], [n, groups, c // groups, h, w])
    weight = reshape(f, f.arg("weight"), [[0, 1]], [groups, c // groups])
    bias = reshape(f, f.arg("bias"), [[0, 1]], [groups, c // groups])
    y = normalize(f, x5, [0, 1], split=[2], affine=(weight, bias, (1, 2)))
    return reshape(f, y, [[0], [1, 2], [3], [4]], [n, c, h, w])


def _np_group_norm(np, x, weight, bias, groups):
    n, c, h, w = x.shape
    y = _np_normalize(np, x.reshape(n, groups, c // groups, h, w), (2, 3, 4))
    return y.reshape(n, c, h, w) * weight.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)


_register(
    "35_GroupNorm_", "nn.GroupNorm(8 groups, 64 channels, eps 1e-5)",
    {"N": 112, "C": 64, "G": 8, "H": 512, "W": 512},
    {"N": 3, "C": 12, "G": 4, "H": 11, "W": 9},
    [X4, *AFFINE],
    lambda f, s: _group_norm(f, s, s["G"]),
    [X_DIST] + AFFINE_DISTS, 1e-4, 1e-4,
    ["x is viewed as [N, G, C/G, H, W]; the statistics per (n, g) are summed over H, W",
     "per channel, then over the group's channels.", STATS_WHY, AFFINE_WHY],
    lambda torch, x, weight, bias, s: torch.nn.functional.group_norm(
        x, s["G"], weight, bias, eps=EPS),
    lambda np, x, weight, bias, s: _np_group_norm(np, x, weight, bias, s["G"]))


def _rms_norm(f, s):
    x = f.arg("x")
    squares = reduce_over(f, x, [1], 0.0,
                          lambda b, acc, v: b.bin("arith.addf", b.bin("arith.mulf", v, v), acc))
    rms = f.elementwise([squares], lambda b, v: b.un("math.sqrt", b.bin(
        "arith.addf", b.bin("arith.divf", v, b.const(float(s["C"]))), b.const(EPS))))
    return apply_over(f, x, [(rms, (0, 2, 3))], lambda b, v, r: b.bin("arith.divf", v, r))


_register(
    "36_RMSNorm_", "x / sqrt(mean(x ** 2, dim=1, keepdim=True) + 1e-5)",
    {"N": 112, "C": 64, "H": 512, "W": 512}, {"N": 3, "C": 16, "H": 9, "W": 10},
    [X4],
    _rms_norm,
    [X_DIST], 1e-6, 1e-5,
    ["x ~ N(0.5, 2): the RMS is about 2, so a copy of x fails. Each RMS sums only",
     "64 squares; atol 1e-6 and rtol 1e-5 cover fp32 rounding in another order."],
    lambda torch, x, s: x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + EPS),
    lambda np, x, s: x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=1, keepdims=True) + EPS))


def _square_add(b, acc, v):
    return b.bin("arith.addf", b.bin("arith.mulf", v, v), acc)


def _frobenius(f, s):
    """x / sqrt(sum of x^2): squares summed over H, W per (n, c), then the
    7168 partial sums in one thread (the default schedule needs a parallel
    loop: reduce_all's result has a unit one)."""
    x = f.arg("x")
    partial = reduce_over(f, x, [2, 3], 0.0, _square_add)
    total = reduce_all(f, partial, 0.0, add)
    norm = f.elementwise([total], lambda b, v: b.un("math.sqrt", v))
    return apply_over(f, x, [(norm, None)], lambda b, v, n: b.bin("arith.divf", v, n))


_register(
    "37_FrobeniusNorm_", "x / torch.norm(x, p='fro')",
    {"N": 112, "C": 64, "H": 512, "W": 512}, {"N": 3, "C": 5, "H": 17, "W": 13},
    [X4],
    _frobenius,
    [X_DIST], 1e-12, 1e-4,
    ["The norm covers all 1.9e9 elements (summed over H, W per (n, c), then over the",
     "partial sums), so outputs are about 1e-5: the tolerance is relative; rtol 1e-4",
     "covers the fp32 sum of squares in another order."],
    lambda torch, x, s: x / torch.norm(x, p="fro"),
    lambda np, x, s: x / np.sqrt(np.sum(x.astype(np.float64) ** 2)))

ROWS_FULL = {"B": 32768, "D": 65535}
ROWS_SMALL = {"B": 16, "D": 999}
X2 = ("x", ("B", "D"))


def _row_scaled(denominator):
    """x / denominator(row reduction) along dim 1 of x [B, D]."""
    def build(f, s):
        x = f.arg("x")
        row = denominator(f, x, s)
        return apply_over(f, x, [(row, (0,))], lambda b, v, r: b.bin("arith.divf", v, r))
    return build


def _mean_abs(f, x, s):
    total = reduce_over(f, x, [1], 0.0,
                        lambda b, acc, v: b.bin("arith.addf", b.un("math.absf", v), acc))
    return f.elementwise([total], lambda b, v: b.bin("arith.divf", v, b.const(float(s["D"]))))


def _l2(f, x, s):
    return f.elementwise([reduce_over(f, x, [1], 0.0, _square_add)],
                         lambda b, v: b.un("math.sqrt", v))


_register(
    "38_L1Norm_", "x / torch.mean(torch.abs(x), dim=1, keepdim=True)",
    ROWS_FULL, ROWS_SMALL, [X2],
    _row_scaled(_mean_abs),
    [X_DIST], 1e-5, 1e-4,
    ["x ~ N(0.5, 2): the mean |x| is about 1.7, so a copy of x fails; outputs are",
     "about 1, and rtol 1e-4 covers a fp32 row sum of 65535 terms in another order."],
    lambda torch, x, s: x / torch.mean(torch.abs(x), dim=1, keepdim=True),
    lambda np, x, s: x / np.mean(np.abs(x.astype(np.float64)), axis=1, keepdims=True))

_register(
    "39_L2Norm_", "x / torch.norm(x, p=2, dim=1, keepdim=True)",
    ROWS_FULL, ROWS_SMALL, [X2],
    _row_scaled(_l2),
    [X_DIST], 1e-8, 1e-4,
    ["Rows of 65535 elements of N(0.5, 2) have norms of about 530, so outputs are",
     "about 4e-3: atol stays far below; rtol 1e-4 covers the fp32 row sum of squares."],
    lambda torch, x, s: x / torch.norm(x, p=2, dim=1, keepdim=True),
    lambda np, x, s: x / np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=1, keepdims=True)))

_register(
    "40_LayerNorm", "nn.LayerNorm((64, 256, 256)) (eps 1e-5, biased variance)",
    {"N": 16, "C": 64, "H": 256, "W": 256}, {"N": 3, "C": 4, "H": 12, "W": 10},
    [X4, ("weight", ("C", "H", "W")), ("bias", ("C", "H", "W"))],
    lambda f, s: normalize(f, f.arg("x"), [0], split=[1],
                           affine=(f.arg("weight"), f.arg("bias"), (1, 2, 3))),
    [normal(0.0, 1.0)] + AFFINE_DISTS, 1e-4, 1e-4,
    ["As examples/problems/layernorm.mlir, but the statistics per sample over C, H, W",
     "(1M elements) are summed over H, W per (n, c), then over C: with one stage, 16",
     "threads each summed 1M elements, and on the GPU (kf bundle of 2026-11-30 09:17)",
     "the default schedule disagreed with the reference on most elements, for the",
     "example too. x ~ N(0, 1): the random weight and bias make a copy of x fail.",
     AFFINE_WHY],
    lambda torch, x, weight, bias, s: torch.nn.functional.layer_norm(
        x, x.shape[1:], weight, bias, eps=EPS),
    lambda np, x, weight, bias, s: _np_normalize(np, x, (1, 2, 3), weight, bias))
