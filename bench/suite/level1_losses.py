"""Level 1 losses (KernelBench 94-96, 98-100) and scaled dot-product
attention (97).

A loss is one number (tensor<1xf32>): the mean of a billion terms, nearly
the same on every input draw. So that a kernel writing a constant fails,
the tolerance is a tight relative one (rtol 1e-5), and so that a correct
fp32 kernel passes it, the reference sums in f64 (per row, then over the
rows) and rounds the mean to f32 once (torch's own fp32 losses are within
1e-7 of it). Distributions are chosen so that the loss varies from draw to
draw as much as they allow (see each problem); kf's heavy-tailed trial
moves every loss far more than the tolerance."""

from .level1_reductions import add, add_f64, apply_over, reduce_all, reduce_over, wrap
from .mlir import Func, amap, int_range, normal, problem_file, uniform
from .registry import Problem, register

LOSS_RTOL = 1e-5


def mean_f64(f, per_row, divisor):
    """tensor<1xf32>: (sum of per_row [R], f64) / divisor, rounded to f32."""
    total = reduce_all(f, per_row, 0.0, add_f64, elem="f64")
    return f.elementwise([total], lambda b, v: b.cast(
        "arith.truncf", b.bin("arith.divf", v, b.const(float(divisor), "f64")), "f32"),
        elem="f32")


def row_sums_f64(f, x, term, extras=()):
    """[R] f64: sum over dim 1 of x [R, C] of term(block, x, *extras) (f32),
    each term widened to f64."""
    return reduce_over(f, x, [1], 0.0,
                       lambda b, acc, v, *e: add_f64(b, acc, term(b, v, *e)),
                       extras, elem="f64")


