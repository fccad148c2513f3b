"""Level 1 matrix multiplications (KernelBench 1-18).

Every matrix is drawn from U(-1, 1) as in examples/problems/matmul.mlir
(KernelBench's torch.rand is U(0, 1): all-positive products make every
output close to K/4, so a constant would come close to passing). A sum of
K products of U(-1, 1) values has a standard deviation of sqrt(K)/3, while
the rounding error of a sequential fp32 sum grows like 2^-24 * K/4: the
absolute tolerance scales with K (1e-3 at K = 4096, as in the example),
which keeps it more than ten times above the error of any summation order
and far below the outputs' magnitude.
"""

import textwrap

from .mlir import Func, amap, identity_map, problem_file, uniform
from .registry import Problem, register

MATRIX = uniform(-1.0, 1.0)


def _tolerance(k):
    """(atol, rtol) for sums of k products of U(-1, 1) values."""
    return 1e-3 * max(1.0, k / 4096.0), 1e-4


# One correctly rounded fp32 multiply per element (problems 5 and 12): rtol
# only leaves room for the rounding of a constant.
EXACT_PRODUCT = (0.0, 1e-6)


def _f64(np, *arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def _problem(name, title, formula, full, small, args, build, torch_fn,
             numpy_fn, reduced, why):
    """Registers problem `name`. args(s) -> [(arg name, shape)];
    build(f, s) -> the result value; reduced(s) -> the number of products
    summed per output, or None for an elementwise product."""
    symbol = "l1_" + name

    def mlir(s):
        f = Func(symbol + "_ref", args(s))
        f.ret(build(f, s))
        shapes = ", ".join("%s %s" % (a, "x".join(map(str, shape)))
                           for a, shape in args(s))
        comment = textwrap.wrap("KernelBench level 1, problem %s (%s): %s with %s, fp32."
                                % (name.split("_")[0], title, formula, shapes), 76) + why
        if reduced:
            atol, rtol = _tolerance(reduced(s))
            comment += textwrap.wrap(
                "Inputs U(-1, 1): KernelBench's U(0, 1) makes every product "
                "positive and every output close to K/4. Sums of K = %d products: "
                "atol 1e-3 * max(1, K/4096) stays far above the rounding of any "
                "summation order and below the outputs' magnitude, sqrt(K)/3."
                % reduced(s), 76)
        else:
            atol, rtol = EXACT_PRODUCT
        return problem_file(symbol, f, [MATRIX] * len(args(s)), atol, rtol, comment)

    register(Problem(name=name, level=1, full=full, small=small, mlir=mlir,
                     torch=torch_fn, numpy=numpy_fn))


# Builders ------------------------------------------------------------------

def _matmul(f, a, b, transpose_a=False, transpose_b=False):
    """C = op(A) op(B) as linalg.matmul; a transposed operand is read
    through its indexing map rather than materialized."""
    m = f.shape(a)[1 if transpose_a else 0]
    n = f.shape(b)[0 if transpose_b else 1]
    acc = f.fill(0.0, [m, n])
    attrs = ""
    if transpose_a or transpose_b:
        a_map = "affine_map<(m, n, k) -> (%s)>" % ("k, m" if transpose_a else "m, k")
        b_map = "affine_map<(m, n, k) -> (%s)>" % ("n, k" if transpose_b else "k, n")
        attrs = "indexing_maps = [%s, %s, affine_map<(m, n, k) -> (m, n)>]" % (a_map, b_map)
    return f.named("linalg.matmul", [a, b], acc, attrs)


def _contract_last(f, a, b):
    """out[..., l] = sum_k a[..., k] * b[k, l]: a tensor times a matrix
    along its last dimension (torch.matmul / einsum "...k,kl->...l"), as
    one linalg.generic whose reduction loop k is innermost."""
    batch = f.shape(a)[:-1]
    n = len(batch) + 2  # batch dims, l, k
    loops = "ijklmnopqrstuvwxyz"[:n]
    outer, l, k = list(loops[:-2]), loops[-2], loops[-1]
    acc = f.fill(0.0, batch + [f.shape(b)[1]])
    return f.generic(
        [a, b], [acc],
        [amap(n, outer + [k]), amap(n, [k, l]), amap(n, outer + [l])],
        ["parallel"] * (n - 1) + ["reduction"],
        lambda blk, x, y, o: blk.bin("arith.addf", o, blk.bin("arith.mulf", x, y)))


def _triangle(f, x, upper):
    """torch.triu(x) (upper) or torch.tril(x): zero below (above) the
    diagonal, selected on linalg.index."""
    def body(blk, v, out):
        row, col = blk.index(0), blk.index(1)
        keep = blk.cmpi("sle" if upper else "sge", row, col)
        return blk.select(keep, v, blk.const(0.0))
    out = f.empty(f.shape(x))
    return f.generic([x], [out], [identity_map(2)] * 2,
                     ["parallel", "parallel"], body)


def _scale(f, x, factor):
    return f.elementwise([x], lambda blk, v: blk.bin("arith.mulf", v, blk.const(factor)))


def _plain_matmul(f, s):
    return _matmul(f, f.arg("A"), f.arg("B"))


def _mk(s):
    """A (M, K) and B (K, N)."""
    return [("A", [s["M"], s["K"]]), ("B", [s["K"], s["N"]])]


def _k(s):
    return s["K"]


def _torch_matmul(torch, a, b, s):
    return torch.matmul(a, b)


def _numpy_matmul(np, a, b, s):
    a, b = _f64(np, a, b)
    return a @ b


def _general_matmul(name, title, full, small, why=()):
    """C = A @ B with A (M, K), B (K, N)."""
    _problem(name, title, "C = torch.matmul(A, B)", full, small, _mk,
             _plain_matmul, _torch_matmul, _numpy_matmul, _k,
             list(why))


# 1-9: C = A @ B ------------------------------------------------------------

_problem(
    "1_Square_matrix_multiplication_", "Square matrix multiplication",
    "C = torch.matmul(A, B)", {"N": 4096}, {"N": 128},
    lambda s: [("A", [s["N"], s["N"]]), ("B", [s["N"], s["N"]])],
    _plain_matmul, _torch_matmul, _numpy_matmul,
    lambda s: s["N"],
    ["TF32 or lower precision is not allowed (the tolerance is fp32's)."])

_general_matmul(
    "2_Standard_matrix_multiplication_", "Standard matrix multiplication",
    {"M": 2048, "K": 8192, "N": 4096}, {"M": 64, "K": 256, "N": 128})

_problem(
    "3_Batched_matrix_multiplication", "Batched matrix multiplication",
    "C = torch.bmm(A, B)",
    {"B": 128, "M": 512, "K": 1024, "N": 2048},
    {"B": 8, "M": 32, "K": 64, "N": 128},
    lambda s: [("A", [s["B"], s["M"], s["K"]]), ("Bm", [s["B"], s["K"], s["N"]])],
    lambda f, s: f.named("linalg.batch_matmul", [f.arg("A"), f.arg("Bm")],
                         f.fill(0.0, [s["B"], s["M"], s["N"]])),
    lambda torch, a, b, s: torch.bmm(a, b),
    lambda np, a, b, s: np.matmul(*_f64(np, a, b)),
    _k, ["The second operand is named Bm here: B is the batch size."])

_problem(
    "4_Matrix_vector_multiplication_", "Matrix-vector multiplication",
    "C = torch.matmul(A, B) (B a column)",
    {"M": 2048, "K": 1048576}, {"M": 64, "K": 16384},
    lambda s: [("A", [s["M"], s["K"]]), ("B", [s["K"], 1])],
    _plain_matmul, _torch_matmul, _numpy_matmul, _k,
    ["B and C keep KernelBench's (K, 1) and (M, 1) shapes: a matmul with N = 1,",
     "memory-bound (A is 8 GiB)."])

_problem(
    "5_Matrix_scalar_multiplication", "Matrix-scalar multiplication",
    "C = A * s with the Python float s = 3.14",
    {"M": 65536, "N": 16384}, {"M": 256, "N": 384},
    lambda s: [("A", [s["M"], s["N"]])],
    lambda f, s: _scale(f, f.arg("A"), 3.14),
    lambda torch, a, s: a * 3.14,
    lambda np, a, s: np.asarray(a, dtype=np.float64) * 3.14,
    None,
    ["s is a constant of the module's test code, not a tensor input, so it is a",
     "constant here. One fp32 multiply per element: the tolerance only leaves",
     "room for the rounding of 3.14 itself. Inputs U(-1, 1) like the other",
     "matrices (any range would do: the result is 3.14 times a copy)."])

_general_matmul(
    "6_Matmul_with_large_K_dimension_", "Matmul with large K dimension",
    {"M": 256, "K": 524288, "N": 256}, {"M": 16, "K": 32768, "N": 16},
    ["Memory-light, reduction-heavy: 65536 outputs of 524288 products each."])

_general_matmul(
    "7_Matmul_with_small_K_dimension_", "Matmul with small K dimension",
    {"M": 32768, "K": 64, "N": 32768}, {"M": 256, "K": 64, "N": 256},
    ["K = 64: writing the 4 GiB output dominates."])

_general_matmul(
    "8_Matmul_with_irregular_shapes_", "Matmul with irregular shapes",
    {"M": 8205, "K": 2949, "N": 5921}, {"M": 205, "K": 149, "N": 121},
    ["All three sizes are odd: no tile divides them."])

_problem(
    "9_Tall_skinny_matrix_multiplication_", "Tall skinny matrix multiplication",
    "C = torch.matmul(A, B)", {"M": 32768, "N": 32}, {"M": 384, "N": 32},
    lambda s: [("A", [s["M"], s["N"]]), ("B", [s["N"], s["M"]])],
    _plain_matmul, _torch_matmul, _numpy_matmul,
    lambda s: s["N"],
    ["A is M x N and B is N x M: the reduction has only N = 32 terms and the",
     "M x M output dominates."])


# 10-11: a tensor times a matrix along its last dimension --------------------

_problem(
    "10_3D_tensor_matrix_multiplication", "3D tensor-matrix multiplication",
    "C = torch.matmul(A, B), C[n, m, l] = sum_k A[n, m, k] B[k, l]",
    {"N": 16, "M": 1024, "K": 2048, "L": 768},
    {"N": 4, "M": 64, "K": 128, "L": 96},
    lambda s: [("A", [s["N"], s["M"], s["K"]]), ("B", [s["K"], s["L"]])],
    lambda f, s: _contract_last(f, f.arg("A"), f.arg("B")),
    _torch_matmul, _numpy_matmul, _k,
    ["Written as one linalg.generic (n, m, l parallel, k reduction)."])

_problem(
    "11_4D_tensor_matrix_multiplication", "4D tensor-matrix multiplication",
    'C = torch.einsum("bijl,lk->bijk", A, B)',
    {"b": 8, "i": 256, "j": 512, "l": 256, "k": 768},
    {"b": 2, "i": 8, "j": 16, "l": 64, "k": 96},
    lambda s: [("A", [s["b"], s["i"], s["j"], s["l"]]), ("B", [s["l"], s["k"]])],
    lambda f, s: _contract_last(f, f.arg("A"), f.arg("B")),
    lambda torch, a, b, s: torch.einsum("bijl,lk->bijk", a, b),
    lambda np, a, b, s: np.einsum("bijl,lk->bijk", *_f64(np, a, b)),
    lambda s: s["l"],
    ["Written as one linalg.generic (b, i, j, k parallel, l reduction)."])


# 12: diag(A) @ B as KernelBench computes it ---------------------------------

_problem(
    "12_Matmul_with_diagonal_matrices_", "Matmul with diagonal matrices",
    "C = A.unsqueeze(1) * B (= torch.diag(A) @ B without materializing it)",
    {"N": 4096, "M": 4096}, {"N": 256, "M": 384},
    lambda s: [("A", [s["N"]]), ("B", [s["N"], s["M"]])],
    lambda f, s: f.broadcast_apply(f.arg("B"), f.arg("A"), [0],
                                   lambda blk, b, a: blk.bin("arith.mulf", a, b)),
    lambda torch, a, b, s: a.unsqueeze(1) * b,
    lambda np, a, b, s: np.asarray(a, dtype=np.float64)[:, None] * b,
    None,
    ["KernelBench's forward scales row i of B by A[i]: one exact fp32 multiply",
     "per element, hence the tight tolerance. A in U(-1, 1) keeps a copy of B",
     "from passing."])


# 13: symmetric operands ------------------------------------------------------

_problem(
    "13_Matmul_for_symmetric_matrices", "Matmul for symmetric matrices",
    "C = torch.matmul(A, B)", {"N": 4096}, {"N": 128},
    lambda s: [("A", [s["N"], s["N"]]), ("B", [s["N"], s["N"]])],
    _plain_matmul, _torch_matmul, _numpy_matmul,
    lambda s: s["N"],
    ["KernelBench draws symmetric A and B ((R + R^T) / 2) but its forward is a",
     "plain matmul. kf's input distributions are elementwise, so A and B are",
     "general here: a kernel must be correct without assuming symmetry (which",
     "saves no arithmetic in a product anyway; C is not symmetric)."])


# 14-15: triangular operands, triangular product ------------------------------

def _triangular_problem(name, title, upper):
    fn = "triu" if upper else "tril"

    def build(f, s):
        a = _triangle(f, f.arg("A"), upper)
        b = _triangle(f, f.arg("B"), upper)
        return _triangle(f, _matmul(f, a, b), upper)

    def torch_fn(torch, a, b, s):
        tri = getattr(torch, fn)
        return tri(torch.matmul(tri(a), tri(b)))

    def numpy_fn(np, a, b, s):
        tri = getattr(np, fn)
        a, b = _f64(np, a, b)
        return tri(tri(a) @ tri(b))

    _problem(
        name, title,
        "C = torch.%s(torch.matmul(A, B)) on %s triangular A, B"
        % (fn, "upper" if upper else "lower"),
        {"N": 4096}, {"N": 128},
        lambda s: [("A", [s["N"], s["N"]]), ("B", [s["N"], s["N"]])],
        build, torch_fn, numpy_fn, lambda s: s["N"],
        ["KernelBench draws A = torch.%s(rand) and B likewise; kf's input" % fn,
         "distributions are elementwise, so the reference takes general A, B and",
         "applies torch.%s to them first. C = %s(%s(A) @ %s(B)) equals" % (fn, fn, fn, fn),
         "KernelBench's output on its inputs and keeps the structure a kernel can",
         "exploit: C[i, j] only sums k between i and j (about 1/6 of the work)."])


_triangular_problem("14_Matmul_for_upper_triangular_matrices",
                    "Matmul for upper triangular matrices", upper=True)
_triangular_problem("15_Matmul_for_lower_triangular_matrices",
                    "Matmul for lower triangular matrices", upper=False)


# 16-18: transposed operands, read through the indexing maps -----------------

def _transposed_problem(name, title, transpose_a, transpose_b):
    def args(s):
        a = [s["K"], s["M"]] if transpose_a else [s["M"], s["K"]]
        b = [s["N"], s["K"]] if transpose_b else [s["K"], s["N"]]
        return [("A", a), ("B", b)]

    def operands(a, b):
        return (a.T if transpose_a else a), (b.T if transpose_b else b)

    def torch_fn(torch, a, b, s):
        return torch.matmul(*operands(a, b))

    def numpy_fn(np, a, b, s):
        a, b = operands(*_f64(np, a, b))
        return a @ b

    formula = "C = torch.matmul(%s, %s)" % ("A.T" if transpose_a else "A",
                                            "B.T" if transpose_b else "B")
    _problem(name, title, formula,
             {"M": 2048, "K": 8192, "N": 4096}, {"M": 64, "K": 256, "N": 128},
             args,
             lambda f, s: _matmul(f, f.arg("A"), f.arg("B"), transpose_a, transpose_b),
             torch_fn, numpy_fn, _k,
             ["The transposition is linalg.matmul's indexing map: nothing is copied."])


_transposed_problem("16_Matmul_with_transposed_A", "Matmul with transposed A",
                    transpose_a=True, transpose_b=False)
_transposed_problem("17_Matmul_with_transposed_B", "Matmul with transposed B",
                    transpose_a=False, transpose_b=True)
_transposed_problem("18_Matmul_with_transposed_both", "Matmul with transposed both",
                    transpose_a=True, transpose_b=True)
