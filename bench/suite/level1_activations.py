"""Level 1 activations (KernelBench 19-32, 88): elementwise on a
4096x393216 fp32 tensor (88: 8192x8192), and the row-wise softmax and
log-softmax (23, 24).

KernelBench draws its inputs from torch.rand, U(0, 1); kf's are wider and
symmetric around 0 (U(-5, 5) unless stated) so that both branches of every
piecewise function are exercised, and a copy of the input fails where the
activation is the identity on positives. Tolerances: rtol 1e-5 and atol 1e-6
for transcendental functions (any correct fp32 exp/erf/tanh passes; a fast
approximation such as tanh.approx does not), exact comparison where the
result is a single correctly rounded operation.
"""

import math
import textwrap

from .mlir import Func, problem_file, uniform
from .registry import Problem, register

FULL = {"B": 4096, "D": 393216}
SMALL = {"B": 16, "D": 1000}


def _activation(name, title, body, torch_fn, numpy_fn, lo=-5.0, hi=5.0,
                atol=1e-6, rtol=1e-5, why="", full=FULL, small=SMALL):
    """Registers an elementwise activation problem y = f(x)."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", [("x", [s["B"], s["D"]])])
        y = f.elementwise([f.arg("x")], body)
        f.ret(y)
        comment = ["KernelBench level 1, problem %s: %s on a %dx%d fp32 tensor."
                   % (name.split("_")[0], title, s["B"], s["D"])]
        comment += textwrap.wrap(why, 76)
        return problem_file(symbol, f, [uniform(lo, hi)], atol, rtol, comment)

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_fn, numpy=numpy_fn))


# Scalar building blocks in a linalg.generic body -----------------------------

def _mul(b, x, c):
    return b.bin("arith.mulf", x, b.const(c))


def _sigmoid(b, x):
    """1 / (1 + exp(-x))."""
    e = b.un("math.exp", b.un("arith.negf", x))
    return b.bin("arith.divf", b.const(1.0), b.bin("arith.addf", b.const(1.0), e))


def _positive_else(b, x, negative):
    """x > 0 ? x : negative (LeakyReLU, ELU: PyTorch's x > 0 test)."""
    return b.select(b.cmpf("ogt", x, b.const(0.0)), x, negative)


def _clamp(b, x, lo, hi):
    return b.bin("arith.minimumf", b.bin("arith.maximumf", x, b.const(lo)), b.const(hi))


def _f64(np, x):
    return np.asarray(x, dtype=np.float64)


def _np_sigmoid(np, x):
    return 1.0 / (1.0 + np.exp(-x))


# ReLU-like: exact -------------------------------------------------------------

_activation(
    "19_ReLU", "ReLU, max(x, 0)",
    lambda b, x: b.bin("arith.maximumf", x, b.const(0.0)),
    lambda torch, x, s: torch.relu(x),
    lambda np, x, s: np.maximum(x, 0.0),
    atol=0.0, rtol=0.0,
    why="Inputs are symmetric around 0: on non-negative inputs a copy would pass.")

LEAKY_SLOPE = 0.01  # the module's default negative_slope

_activation(
    "20_LeakyReLU", "LeakyReLU, x > 0 ? x : 0.01 x (negative_slope = 0.01)",
    lambda b, x: _positive_else(b, x, _mul(b, x, LEAKY_SLOPE)),
    lambda torch, x, s: torch.nn.functional.leaky_relu(x, negative_slope=LEAKY_SLOPE),
    lambda np, x, s: np.where(x > 0, x, _f64(np, x) * LEAKY_SLOPE),
    atol=0.0, rtol=1e-6,
    why="One multiply on negatives: rtol 1e-6 only leaves room for rounding 0.01.")

_activation(
    "32_HardTanh", "HardTanh, clamp(x, -1, 1)",
    lambda b, x: _clamp(b, x, -1.0, 1.0),
    lambda torch, x, s: torch.nn.functional.hardtanh(x, min_val=-1.0, max_val=1.0),
    lambda np, x, s: np.clip(x, -1.0, 1.0),
    lo=-2.0, hi=2.0, atol=0.0, rtol=0.0,
    why="U(-2, 2): half the inputs are clamped, half pass through; exact.")


# Sigmoid family -----------------------------------------------------------------

_activation(
    "21_Sigmoid", "Sigmoid, 1 / (1 + exp(-x))",
    _sigmoid,
    lambda torch, x, s: torch.sigmoid(x),
    lambda np, x, s: _np_sigmoid(np, _f64(np, x)))

_activation(
    "22_Tanh", "Tanh",
    lambda b, x: b.un("math.tanh", x),
    lambda torch, x, s: torch.tanh(x),
    lambda np, x, s: np.tanh(_f64(np, x)),
    lo=-3.0, hi=3.0,
    why="U(-3, 3): tanh saturates to 1 within fp32 precision beyond |x| of about 9.")

_activation(
    "25_Swish", "Swish, x * sigmoid(x)",
    lambda b, x: b.bin("arith.mulf", x, _sigmoid(b, x)),
    lambda torch, x, s: x * torch.sigmoid(x),
    lambda np, x, s: _f64(np, x) * _np_sigmoid(np, _f64(np, x)))

_activation(
    "28_HardSigmoid", "HardSigmoid, min(max(x + 3, 0), 6) / 6",
    lambda b, x: _mul(b, _clamp(b, b.bin("arith.addf", x, b.const(3.0)), 0.0, 6.0),
                      1.0 / 6.0),
    lambda torch, x, s: torch.nn.functional.hardsigmoid(x),
    lambda np, x, s: np.clip(_f64(np, x) + 3.0, 0.0, 6.0) / 6.0,
    why="U(-5, 5) covers both saturated ends (|x| > 3) and the linear middle. "
        "Multiplying by 1/6 (as PyTorch's kernel does) differs from dividing by one ulp.")

_activation(
    "30_Softsign", "Softsign, x / (1 + |x|)",
    lambda b, x: b.bin("arith.divf", x,
                       b.bin("arith.addf", b.const(1.0), b.un("math.absf", x))),
    lambda torch, x, s: x / (1 + torch.abs(x)),
    lambda np, x, s: _f64(np, x) / (1.0 + np.abs(_f64(np, x))))


# GELU ---------------------------------------------------------------------------

_activation(
    "26_GELU_", "GELU (exact), 0.5 x (1 + erf(x / sqrt(2)))",
    lambda b, x: b.bin("arith.mulf", _mul(b, x, 0.5), b.bin(
        "arith.addf", b.const(1.0), b.un("math.erf", _mul(b, x, math.sqrt(0.5))))),
    lambda torch, x, s: torch.nn.functional.gelu(x),
    lambda np, x, s: 0.5 * _f64(np, x) * (1.0 + np.vectorize(math.erf)(
        _f64(np, x) * math.sqrt(0.5))),
    atol=5e-6,
    why="F.gelu's default approximate='none' is the erf form (88 is the tanh form). "
        "Near x = -5, 1 + erf(x / sqrt(2)) cancels to about 6e-7: an erf a few ulp "
        "off (PyTorch's CPU one) moves the output by about 1e-6, hence atol 5e-6.")

GELU_TANH_SCALE = math.sqrt(2.0 / math.pi)

_activation(
    "88_MinGPTNewGelu",
    "minGPT's GELU, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))",
    lambda b, x: b.bin("arith.mulf", _mul(b, x, 0.5), b.bin(
        "arith.addf", b.const(1.0), b.un("math.tanh", _mul(b, b.bin(
            "arith.addf", x, _mul(b, b.bin("arith.mulf", b.bin("arith.mulf", x, x), x),
                                  0.044715)), GELU_TANH_SCALE)))),
    lambda torch, x, s: 0.5 * x * (1.0 + torch.tanh(
        GELU_TANH_SCALE * (x + 0.044715 * torch.pow(x, 3.0)))),
    lambda np, x, s: 0.5 * _f64(np, x) * (1.0 + np.tanh(
        GELU_TANH_SCALE * (_f64(np, x) + 0.044715 * _f64(np, x) ** 3))),
    full={"B": 8192, "D": 8192},
    why="torch.pow(x, 3.0) is written x * x * x.")


# Exponential-linear family ------------------------------------------------------

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

_activation(
    "27_SELU_", "SELU, scale * (x > 0 ? x : alpha * (exp(x) - 1))",
    lambda b, x: b.select(b.cmpf("ogt", x, b.const(0.0)), _mul(b, x, SELU_SCALE),
                          _mul(b, b.un("math.expm1", x), SELU_ALPHA * SELU_SCALE)),
    lambda torch, x, s: torch.selu(x),
    lambda np, x, s: np.where(x > 0, SELU_SCALE * _f64(np, x),
                              SELU_SCALE * SELU_ALPHA * np.expm1(_f64(np, x))),
    why="Written as PyTorch's kernel computes it: x * scale, or "
        "expm1(x) * (alpha * scale).")

ELU_ALPHA = 1.0  # get_init_inputs() passes alpha = 1.0

_activation(
    "31_ELU", "ELU, x > 0 ? x : alpha * (exp(x) - 1), alpha = 1.0",
    lambda b, x: _positive_else(b, x, _mul(b, b.un("math.expm1", x), ELU_ALPHA)),
    lambda torch, x, s: torch.nn.functional.elu(x, alpha=ELU_ALPHA),
    lambda np, x, s: np.where(x > 0, _f64(np, x), ELU_ALPHA * np.expm1(_f64(np, x))))

SOFTPLUS_THRESHOLD = 20.0  # F.softplus's default (beta = 1)

_activation(
    "29_Softplus", "Softplus, x > 20 ? x : log1p(exp(x)) (beta = 1, threshold = 20)",
    lambda b, x: b.select(b.cmpf("ogt", x, b.const(SOFTPLUS_THRESHOLD)), x,
                          b.un("math.log1p", b.un("math.exp", x))),
    lambda torch, x, s: torch.nn.functional.softplus(x),
    lambda np, x, s: np.where(x > SOFTPLUS_THRESHOLD, _f64(np, x),
                              np.log1p(np.exp(_f64(np, x)))),
    lo=-25.0, hi=25.0,
    why="U(-25, 25) crosses PyTorch's threshold (x > 20 returns x) and reaches "
        "tiny outputs (rtol) on the left.")


# Row-wise softmax and log-softmax -----------------------------------------------

def _row_softmax(name, title, log, atol, rtol, why):
    """softmax(x, dim=1) or log_softmax(x, dim=1) on a B x D tensor, as its
    stages: row max, shifted exponentials, row sum, then the division (or
    the subtraction of the log of the sum)."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", [("x", [s["B"], s["D"]])])
        x = f.arg("x")
        row_max = f.reduce(x, [1], float("-inf"),
                           lambda b, v, acc: b.bin("arith.maximumf", v, acc))
        shifted = f.broadcast_apply(x, row_max, [0],
                                    lambda b, v, m: b.bin("arith.subf", v, m))
        exp = f.elementwise([shifted], lambda b, v: b.un("math.exp", v))
        total = f.reduce(exp, [1], 0.0, lambda b, v, acc: b.bin("arith.addf", v, acc))
        if log:
            y = f.broadcast_apply(shifted, total, [0], lambda b, v, t: b.bin(
                "arith.subf", v, b.un("math.log", t)))
        else:
            y = f.broadcast_apply(exp, total, [0],
                                  lambda b, e, t: b.bin("arith.divf", e, t))
        f.ret(y)
        comment = ["KernelBench level 1, problem %s: %s over dim 1 of a %dx%d "
                   "fp32 tensor," % (name.split("_")[0], title, s["B"], s["D"]),
                   "written as its stages (row max, shifted exponentials, row sum, "
                   "%s)." % ("log of the sum subtracted" if log else "division")] + why
        return problem_file(symbol, f, [uniform(-5.0, 5.0)], atol, rtol, comment)

    def numpy_fn(np, x, s):
        shifted = _f64(np, x) - np.max(_f64(np, x), axis=1, keepdims=True)
        total = np.sum(np.exp(shifted), axis=1, keepdims=True)
        return shifted - np.log(total) if log else np.exp(shifted) / total

    register(Problem(
        name=name, level=1, full=FULL, small=SMALL, mlir=mlir,
        torch=(lambda torch, x, s: torch.log_softmax(x, dim=1)) if log else
              (lambda torch, x, s: torch.softmax(x, dim=1)),
        numpy=numpy_fn))


_row_softmax(
    "23_Softmax", "Softmax", log=False, atol=1e-10, rtol=1e-4,
    why=["Outputs are about 2.5e-6 (rows of 393216): the tolerance is relative, as in",
         "examples/problems/softmax.mlir; rtol 1e-4 covers the row sum's rounding."])

_row_softmax(
    "24_LogSoftmax", "LogSoftmax", log=True, atol=1e-5, rtol=1e-5,
    why=["Outputs are about -13 to -23; the log of a sum of 393216 terms carries an",
         "absolute rounding error of the order of 1e-5, well inside atol + rtol * |y|."])