def _register(name, title, full, small, args, build, dists, why, torch_fn, numpy_fn,
              atol=0.0, rtol=LOSS_RTOL, arg_elems=None, loss=True):
    """Registers a problem; args: (name, size keys) per reference argument;
    build(f, s) returns the output value; dists: the inputs' distributions
    (or sizes -> them). A loss is one number: torch gives a 0-d tensor,
    reshaped to the problem's [1]."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", [(a, [s[k] for k in keys]) for a, keys in args],
                 arg_elems=arg_elems)
        f.ret(build(f, s))
        shapes = ", ".join("%s %s" % (a, "x".join(str(s[k]) for k in keys))
                           for a, keys in args)
        comment = wrap("KernelBench level 1, problem %s: %s; %s." % (
            name.split("_")[0], title, shapes), why)
        drawn = dists(s) if callable(dists) else dists
        return problem_file(symbol, f, drawn, atol, rtol, comment)

    def torch_out(torch, *inputs):
        out = torch_fn(torch, *inputs)
        return out.reshape(1) if loss else out

    def numpy_out(np, *inputs):
        out = numpy_fn(np, *inputs)
        return np.asarray(out, dtype=np.float64).reshape(1) if loss else out

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_out, numpy=numpy_out))


SQUARE_FULL = {"R": 32768, "C": 32768}
SQUARE_SMALL = {"R": 64, "C": 1000}
PAIR = [("predictions", ("R", "C")), ("targets", ("R", "C"))]


def _elementwise_mean(term):
    """mean over [R, C] of term(block, p, t)."""
    def build(f, s):
        per_row = row_sums_f64(f, f.arg("predictions"), term, [(f.arg("targets"), (0, 1))])
        return mean_f64(f, per_row, s["R"] * s["C"])
    return build


def _squared_error(b, p, t):
    d = b.bin("arith.subf", p, t)
    return b.bin("arith.mulf", d, d)


def _smooth_l1(b, p, t):
    """0.5 d^2 where |d| < 1, else |d| - 0.5 (smooth_l1_loss with beta 1)."""
    d = b.un("math.absf", b.bin("arith.subf", p, t))
    half = b.const(0.5)
    quadratic = b.bin("arith.mulf", b.bin("arith.mulf", half, d), d)
    linear = b.bin("arith.subf", d, half)
    return b.select(b.cmpf("olt", d, b.const(1.0)), quadratic, linear)


_register(
    "94_MSELoss", "torch.mean((predictions - targets) ** 2)",
    SQUARE_FULL, SQUARE_SMALL, PAIR, _elementwise_mean(_squared_error),
    [normal(0.0, 1.0), uniform(-1.0, 1.0)],
    ["KernelBench scales the predictions by a random factor per draw, which kf's",
     "distributions cannot express. N(0, 1) - U(-1, 1) is nearly normal, so the squared",
     "error has the largest spread a normal difference gives (cv 1.4): the loss varies",
     "by about 4e-5 (relative, one std) between full-size draws, against rtol 1e-5, so a",
     "constant taken from one draw fails another about 87% of the time (and fails kf's",
     "heavy-tailed trial); torch's fp32 mean is within 1e-7 and a naive fp32 sum of 1e9",
     "terms within about 3e-6. The reference sums in f64."],
    lambda torch, p, t, s: torch.mean((p - t) ** 2),
    lambda np, p, t, s: np.mean((p.astype(np.float64) - t) ** 2))

_register(
    "96_HuberLoss", "torch.nn.functional.smooth_l1_loss(predictions, targets) (beta 1)",
    SQUARE_FULL, SQUARE_SMALL, PAIR, _elementwise_mean(_smooth_l1),
    [normal(0.0, 1.5), uniform(-1.0, 1.0)],
    ["Differences of N(0, 1.5) and U(-1, 1) fall on both sides of beta = 1, so both",
     "branches matter. The loss varies by about 4e-5 (relative, one std, measured)",
     "between full-size draws, against rtol 1e-5, so a constant taken from one draw",
     "passes another about 14% of the time (it fails kf's heavy-tailed trial, which",
     "moves the loss far more); a correct fp32 mean is within 1e-7 (torch's is). The",
     "reference sums in f64."],
    lambda torch, p, t, s: torch.nn.functional.smooth_l1_loss(p, t),
    lambda np, p, t, s: np.mean(np.where(
        np.abs(p.astype(np.float64) - t) < 1.0, 0.5 * (p.astype(np.float64) - t) ** 2,
        np.abs(p.astype(np.float64) - t) - 0.5)))


def _kl_div(f, s):
    """sum of t * (log t - log p) over [R, C], divided by R (batchmean)."""
    def term(b, p, t):
        return b.bin("arith.mulf", t, b.bin("arith.subf", b.un("math.log", t),
                                             b.un("math.log", p)))
    per_row = row_sums_f64(f, f.arg("predictions"), term, [(f.arg("targets"), (0, 1))])
    return mean_f64(f, per_row, s["R"])


_register(
    "98_KLDivLoss",
    "torch.nn.functional.kl_div(torch.log(predictions), targets, reduction='batchmean')",
    {"R": 16384, "C": 16384}, SQUARE_SMALL, PAIR, _kl_div,
    [uniform(3.0e-5, 9.0e-5), uniform(3.0e-5, 9.0e-5)],
    ["KernelBench's inputs are rows of a softmax, values about 1/16384 = 6.1e-5;",
     "kf draws them from U(3e-5, 9e-5), positive and of that size, but not normalized",
     "(the formula does not need it). Each term t (log t - log p) is mostly noise around",
     "a small mean, so the sum varies by about 4e-4 (relative) between full-size draws,",
     "against rtol 1e-5. The reference sums in f64."],
    lambda torch, p, t, s: torch.nn.functional.kl_div(torch.log(p), t, reduction="batchmean"),
    lambda np, p, t, s: np.sum(t.astype(np.float64) * (np.log(t.astype(np.float64))
                                                       - np.log(p.astype(np.float64))))
    / p.shape[0])


def _hinge(f, s):
    """mean over [R, C] of max(1 - predictions * targets, 0), targets [C]
    broadcast along the rows (as in KernelBench, where targets has the
    shape of a row)."""
    def term(b, p, t):
        return b.bin("arith.maximumf", b.bin("arith.subf", b.const(1.0),
                                             b.bin("arith.mulf", p, t)), b.const(0.0))
    per_row = row_sums_f64(f, f.arg("predictions"), term, [(f.arg("targets"), (1,))])
    return mean_f64(f, per_row, s["R"] * s["C"])


_register(
    "100_HingeLoss", "torch.mean(torch.clamp(1 - predictions * targets, min=0))",
    SQUARE_FULL, SQUARE_SMALL, [("predictions", ("R", "C")), ("targets", ("C",))], _hinge,
    [normal(0.0, 2.0), uniform(-1.0, 1.0)],
    ["targets (shape [C]) broadcasts along the rows. KernelBench's targets are -1 or",
     "+1 and its predictions torch.rand, so the clamp never acts; kf cannot draw +-1",
     "floats, so targets are U(-1, 1) (the formula is the same) and predictions",
     "N(0, 2) so that 1 - p t is often negative and the clamp matters. The loss",
     "depends on the 32768 shared targets and varies by about 1e-3 (relative) between",
     "full-size draws, against rtol 1e-5. The reference sums in f64."],
    lambda torch, p, t, s: torch.mean(torch.clamp(1 - p * t, min=0)),
    lambda np, p, t, s: np.mean(np.maximum(1.0 - p.astype(np.float64) * t, 0.0)))


def _cross_entropy(f, s):
    """mean over rows of logsumexp(x) - x[target]: the row max, then the sum
    of shifted exponentials and the target's logit in one two-output
    reduction (the target is picked by comparing the class index, no
    gather), then the mean in f64."""
    x, targets = f.arg("predictions"), f.arg("targets")
    row_max = reduce_over(f, x, [1], float("-inf"),
                          lambda b, acc, v: b.bin("arith.maximumf", v, acc))
    rows = f.shape(x)[0]
    sums, picked = f.fill(0.0, [rows]), f.fill(0.0, [rows])

    def body(b, v, m, target, total, logit):
        e = b.un("math.exp", b.bin("arith.subf", v, m))
        is_target = b.cmpi("eq", b.cast("arith.index_cast", b.index(1), "i64"), target)
        return [b.bin("arith.addf", e, total), b.select(is_target, v, logit)]

    maps = [amap(2, ["i", "j"]), amap(2, ["i"]), amap(2, ["i"]), amap(2, ["i"]), amap(2, ["i"])]
    sums, picked = f.generic([x, row_max, targets], [sums, picked], maps,
                             ["parallel", "reduction"], body)
    per_row = f.generic(
        [row_max, sums, picked], [f.empty([rows])], [amap(1, ["i"])] * 4, ["parallel"],
        lambda b, m, total, logit, out: b.bin(
            "arith.subf", b.bin("arith.addf", m, b.un("math.log", total)), logit))
    return mean_f64(f, per_row, rows)


def _np_cross_entropy(np, x, targets):
    x = x.astype(np.float64)
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    return np.mean(lse - x[np.arange(x.shape[0]), targets])


_register(
    "95_CrossEntropyLoss", "torch.nn.functional.cross_entropy(predictions, targets)",
    {"R": 32768, "C": 4096}, {"R": 64, "C": 100},
    [("predictions", ("R", "C")), ("targets", ("R",))], _cross_entropy,
    lambda s: [normal(0.0, 2.0), int_range(0, s["C"])],
    ["targets are int64 class indices in [0, C). Logits are N(0, 2) (KernelBench's",
     "torch.rand gives nearly uniform probabilities): the per-row loss varies by about 2",
     "around 10, so the mean varies by about 1e-3 (relative) between full-size draws,",
     "against rtol 1e-5. The row sums are fp32 as in softmax; the mean over the rows is",
     "summed in f64."],
    lambda torch, x, t, s: torch.nn.functional.cross_entropy(x, t),
    lambda np, x, t, s: _np_cross_entropy(np, x, t),
    arg_elems={"targets": "i64"})


MARGIN = 1.0
PAIRWISE_EPS = 1e-6


def _triplet(f, s):
    """mean over rows of max(d(a, p) - d(a, n) + margin, 0), with
    d(x, y) = ||x - y + eps||_2 over dim 1 (torch.pairwise_distance adds
    eps to the difference). Sums of squares in f64."""
    anchor = f.arg("anchor")

    def squared_distance(other):
        def term(b, a, o):
            d = b.bin("arith.addf", b.bin("arith.subf", a, o), b.const(PAIRWISE_EPS))
            return b.bin("arith.mulf", d, d)
        return row_sums_f64(f, anchor, term, [(f.arg(other), (0, 1))])

    positive, negative = squared_distance("positive"), squared_distance("negative")
    per_row = f.generic(
        [positive, negative], [f.empty([s["R"]], "f64")], [amap(1, ["i"])] * 3, ["parallel"],
        lambda b, dp, dn, out: b.bin("arith.maximumf", b.bin("arith.addf", b.bin(
            "arith.subf", b.un("math.sqrt", dp), b.un("math.sqrt", dn)),
            b.const(MARGIN, "f64")), b.const(0.0, "f64")))
    return mean_f64(f, per_row, s["R"])


def _np_triplet(np, a, p, n):
    a = a.astype(np.float64)
    dp = np.sqrt(np.sum((a - p + PAIRWISE_EPS) ** 2, axis=1))
    dn = np.sqrt(np.sum((a - n + PAIRWISE_EPS) ** 2, axis=1))
    return np.mean(np.maximum(dp - dn + MARGIN, 0.0))


_register(
    "99_TripletMarginLoss", "nn.TripletMarginLoss(margin=1.0) (p 2, eps 1e-6, mean)",
    {"R": 32768, "D": 8192}, {"R": 64, "D": 500},
    [("anchor", ("R", "D")), ("positive", ("R", "D")), ("negative", ("R", "D"))],
    _triplet, [normal(0.0, 1.0)] * 3,
    ["With anchor, positive and negative N(0, 1), both distances are about 128 and",
     "their difference about N(0, 1.4), so the hinge is active in most rows but not all",
     "and the loss varies by about 5e-3 (relative) between full-size draws, against",
     "rtol 1e-5. Sums of squares and the mean are in f64."],
    lambda torch, a, p, n, s: torch.nn.functional.triplet_margin_loss(
        a, p, n, margin=MARGIN, p=2, eps=PAIRWISE_EPS),
    lambda np, a, p, n, s: _np_triplet(np, a, p, n))


# 97: softmax(Q K^T / sqrt(E)) V --------------------------------------------------

def _attention(f, s):
    """scores = Q K^T (batched over B, H), softmax over the keys of the
    scaled scores in the stages of softmax (max, exponentials, sum,
    division), then the probabilities times V."""
    q, k, v = f.arg("Q"), f.arg("K"), f.arg("V")
    B, H, S, E = s["B"], s["H"], s["S"], s["E"]
    scale = 1.0 / E ** 0.5

    def mac(b, x, y, acc):
        return b.bin("arith.addf", b.bin("arith.mulf", x, y), acc)

    # scores[b, h, i, j] = sum over e of Q[b, h, i, e] * K[b, h, j, e]
    scores = f.generic([q, k], [f.fill(0.0, [B, H, S, S])],
                       [amap(5, ["i", "j", "k", "m"]), amap(5, ["i", "j", "l", "m"]),
                        amap(5, ["i", "j", "k", "l"])],
                       ["parallel"] * 4 + ["reduction"], mac)
    row_max = reduce_over(f, scores, [3], float("-inf"),
                          lambda b, acc, x: b.bin("arith.maximumf", x, acc))
    exp = apply_over(f, scores, [(row_max, (0, 1, 2))], lambda b, x, m: b.un(
        "math.exp", b.bin("arith.mulf", b.bin("arith.subf", x, m), b.const(scale))))
    total = reduce_over(f, exp, [3], 0.0, add)
    probs = apply_over(f, exp, [(total, (0, 1, 2))],
                       lambda b, e, t: b.bin("arith.divf", e, t))
    # out[b, h, i, e] = sum over j of probs[b, h, i, j] * V[b, h, j, e]
    return f.generic([probs, v], [f.fill(0.0, [B, H, S, E])],
                     [amap(5, ["i", "j", "k", "m"]), amap(5, ["i", "j", "m", "l"]),
                      amap(5, ["i", "j", "k", "l"])],
                     ["parallel"] * 4 + ["reduction"], mac)


def _np_attention(np, q, k, v):
    scores = np.einsum("bhie,bhje->bhij", q.astype(np.float64), k) / np.sqrt(q.shape[-1])
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return np.einsum("bhij,bhje->bhie", p / p.sum(axis=-1, keepdims=True), v)


_QKV = ("B", "H", "S", "E")
_register(
    "97_ScaledDotProductAttention",
    "torch.nn.functional.scaled_dot_product_attention(Q, K, V) (no mask, no dropout,"
    " scale 1/sqrt(E))",
    {"B": 32, "H": 32, "S": 512, "E": 1024}, {"B": 2, "H": 3, "S": 40, "E": 24},
    [("Q", _QKV), ("K", _QKV), ("V", _QKV)], _attention,
    [normal(0.0, 1.0)] * 3,
    ["Q, K and V are N(0, 1), so scaled scores are about N(0, 1) and the softmax is",
     "neither flat nor one-hot (KernelBench's torch.rand makes it nearly flat and every",
     "output about 0.5); outputs are about 0.07. rtol 1e-4 covers fp32 dot products of",
     "1024 and 512 terms in another order on the declared inputs; atol is 1e-3 because",
     "kf's heavy-tailed trial (1 element in 64 of Q, K and V multiplied by 8) makes",
     "some scores 64 times larger and the softmax sharp: there the default schedule's",
     "fp32 outputs near 0 differed from kf's f64-accumulated reference by up to 2.3e-4."],
    lambda torch, q, k, v, s: torch.nn.functional.scaled_dot_product_attention(q, k, v),
    lambda np, q, k, v, s: _np_attention(np, q, k, v),
    atol=1e-3, rtol=1e-4, loss=False)
