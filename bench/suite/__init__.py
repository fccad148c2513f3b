"""The KernelBench-derived benchmark suite: one registry of problems.

Each problem is described once, here, and everything else derives from it:
the problem files under bench/problems/ (written by bench/gen-problems), the
PyTorch computation bench/run times as the baseline, and the NumPy
computation the CPU check (bench/check-semantics) compares kf's reference
with on small shapes.
"""

from .registry import Problem, all_problems, find  # noqa: F401
