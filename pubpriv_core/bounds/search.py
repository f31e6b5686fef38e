"""Numeric helpers for bounds: exact integer thresholds, log-space growth functions, roots."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import optimize, special


def smallest_integer(holds: Callable[[int], bool], lo: int) -> int:
    """Smallest integer n >= lo with ``holds(n)``, for a predicate monotone (False…True) on [lo, ∞).

    Doubling finds a bracket, bisection the threshold; O(log n) predicate calls.
    """
    if holds(lo):
        return lo
    step = 1
    while not holds(lo + step):
        step *= 2
        if step > 2 ** 80:
            raise ArithmeticError("no integer threshold below 2**80; the condition never holds")
    bad, good = lo + step // 2, lo + step
    while good - bad > 1:
        mid = (bad + good) // 2
        bad, good = (bad, mid) if holds(mid) else (mid, good)
    return good


def log_sauer(m: float, d: int) -> float:
    """ln (e·m/d)^d: Sauer–Shelah bound on the growth function of a VC-d class on m ≥ d points."""
    return d * math.log(math.e * m / d)


def log_growth(m: int, d: int) -> float:
    """ln Σ_{i≤d} C(m, i): the exact Sauer–Shelah growth bound (tighter than (em/d)^d)."""
    terms = [special.gammaln(m + 1) - special.gammaln(i + 1) - special.gammaln(m - i + 1)
             for i in range(0, min(d, m) + 1)]
    return float(special.logsumexp(terms))


def positive_window(g: Callable[[float], float], lo: float, hi: float,
                    grid: int = 4000) -> tuple[float, float]:
    """(first, last) roots bounding where g > 0 on [lo, hi]; (0.0, 0.0) if g ≤ 0 on the grid.

    g is scanned on a geometric grid and both outermost sign changes are refined with Brent's
    method; ``first`` is ``lo`` when g > 0 already at ``lo``.
    """
    xs = lo * (hi / lo) ** (np.arange(grid) / (grid - 1))
    positive = np.array([g(x) > 0 for x in xs])
    if not positive.any():
        return 0.0, 0.0
    first, last = np.flatnonzero(positive)[[0, -1]]
    if last == grid - 1:
        raise ArithmeticError(f"condition still violated at {hi:g}; the search range is too small")
    top = optimize.brentq(g, xs[last], xs[last + 1], xtol=1e-10, rtol=1e-12)
    start = lo if first == 0 else optimize.brentq(g, xs[first - 1], xs[first], xtol=1e-10,
                                                   rtol=1e-12)
    return float(start), float(top)
