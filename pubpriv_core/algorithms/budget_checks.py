"""Checks on the quantities an algorithm derives from its inputs, shared by the algorithms'
``check`` functions.

Every algorithm module of :data:`pubpriv_core.algorithms.ALGORITHMS` defines ``check(problem, *,
eps, delta, T, **options)``: the checks its run would make on these inputs — options, limits, and
the budget it derives — done without reading the data's values or spending privacy. The runner's
pre-check calls it for every job (through :func:`pubpriv_core.algorithms.check_algorithm`) before
anything is written, so a job that would fail at run time is refused up front. Valid fields can
still be impossible together: an ε so small that its conversion to ρ (Canonne, Kamath & Steinke
2020) underflows to 0, or a ρ spread over so many steps that a step's charge or noise scale is no
longer a positive finite float.
"""
from __future__ import annotations

import math
import sys

from pubpriv_core.privacy import rho_from_eps

#: the smallest positive normal float: a charge below it has lost its precision (or is 0).
SMALLEST = sys.float_info.min


def target_rho(eps: float, delta: float) -> float:
    """ρ = rho_from_eps(ε, δ) (the CKS conversion every zCDP algorithm makes); a one-line
    ValueError when δ is not in (0, 1) or ρ underflows (ε tiny for this δ)."""
    if not 0 < delta < 1:
        raise ValueError(f"delta={delta:g} must lie in (0, 1); pass e.g. delta=1e-9")
    try:
        rho = rho_from_eps(eps, delta)
    except (ValueError, RuntimeError):   # the conversion's bracket or root search underflows
        rho = 0.0
    if not (math.isfinite(rho) and rho >= SMALLEST):
        raise ValueError(f"eps={eps:g} at delta={delta:g} is too small for the conversion to a "
                         "zCDP budget rho (it underflows to 0); pass a larger eps (e.g. 0.01)")
    return rho


def check_steps(setting: str, **steps: float) -> None:
    """Every per-step quantity (a ρ charge, a noise scale, a selection ε) of ``setting`` is a
    positive finite normal float; otherwise the budget is spread too thin for floating point."""
    for name, value in steps.items():
        if not (math.isfinite(value) and value >= SMALLEST):
            raise ValueError(f"{setting}: the per-step {name} is {value:g}, not a positive finite "
                             "number; pass a larger eps or fewer rounds")
