"""Level 1 reductions over a dimension (KernelBench 47-49, 51-53) and
cumulative scans (89-93), and the builders the normalization and loss
modules share: reductions with broadcast operands (reduce_over, reduce_all),
broadcast elementwise ops (apply_over), reshapes and comment wrapping."""

import textwrap

from .mlir import (Func, amap, dims, identity_map, int_range, normal, problem_file,
                   tensor_type, uniform)
from .registry import Problem, register


# Builders ------------------------------------------------------------------

def wrap(*parts):
    """Comment lines: the parts (strings or lists of them) joined and
    wrapped to 86 columns."""
    words = []
    for part in parts:
        words += part if isinstance(part, list) else [part]
    return textwrap.wrap(" ".join(words), 86)


def _map(n, loop_of, x_dims):
    """affine_map over n loops to the loops `loop_of` gives for x_dims; None
    stands for the single element of a tensor<1xT> (a broadcast scalar)."""
    if x_dims is None:
        return amap(n, ["0"])
    return amap(n, [loop_of[d] for d in x_dims])


def reduce_over(f, x, reduced, init, step, extras=(), elem=None):
    """out[x's other dims, in order] = fold of step(block, acc, x[idx], *extra
    values) over the `reduced` dims of x, starting from `init`.

    extras: (tensor, x dims) pairs: each tensor is indexed by those dims of
    x (None: a tensor<1xT> scalar), broadcast over the others. The reduced
    loops go innermost, so the default schedule gives each thread one output
    element and runs the reduction sequentially in it."""
    shape = f.shape(x)
    n = len(shape)
    kept = [d for d in range(n) if d not in reduced]
    order = kept + sorted(reduced)
    loop_of = {d: dims(n)[order.index(d)] for d in range(n)}
    acc = f.fill(init, [shape[d] for d in kept], elem or f.elem(x))
    maps = ([_map(n, loop_of, range(n))]
            + [_map(n, loop_of, ds) for _, ds in extras]
            + [_map(n, loop_of, kept)])
    iterators = ["parallel"] * len(kept) + ["reduction"] * len(reduced)
    return f.generic([x] + [t for t, _ in extras], [acc], maps, iterators,
                     lambda b, v, *rest: step(b, rest[-1], v, *rest[:-1]))


def reduce_all(f, x, init, step, elem=None):
    """tensor<1xT> = fold of step(block, acc, x[idx]) over all of x. The
    default schedule refuses an op without a parallel loop, so the result
    has a unit parallel dim; one thread runs the whole fold, so x should be
    small (per-row partial results, not the full input)."""
    n = len(f.shape(x))
    names = dims(n + 1)
    acc = f.fill(init, [1], elem or f.elem(x))
    return f.generic([x], [acc], [amap(n + 1, names[1:]), amap(n + 1, names[:1])],
                     ["parallel"] + ["reduction"] * n,
                     lambda b, v, a: step(b, a, v))


def apply_over(f, x, extras, body, elem=None):
    """out[idx] = body(block, x[idx], *extra values) over x's shape; extras as
    in reduce_over."""
    shape = f.shape(x)
    n = len(shape)
    loop_of = dict(enumerate(dims(n)))
    out = f.empty(shape, elem or f.elem(x))
    maps = ([identity_map(n)] + [_map(n, loop_of, ds) for _, ds in extras]
            + [identity_map(n)])
    return f.generic([x] + [t for t, _ in extras], [out], maps, ["parallel"] * n,
                     lambda b, v, *rest: body(b, v, *rest[:-1]))


def reshape(f, x, groups, shape):
    """tensor.expand_shape (groups of the source dims) to `shape`, or
    tensor.collapse_shape when `shape` has fewer dims (groups of the
    result's dims)."""
    to = tensor_type(shape, f.elem(x))
    reassociation = "[%s]" % ", ".join(
        "[%s]" % ", ".join(str(d) for d in g) for g in groups)
    if len(shape) > len(f.shape(x)):
        line = "{r} = tensor.expand_shape %s %s output_shape [%s] : %s into %s" % (
            x, reassociation, ", ".join(str(d) for d in shape), f.types[x], to)
    else:
        line = "{r} = tensor.collapse_shape %s %s : %s into %s" % (
            x, reassociation, f.types[x], to)
    return f.raw(line, to)


def add(b, acc, v):
    return b.bin("arith.addf", v, acc)


def add_f64(b, acc, v):
    """acc (f64) + v (f32 or f64)."""
    if b.type_of(v) != "f64":
        v = b.cast("arith.extf", v, "f64")
    return b.bin("arith.addf", v, acc)


