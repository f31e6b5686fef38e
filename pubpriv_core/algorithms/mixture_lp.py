"""The best-mixture linear program of Liu et al. 2021, Definition 4.1, solved exactly.

    f = min_{μ ∈ Δ(X̂)} max_{q∈Q} | q(D̃) − Σ_x μ_x q(x) |
      = min t   s.t.   −t ≤ a_q − (Mμ)_q ≤ t  (q present),   t ≥ c,   μ ≥ 0,   Σμ = 1,

where M is the 0/1 incidence of the *present* cells (some support row satisfies them) and
c = max q(D̃) over the absent cells, whose answer is 0 on every μ, so their constraints are the
constant floor t ≥ c. Two solvers:

* :func:`plain_lp` — every present cell is a row (2·|P| rows), one HiGHS solve;
* :func:`constraint_generation` — most rows are slack at the optimum. Keep a working set S of
  cells (first: those worst answered by the anchor, the public distribution) and a level τ, a
  lower bound on f (first: c). Each round finds the μ closest in ℓ1 to the anchor with
  |a_q − (Mμ)_q| ≤ τ on S; if there is none, τ rises to max(c, value of the LP restricted to S),
  a relaxation of f, and the search is repeated. While some cell outside S is answered worse
  than τ + ``TOL``, the cells answered worse than (1 − ``MARGIN``)·τ join S (most violated
  first, at most ``batch`` per round; the margin saves rounds); when there are none, μ is
  within ``TOL`` = 1e-9 of optimal:
  ``lower`` = τ ≤ f ≤ ``value`` = max error of μ ≤ τ + TOL. Staying close to the anchor keeps μ
  dense, so the cells outside S stay answered about as well as by the public data (an LP vertex
  restricted to S is sparse and answers them badly).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

#: stop once the full problem's max error exceeds the restricted LP value by at most this.
TOL = 1e-9
#: cells answered worse than (1 − MARGIN)·τ join the working set with the violated ones.
MARGIN = 0.5
#: HiGHS primal/dual feasibility tolerance, below TOL so the certificate is not solver noise.
_HIGHS_TOL = 1e-10


class LPTimeLimitError(ValueError):
    """HiGHS stopped at the time limit before proving optimality."""


@dataclass(frozen=True)
class MixtureSolution:
    """A solved best-mixture LP: certified value, optimal μ and the size of the cut."""

    value: float        # max error of ``weights`` over every query (an upper bound on f)
    lower: float        # the level τ at the end (a lower bound on f)
    weights: np.ndarray
    rounds: int         # rounds (each solves one or three restricted LPs)
    working_cells: int  # present cells that are rows of the last LP
    active_cells: int   # present cells whose error is within TOL of ``value`` at the optimum
    runtime_s: float


def solve_on_cells(matrix: sp.csr_matrix, target: np.ndarray, floor: float,
                   time_limit: float) -> tuple[float, np.ndarray]:
    """(t, μ) minimising t s.t. |target − matrix·μ| ≤ t row-wise, t ≥ floor, μ ∈ simplex."""
    rows, size = matrix.shape
    ones = sp.csr_matrix(np.ones((rows, 1)))
    a_ub = sp.vstack([sp.hstack([matrix, -ones]), sp.hstack([-matrix, -ones])]).tocsc()
    b_ub = np.concatenate([target, -target])
    a_eq = sp.csr_matrix(np.append(np.ones(size), 0.0)[None, :])
    cost = np.append(np.zeros(size), 1.0)
    bounds = [(0, None)] * size + [(floor, None)]
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs", options=_options(time_limit))
    _check(res, time_limit)
    mu = np.clip(res.x[:size], 0.0, None)
    return float(res.x[-1]), mu / mu.sum()


def plain_lp(matrix: sp.csr_matrix, target: np.ndarray, floor: float,
             time_limit: float) -> MixtureSolution:
    """Every present cell as a row: one HiGHS solve."""
    start = time.perf_counter()
    lower, mu = solve_on_cells(matrix, target, floor, time_limit)
    return _solution(matrix, target, floor, lower, mu, 1, matrix.shape[0], start)


def constraint_generation(matrix: sp.csr_matrix, target: np.ndarray, floor: float,
                          anchor: np.ndarray, time_limit: float, initial: int = 256,
                          batch: int = 1000) -> MixtureSolution:
    """f by constraint generation (module docstring), starting from the ``initial`` cells worst
    answered by ``anchor`` and adding up to ``batch`` most violated cells per round."""
    start = time.perf_counter()
    cells = np.argsort(-np.abs(matrix @ anchor - target), kind="stable")[:initial]
    level, rounds = floor, 0
    while True:
        left = _time_left(start, time_limit)
        mu = nearest_within(matrix[cells], target[cells], anchor, level + TOL / 2, left)
        if mu is None:
            restricted, _ = solve_on_cells(matrix[cells], target[cells], 0.0, left)
            level = max(level, restricted)
            mu = nearest_within(matrix[cells], target[cells], anchor, level + TOL / 2,
                                _time_left(start, time_limit))
            if mu is None:
                raise RuntimeError("best-mixture LP: no μ within the restricted optimum; "
                                   "HiGHS tolerances too loose for this problem")
        rounds += 1
        excess = np.abs(matrix @ mu - target) - level
        excess[cells] = -np.inf
        if not (excess > TOL).any():
            return _solution(matrix, target, floor, level, mu, rounds, cells.size, start)
        new = np.flatnonzero(excess > -MARGIN * level)
        cells = np.concatenate([cells, new[np.argsort(-excess[new], kind="stable")[:batch]]])


def nearest_within(matrix: sp.csr_matrix, target: np.ndarray, anchor: np.ndarray, level: float,
                   time_limit: float) -> np.ndarray | None:
    """argmin ‖μ − anchor‖₁ over μ ∈ simplex with |target − matrix·μ| ≤ level (None: infeasible).

    μ = anchor + p − m with p ≥ 0, 0 ≤ m ≤ anchor, Σp = Σm; minimise Σp + Σm."""
    size = matrix.shape[1]
    a_ub = sp.vstack([sp.hstack([matrix, -matrix]), sp.hstack([-matrix, matrix])]).tocsc()
    base = matrix @ anchor
    b_ub = np.concatenate([level + target - base, level - target + base])
    a_eq = sp.csr_matrix(np.concatenate([np.ones(size), -np.ones(size)])[None, :])
    bounds = [(0, None)] * size + [(0, float(w)) for w in anchor]
    res = linprog(np.ones(2 * size), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[0.0], bounds=bounds,
                  method="highs", options=_options(time_limit))
    if res.status == 2:
        return None
    _check(res, time_limit)
    mu = np.clip(anchor + res.x[:size] - res.x[size:], 0.0, None)
    return mu / mu.sum()


def _options(time_limit: float) -> dict:
    return {"time_limit": float(time_limit), "primal_feasibility_tolerance": _HIGHS_TOL,
            "dual_feasibility_tolerance": _HIGHS_TOL}


def _check(res, time_limit: float) -> None:
    if res.status == 1:
        raise LPTimeLimitError(f"best-mixture LP not solved within {time_limit:g} s; "
                               "use method=mw or raise lp_time_limit")
    if res.status != 0:
        raise RuntimeError(f"best-mixture LP failed: {res.message}")


def _time_left(start: float, time_limit: float) -> float:
    left = time_limit - (time.perf_counter() - start)
    if left <= 0:
        raise LPTimeLimitError(f"best-mixture constraint generation not done within "
                               f"{time_limit:g} s; use method=mw or raise lp_time_limit")
    return left


def _solution(matrix, target, floor, lower, mu, rounds, working, start) -> MixtureSolution:
    errors = np.abs(matrix @ mu - target)
    value = max(float(errors.max(initial=0.0)), floor)
    return MixtureSolution(value=value, lower=lower, weights=mu, rounds=rounds,
                           working_cells=int(working),
                           active_cells=int(np.count_nonzero(errors >= value - TOL)),
                           runtime_s=time.perf_counter() - start)
