"""Problem records and the registry that collects them."""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional


@dataclass
class Problem:
    """One KernelBench problem translated into kf's format.

    name:   KernelBench's file name without ".py" (e.g. "19_ReLU").
    level:  1 or 2.
    full:   the sizes KernelBench uses (the ones measured on the GPU).
    small:  sizes small enough for the CPU checks (the reference runs
            through MLIR's ExecutionEngine as plain loops: keep the work
            under about 1e7 multiply-adds).
    mlir:   sizes -> the whole problem file (kf.problem + reference).
    torch:  (torch, inputs, sizes) -> output tensor or tuple of them: what
            KernelBench's Model.forward computes, on the problem's inputs in
            the problem file's order (weights are inputs).
    numpy:  (numpy, inputs, sizes) -> outputs, computed independently of
            the MLIR reference (float64 is fine); None when the problem has
            no NumPy version.
    """

    name: str
    level: int
    full: Dict[str, int]
    small: Dict[str, int]
    mlir: Callable[[Dict[str, int]], str]
    torch: Callable
    numpy: Optional[Callable] = None
    notes: str = ""

    @property
    def symbol(self) -> str:
        """The kf.problem symbol: MLIR symbols cannot start with a digit."""
        return "l%d_%s" % (self.level, self.name)


_problems: List[Problem] = []


def register(problem: Problem) -> Problem:
    if any(p.level == problem.level and p.name == problem.name
           for p in _problems):
        raise ValueError("problem %s registered twice" % problem.name)
    _problems.append(problem)
    return problem


def _load():
    # Importing the modules registers their problems.
    from . import level1, level2  # noqa: F401


def all_problems() -> List[Problem]:
    if not _problems:
        _load()
    return sorted(_problems, key=lambda p: (p.level, int(p.name.split("_")[0])))


def find(level: int, name: str) -> Problem:
    for p in all_problems():
        if p.level == level and p.name == name:
            return p
    raise KeyError("no level %d problem named %s" % (level, name))