# Reductions over dim 1 of a 128x4096x4095 tensor (47-49, 51-53) ------------

REDUCE_FULL = {"B": 128, "K": 4096, "N": 4095}
REDUCE_SMALL = {"B": 4, "K": 300, "N": 257}


def _reduction(name, title, build, torch_fn, numpy_fn, dist, atol, rtol, why):
    """Registers a reduction over dim 1 of x [B, K, N]; build(f, x, s)
    returns the output value."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", [("x", [s["B"], s["K"], s["N"]])])
        f.ret(build(f, f.arg("x"), s))
        comment = wrap("KernelBench level 1, problem %s: %s, over dim 1 of x of shape"
                       " %dx%dx%d fp32." % (name.split("_")[0], title, s["B"], s["K"], s["N"]),
                       why)
        return problem_file(symbol, f, [dist], atol, rtol, comment)

    register(Problem(name=name, level=1, full=REDUCE_FULL, small=REDUCE_SMALL,
                     mlir=mlir, torch=torch_fn, numpy=numpy_fn))


def _sum_keepdim(f, x, s):
    total = reduce_over(f, x, [1], 0.0, add)
    return reshape(f, total, [[0], [1, 2]], [s["B"], 1, s["N"]])


def _mean(f, x, s):
    total = reduce_over(f, x, [1], 0.0, add)
    return f.elementwise([total], lambda b, v: b.bin("arith.divf", v, b.const(float(s["K"]))))


def _extremum(op, init):
    return lambda f, x, s: reduce_over(f, x, [1], init, lambda b, acc, v: b.bin(op, v, acc))


def _arg_extremum(predicate, init):
    """Index (i64) of the first extremum along dim 1: a two-output reduction
    carrying (value, index); a strict comparison keeps the first occurrence,
    as torch.argmax/argmin do."""
    def build(f, x, s):
        shape = [s["B"], s["N"]]
        value = f.fill(init, shape)
        index = f.fill(0, shape, "i64")
        maps = [amap(3, ["i", "k", "j"]), amap(3, ["i", "j"]), amap(3, ["i", "j"])]

        def body(b, v, best, best_index):
            k = b.cast("arith.index_cast", b.index(2), "i64")
            better = b.cmpf(predicate, v, best)
            return [b.select(better, v, best), b.select(better, k, best_index)]

        _, indices = f.generic([x], [value, index], maps,
                               ["parallel", "parallel", "reduction"], body)
        return indices
    return build


_SUM_WHY = ["Inputs are symmetric around 0, so sums are about 37 and can be near 0;",
            "the absolute tolerance covers fp32 sums of 4096 terms in another order."]
_NORMAL_WHY = ["Inputs are N(0, 1) so that the extremum varies from column to column",
               "(the maximum of 4096 U(-1, 1) values is nearly always about 1); the",
               "result is one of the inputs, so it must match exactly."]

_reduction(
    "47_Sum_reduction_over_a_dimension", "torch.sum(x, dim=1, keepdim=True)",
    _sum_keepdim,
    lambda torch, x, s: torch.sum(x, dim=1, keepdim=True),
    lambda np, x, s: x.astype(np.float64).sum(axis=1, keepdims=True),
    uniform(-1.0, 1.0), 1e-3, 1e-4, _SUM_WHY)

_reduction(
    "48_Mean_reduction_over_a_dimension", "torch.mean(x, dim=1)", _mean,
    lambda torch, x, s: torch.mean(x, dim=1),
    lambda np, x, s: x.astype(np.float64).mean(axis=1),
    uniform(-1.0, 1.0), 1e-6, 1e-4,
    ["Inputs are symmetric around 0, so means are about 0.01 (std 0.577/64):",
     "the absolute tolerance is far below that, above the fp32 error of the sum."])

_reduction(
    "49_Max_reduction_over_a_dimension", "torch.max(x, dim=1)[0]",
    _extremum("arith.maximumf", float("-inf")),
    lambda torch, x, s: torch.max(x, dim=1)[0],
    lambda np, x, s: x.max(axis=1),
    normal(0.0, 1.0), 0.0, 0.0, _NORMAL_WHY)

_reduction(
    "51_Argmax_over_a_dimension", "torch.argmax(x, dim=1) (int64)",
    _arg_extremum("ogt", float("-inf")),
    lambda torch, x, s: torch.argmax(x, dim=1),
    lambda np, x, s: np.argmax(x, axis=1).astype(np.int64),
    normal(0.0, 1.0), 0.0, 0.0,
    ["Inputs are N(0, 1); ties are vanishingly rare, and the first index wins",
     "as in torch. Indices must match exactly."])

_reduction(
    "52_Argmin_over_a_dimension", "torch.argmin(x, dim=1) (int64)",
    _arg_extremum("olt", float("inf")),
    lambda torch, x, s: torch.argmin(x, dim=1),
    lambda np, x, s: np.argmin(x, axis=1).astype(np.int64),
    normal(0.0, 1.0), 0.0, 0.0,
    ["Inputs are N(0, 1); ties are vanishingly rare, and the first index wins",
     "as in torch. Indices must match exactly."])

_reduction(
    "53_Min_reduction_over_a_dimension", "torch.min(x, dim=1)[0]",
    _extremum("arith.minimumf", float("inf")),
    lambda torch, x, s: torch.min(x, dim=1)[0],
    lambda np, x, s: x.min(axis=1),
    normal(0.0, 1.0), 0.0, 0.0, _NORMAL_WHY)


# Cumulative scans along dim 1 of a 32768x32768 tensor (89-93) ---------------

SCAN_FULL = {"R": 32768, "L": 32768}
SCAN_SMALL = {"R": 12, "L": 1536}


def scan_block(length):
    """The block size of the blocked scan: the divisor of `length` that
    minimizes the work per row, length * B (within blocks) + (length / B)^2
    (across blocks)."""
    divisors = [d for d in range(2, length) if length % d == 0] or [length]
    return min(divisors, key=lambda d: length * d + (length // d) ** 2)


def blocked_scan(f, x, op, identity, exclusive=False, reverse=False):
    """Cumulative `op` along the last dim of x [R, L]: out[r, j] combines
    x[r, k] over k <= j (k < j when exclusive; k >= j, k > j when reverse).

    The scan is blocked, so that the reference does O(L * B + (L / B)^2)
    work per row rather than the O(L^2) of one masked reduction (which
    would take minutes at 32768x32768): with the row split into blocks of
    B, out = (scan within the block) op (combined totals of the blocks
    before it). Every step is a masked reduction: a linalg.generic over
    the block whose body compares linalg.index values."""
    R, L = f.shape(x)
    B = scan_block(L)
    blocks = reshape(f, x, [[0], [1, 2]], [R, L // B, B])
    within_pred = {(False, False): "ule", (True, False): "ult",
                   (False, True): "uge", (True, True): "ugt"}[(exclusive, reverse)]
    before_pred = "ugt" if reverse else "ult"

    def masked(loops, predicate):
        # acc op (element if index(loops[1]) `predicate` index(loops[0]) else identity)
        def step(b, acc, v):
            keep = b.cmpi(predicate, b.index(loops[1]), b.index(loops[0]))
            return b.bin(op, b.select(keep, v, b.const(identity)), acc)
        return step

    # within[r, b, t] = op over u of blocks[r, b, u], u `within_pred` t
    within_init = f.fill(identity, [R, L // B, B])
    within = f.generic(
        [blocks], [within_init],
        [amap(4, ["i", "j", "l"]), amap(4, ["i", "j", "k"])],
        ["parallel"] * 3 + ["reduction"],
        lambda b, v, acc: masked((2, 3), within_pred)(b, acc, v))
    totals = reduce_over(f, blocks, [2], identity, lambda b, acc, v: b.bin(op, v, acc))
    # carried[r, b] = op over blocks c `before_pred` b of totals[r, c]
    carried_init = f.fill(identity, [R, L // B])
    carried = f.generic(
        [totals], [carried_init],
        [amap(3, ["i", "k"]), amap(3, ["i", "j"])],
        ["parallel", "parallel", "reduction"],
        lambda b, v, acc: masked((1, 2), before_pred)(b, acc, v))
    out = apply_over(f, within, [(carried, (0, 1))],
                     lambda b, w, c: b.bin(op, w, c))
    return reshape(f, out, [[0], [1, 2]], [R, L])


def _scan(name, title, build, torch_fn, numpy_fn, dists, atol, rtol, why,
          mask=False):
    """Registers a scan along dim 1 of x [R, L] (and of a boolean mask)."""
    symbol = "l1_" + name

    def mlir(s):
        args = [("x", [s["R"], s["L"]])] + ([("mask", [s["R"], s["L"]])] if mask else [])
        f = Func(symbol + "_ref", args, arg_elems={"mask": "i1"})
        f.ret(build(f, s))
        comment = wrap("KernelBench level 1, problem %s: %s along dim 1 of x of shape"
                       " %dx%d fp32, computed as a blocked scan (blocks of %d): the same"
                       " sum or product, in another order."
                       % (name.split("_")[0], title, s["R"], s["L"], scan_block(s["L"])),
                       why)
        return problem_file(symbol, f, dists, atol, rtol, comment)

    register(Problem(name=name, level=1, full=SCAN_FULL, small=SCAN_SMALL,
                     mlir=mlir, torch=torch_fn, numpy=numpy_fn))


_CUMSUM_WHY = ["Inputs are symmetric around 0: partial sums are a random walk of",
               "magnitude up to about 100 that crosses 0; the absolute tolerance covers",
               "a one-thread-per-row fp32 scan (error about 1e-3 at worst at full size)."]


def _cumsum(**kind):
    return lambda f, s: blocked_scan(f, f.arg("x"), "arith.addf", 0.0, **kind)


_scan("89_cumsum", "torch.cumsum(x, dim=1)", _cumsum(),
      lambda torch, x, s: torch.cumsum(x, dim=1),
      lambda np, x, s: np.cumsum(x.astype(np.float64), axis=1),
      [uniform(-1.0, 1.0)], 1e-2, 1e-4, _CUMSUM_WHY)

_scan("90_cumprod", "torch.cumprod(x, dim=1)",
      lambda f, s: blocked_scan(f, f.arg("x"), "arith.mulf", 1.0),
      lambda torch, x, s: torch.cumprod(x, dim=1),
      lambda np, x, s: np.cumprod(x.astype(np.float64), axis=1),
      [normal(0.97, 0.2)], 1e-22, 1e-4,
      ["KernelBench's torch.rand inputs (E[log x] = -1) underflow the product to 0",
       "after about 100 elements. No distribution keeps 32768 products in fp32 range",
       "through kf's heavy-tailed trial (1 element in 64 multiplied by 8 adds 0.0325 to",
       "E[log |x|]): the declared or the heavy trial leaves it. Overflow would fail",
       "correct kernels (finite against inf), so products decay: x ~ N(0.97, 0.2),",
       "E[log |x|] = -0.053, and products fall below atol 1e-22 after about 950",
       "elements (rtol 1e-4 judges those). Underflow has a trap too: the smallest fp32",
       "denormal times a factor above 0.5 rounds back to itself, so a sequential fp32",
       "cumprod sticks there and the heavy trial's factors of 8 lift it back up, while",
       "kf's reference (f64 accumulators) goes on to 0. With U(0.92, 1) a sequential",
       "fp32 scan failed that trial; N(0.97, 0.2) has 1% of its factors below 0.5,",
       "which zero a stuck product, and in simulation (8192 rows of 32768, heavy",
       "tails) no fp32 scan erred above 1e-32."])

_scan("91_cumsum_reverse", "torch.cumsum(x.flip(1), dim=1).flip(1)",
      _cumsum(reverse=True),
      lambda torch, x, s: torch.cumsum(x.flip(1), dim=1).flip(1),
      lambda np, x, s: np.cumsum(x.astype(np.float64)[:, ::-1], axis=1)[:, ::-1],
      [uniform(-1.0, 1.0)], 1e-2, 1e-4, _CUMSUM_WHY)

_scan("92_cumsum_exclusive",
      "exclusive cumsum (cat of zeros and the cumsum of x[:, :-1])",
      _cumsum(exclusive=True),
      lambda torch, x, s: torch.cat(
          (torch.zeros_like(x.select(1, 0).unsqueeze(1)),
           torch.cumsum(x.narrow(dim=1, start=0, length=x.size(1) - 1), dim=1)), dim=1),
      lambda np, x, s: np.concatenate(
          [np.zeros((x.shape[0], 1)), np.cumsum(x.astype(np.float64)[:, :-1], axis=1)],
          axis=1),
      [uniform(-1.0, 1.0)], 1e-2, 1e-4, _CUMSUM_WHY)


def _masked_cumsum(f, s):
    masked = f.elementwise(
        [f.arg("x"), f.arg("mask")],
        lambda b, v, m: b.select(m, v, b.const(0.0)), elem="f32")
    return blocked_scan(f, masked, "arith.addf", 0.0)


_scan("93_masked_cumsum", "torch.cumsum(x * mask, dim=1) with a boolean mask",
      _masked_cumsum,
      lambda torch, x, mask, s: torch.cumsum(x * mask, dim=1),
      lambda np, x, mask, s: np.cumsum(x.astype(np.float64) * mask.astype(np.float64), axis=1),
      [uniform(-1.0, 1.0), int_range(0, 2)], 1e-2, 1e-4,
      _CUMSUM_WHY + ["The mask is an i1 input, true with probability 1/2 as in KernelBench."],
      mask=True)
