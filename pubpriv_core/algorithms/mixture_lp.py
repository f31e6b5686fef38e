"""The best-mixture linear program of Liu et al. 2021, Definition 4.1, solved exactly.

    f = min_{μ ∈ Δ(X̂)} max_{q∈Q} | q(D̃) − Σ_x μ_x q(x) |
      = min t   s.t.   −t ≤ a_q − (Mμ)_q ≤ t  (q present),   t ≥ c,   μ ≥ 0,   Σμ = 1,

where M is the 0/1 incidence of the *present* cells (some support row satisfies them) and
c = max q(D̃) over the absent cells, whose answer is 0 on every μ, so their constraints are the
constant floor t ≥ c. Two solvers:

* :func:`plain_lp` — every present cell is a row (2·|P| rows), one HiGHS solve (scipy);
* :func:`constraint_generation` — first, ``DESCENT_STEPS`` first-order steps
  (:mod:`~pubpriv_core.algorithms.mixture_descent`) move the anchor (the public distribution)
  towards max error ≤ c; f is usually exactly c, and when a step gets there the value is
  certified with no LP. Else most rows are slack at the optimum: keep a working set S of cells
  and a level τ, a lower bound on f (first: c). Each round finds the μ closest in ℓ1 to the
  anchor with |a_q − (Mμ)_q| ≤ τ on S; if there is none, τ rises to max(c, value of the LP
  restricted to S), a relaxation of f, and the search is repeated. While some cell outside S is
  answered worse than τ + ``TOL``, the cells answered worse than (1 − ``MARGIN``)·τ join S —
  per marginal the ``per_group`` most violated (the margin and the spread over marginals save
  rounds); the first S is chosen by the same rule from the anchor's errors. When no cell
  outside S is violated, μ is within ``TOL`` = 1e-9 of optimal: ``lower`` = τ ≤ f ≤ ``value``
  = max error of μ ≤ τ + TOL. Staying close to the anchor keeps μ dense, so the cells outside S
  stay answered about as well as by the anchor (an LP vertex restricted to S is sparse and
  answers them badly).

  On a time limit (or a restricted LP that no HiGHS run answers), :func:`constraint_generation`
  either raises (``on_time_limit="raise"``) or returns the certified interval it holds
  (``"interval"``):
  ``lower`` = the level τ (c, or the last restricted LP's value: relaxations of f) and ``value`` =
  the smallest max error of any μ it met (the anchor, the descent's iterate, each nearest μ),
  with ``certified`` false unless they meet within ``TOL``.

  Both restricted LPs live in HiGHS models (``highspy``) that grow by rows: after the first
  solve each round restarts the dual simplex from the previous optimal basis (added rows and a
  raised τ keep it dual feasible), so a round costs the pivots its new cells need; a restart
  that stalls past a pivot budget is solved afresh.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp
from highspy.highs import _Highs
from scipy.optimize import linprog

from pubpriv_core.algorithms.mixture_descent import penalty_descent
from pubpriv_core.algorithms.mixture_operator import SupportIncidence

_OPERATOR_TYPES = (sp.csr_matrix, SupportIncidence)

#: stop once the full problem's max error exceeds the restricted LP value by at most this.
TOL = 1e-9
#: cells answered worse than (1 − MARGIN)·τ join the working set with the violated ones.
MARGIN = 0.1
#: first-order steps moving the anchor towards max error ≤ c before any LP is built.
DESCENT_STEPS = 100
#: cells per marginal (group) that join the working set in one round, most violated first.
PER_GROUP = 5
#: on the engine operator (no matrix in memory), the rows joining the working set per round hold
#: at most this many non-zeros, most violated cells first (the paper-scale problem's first
#: round would otherwise take ≈ 20K cells × ≈ 2K rows into HiGHS: 11.8 GB peak, measured).
#: Short rounds tighten the interval sooner: on fig1_paper_scale's sources a 4M-non-zero first
#: round alone took 24–105 s, a 250K one 0.3–1.1 s (docs/benchmarks-engine.md,
#: "fig1_paper_scale's sources").
OPERATOR_JOIN_NONZEROS = 250_000
#: pivots (beyond twice the rows) a warm restart may take before the round is solved afresh.
WARM_PIVOTS = 5000
_MAX_PIVOTS = 2 ** 31 - 1
#: HiGHS primal/dual feasibility tolerance, below TOL so the certificate is not solver noise.
_HIGHS_TOL = 1e-10
_INF = highspy.kHighsInf
#: model states a restricted LP may end in (the ℓ1 model's μ is bounded, so no unboundedness).
_SOLVED = (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible,
           highspy.HighsModelStatus.kUnboundedOrInfeasible)
#: statuses solved once more from scratch without presolve (:func:`_run`)
_RETRIED = (highspy.HighsModelStatus.kUnknown, highspy.HighsModelStatus.kSolveError,
            highspy.HighsModelStatus.kPresolveError, highspy.HighsModelStatus.kPostsolveError)


class LPTimeLimitError(ValueError):
    """HiGHS stopped at the time limit before proving optimality."""


class LPSolverError(RuntimeError):
    """No HiGHS run (:func:`_run` and its fallbacks) answered a restricted LP."""


@dataclass(frozen=True)
class MixtureSolution:
    """A best-mixture LP: certified value (or interval, on a time limit), μ and the cut's size."""

    value: float        # max error of ``weights`` over every query (an upper bound on f)
    lower: float        # the level τ at the end (a lower bound on f)
    weights: np.ndarray
    rounds: int         # rounds (each solves one or three restricted LPs)
    working_cells: int  # present cells that are rows of the last LP
    active_cells: int   # present cells whose error is within TOL of ``value`` at the optimum
    runtime_s: float
    certified: bool = True   # value ≤ lower + TOL: f is known to 1e-9 (else f ∈ [lower, value])
    stopped: str = ""        # what ended a search short of that: "time limit" or HiGHS's failure


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
                  method="highs", options=_scipy_options(time_limit))
    if res.status == 1:
        raise _time_limit_error(time_limit)
    if res.status != 0:
        raise RuntimeError(f"best-mixture LP failed: {res.message}")
    mu = np.clip(res.x[:size], 0.0, None)
    return float(res.x[-1]), mu / mu.sum()


def plain_lp(matrix: sp.csr_matrix, target: np.ndarray, floor: float,
             time_limit: float) -> MixtureSolution:
    """Every present cell as a row: one HiGHS solve."""
    start = time.perf_counter()
    lower, mu = solve_on_cells(matrix, target, floor, time_limit)
    return _solution(matrix, target, floor, lower, mu, 1, matrix.shape[0], start)


def constraint_generation(matrix: sp.csr_matrix, target: np.ndarray, floor: float,
                          anchor: np.ndarray, time_limit: float,
                          groups: np.ndarray | None = None,
                          per_group: int = PER_GROUP,
                          descent_steps: int | None = None,
                          join_nonzeros: int = OPERATOR_JOIN_NONZEROS,
                          on_time_limit: str = "raise",
                          progress=None) -> MixtureSolution:
    """f by constraint generation (module docstring); ``groups`` gives each cell's marginal
    (None: one group), of which ``per_group`` cells join per round. The anchor is first moved
    by at most ``descent_steps`` (None: ``DESCENT_STEPS``) steps of
    :func:`~.mixture_descent.penalty_descent` towards max error ≤ c; if it gets there, f = c is
    certified with no LP (0 rounds). ``matrix`` is a CSR matrix or an operator with the same
    ``@``, ``.T @``, row selection and ``shape`` (:class:`~.mixture_operator.SupportIncidence`);
    on such an operator the cells joining in one round hold at most ``join_nonzeros`` non-zeros.
    At ``time_limit`` seconds, or when HiGHS answers no run of a restricted LP
    (:class:`LPSolverError`): raise (``on_time_limit="raise"``) or return the interval
    [τ, best max error] found so far, ``certified`` false (``"interval"``; its bounds hold
    whatever stopped the search).
    ``progress`` (if given) is called with that interval after the descent and after each
    round."""
    if on_time_limit not in ON_TIME_LIMIT:
        raise ValueError(f"unknown on_time_limit {on_time_limit!r}; choose one of "
                         f"{', '.join(ON_TIME_LIMIT)}")
    search = _Search(matrix, target, floor, time.perf_counter(), progress)
    try:
        return _generate(search, anchor, time_limit, groups, per_group, descent_steps,
                         join_nonzeros)
    except (LPTimeLimitError, LPSolverError) as stop:
        if on_time_limit == "raise" or search.best is None:
            raise
        return search.interval("time limit" if isinstance(stop, LPTimeLimitError) else str(stop))


#: what :func:`constraint_generation` does at its time limit.
ON_TIME_LIMIT = ("raise", "interval")


class _Search:
    """What a constraint generation holds: the level τ (a certified lower bound on f) and the
    best μ met so far (its max error an upper bound)."""

    def __init__(self, matrix, target: np.ndarray, floor: float, start: float, progress=None):
        self.matrix = matrix if isinstance(matrix, _OPERATOR_TYPES) else sp.csr_matrix(matrix)
        self.target, self.floor, self.start = target, floor, start
        self.progress = progress or (lambda interval: None)
        self.level, self.rounds, self.working = floor, 0, 0
        self.best: tuple[float, np.ndarray] | None = None

    def errors(self, mu: np.ndarray) -> np.ndarray:
        """|Mμ − a| for every present cell; μ is kept if it is the best met."""
        errors = np.abs(self.matrix @ mu - self.target)
        value = max(float(errors.max(initial=0.0)), self.floor)
        if self.best is None or value < self.best[0]:
            self.best = (value, mu)
        return errors

    def cell_sizes(self) -> np.ndarray:
        """Support rows per present cell (the non-zeros of its row of M; one pass, kept)."""
        if not hasattr(self, "_sizes"):
            self._sizes = self.matrix @ np.ones(self.matrix.shape[1])
        return self._sizes

    def interval(self, stopped: str = "") -> MixtureSolution:
        value, mu = self.best
        certified = value <= self.level + TOL
        return MixtureSolution(value=value, lower=self.level, weights=mu, rounds=self.rounds,
                               working_cells=self.working, active_cells=0,
                               runtime_s=time.perf_counter() - self.start,
                               certified=certified, stopped="" if certified else stopped)


def _generate(search: _Search, anchor, time_limit, groups, per_group, descent_steps,
              join_nonzeros):
    matrix, target, floor, start = search.matrix, search.target, search.floor, search.start
    groups = np.zeros(matrix.shape[0], dtype=np.int64) if groups is None else np.asarray(groups)
    anchor = np.asarray(anchor, dtype=float) / np.sum(anchor)
    search.errors(anchor)
    steps = DESCENT_STEPS if descent_steps is None else descent_steps
    if steps > 0:
        anchor, reached = penalty_descent(matrix, target, floor + TOL, anchor, steps,
                                          lambda: time.perf_counter() - start > time_limit)
        if reached:
            return _solution(matrix, target, floor, floor, anchor, 0, 0, start)
    nearest = _NearestModel(matrix, target, anchor)
    level_model = None
    working = np.zeros(matrix.shape[0], dtype=bool)
    mu = anchor
    while True:
        excess = search.errors(mu) - search.level
        search.progress(search.interval())
        excess[working] = -np.inf
        if not (excess > TOL).any():
            return _solution(matrix, target, floor, search.level, mu, search.rounds,
                             int(working.sum()), start)
        _time_left(start, time_limit)
        cells = _joining(excess, search.level, groups, per_group)
        if isinstance(matrix, SupportIncidence):
            cells = _within_nonzeros(cells, excess, search.cell_sizes(), join_nonzeros)
        working[cells] = True
        search.working = int(working.sum())
        nearest.add(cells)
        mu = nearest.solve(search.level + TOL / 2, _time_left(start, time_limit))
        if mu is None:
            level_model = level_model or _LevelModel(matrix, target, floor)
            search.level = max(search.level, level_model.solve(np.flatnonzero(working),
                                                               _time_left(start, time_limit)))
            mu = nearest.solve(search.level + TOL / 2, _time_left(start, time_limit))
            if mu is None:
                raise RuntimeError("best-mixture LP: no μ within the restricted optimum; "
                                   "HiGHS tolerances too loose for this problem")
        search.rounds += 1


def _joining(excess: np.ndarray, level: float, groups: np.ndarray, per_group: int) -> np.ndarray:
    """Cells with excess above −MARGIN·τ, the ``per_group`` largest of each group."""
    candidates = np.flatnonzero(excess > -MARGIN * level)
    order = np.lexsort((-excess[candidates], groups[candidates]))
    cells, members = candidates[order], groups[candidates[order]]
    first = np.flatnonzero(np.r_[True, members[1:] != members[:-1]])
    rank = np.arange(cells.size) - np.repeat(first, np.diff(np.r_[first, cells.size]))
    return cells[rank < per_group]


def _within_nonzeros(cells: np.ndarray, excess: np.ndarray, sizes: np.ndarray,
                     budget: int) -> np.ndarray:
    """The most violated of ``cells`` whose rows hold at most ``budget`` non-zeros together
    (at least one cell)."""
    order = cells[np.argsort(-excess[cells], kind="stable")]
    keep = max(1, int(np.searchsorted(np.cumsum(sizes[order]), budget, side="right")))
    return np.sort(order[:keep])


class _NearestModel:
    """argmin ‖μ − anchor‖₁ over μ ∈ simplex with |a_q − (Mμ)_q| ≤ level on the added cells.

    μ = anchor + p − m with p ≥ 0, 0 ≤ m ≤ anchor, Σp = Σm; minimise Σp + Σm. One ranged row
    a_q − (M·anchor)_q − level ≤ (M(p − m))_q ≤ a_q − (M·anchor)_q + level per cell."""

    def __init__(self, matrix: sp.csr_matrix, target: np.ndarray, anchor: np.ndarray):
        self.matrix, self.anchor = matrix, anchor
        self.residual = target - matrix @ anchor
        self.cells = np.zeros(0, dtype=np.int64)
        self.level = np.inf
        self.warm = False       # a basis from an earlier solve exists
        size = matrix.shape[1]
        self.highs = _highs()
        self.highs.addVars(2 * size, np.zeros(2 * size), np.r_[np.full(size, _INF), anchor])
        self.highs.changeColsCost(2 * size, np.arange(2 * size, dtype=np.int32),
                                  np.ones(2 * size))
        self.highs.addRow(0.0, 0.0, 2 * size, np.arange(2 * size, dtype=np.int32),
                          np.r_[np.ones(size), -np.ones(size)])

    def add(self, cells: np.ndarray) -> None:
        rows = self.matrix[cells]
        residual = self.residual[cells]
        _add_rows(self.highs, sp.hstack([rows, -rows]).tocsr(), residual - self.level,
                  residual + self.level)
        self.cells = np.concatenate([self.cells, cells])

    def solve(self, level: float, time_limit: float) -> np.ndarray | None:
        """The nearest μ at ``level`` (None: infeasible)."""
        if level != self.level:
            self.level = level
            rows = np.arange(1, self.cells.size + 1, dtype=np.int32)
            residual = self.residual[self.cells]
            self.highs.changeRowsBounds(rows.size, rows, residual - level, residual + level)
        status = (_run_warm(self.highs, time_limit, self.cells.size) if self.warm
                  else _run(self.highs, time_limit))
        self.warm = True
        if status != highspy.HighsModelStatus.kOptimal:
            return None
        size = self.anchor.size
        x = np.asarray(self.highs.getSolution().col_value)
        mu = np.clip(self.anchor + x[:size] - x[size:], 0.0, None)
        return mu / mu.sum()


class _LevelModel:
    """min t s.t. |a_q − (Mμ)_q| ≤ t on the added cells, t ≥ c, μ ∈ simplex (two rows a cell)."""

    def __init__(self, matrix: sp.csr_matrix, target: np.ndarray, floor: float):
        self.matrix, self.target = matrix, target
        self.known = np.zeros(matrix.shape[0], dtype=bool)
        size = matrix.shape[1]
        self.highs = _highs()
        self.highs.addVars(size, np.zeros(size), np.full(size, _INF))
        self.highs.addVar(floor, _INF)
        self.highs.changeColCost(size, 1.0)
        self.highs.addRow(1.0, 1.0, size, np.arange(size, dtype=np.int32), np.ones(size))

    def solve(self, cells: np.ndarray, time_limit: float) -> float:
        """The restricted optimum over ``cells`` (rows not yet in the model are added)."""
        new = cells[~self.known[cells]]
        self.known[new] = True
        rows, target = self.matrix[new], self.target[new]
        ones = sp.csr_matrix(np.ones((new.size, 1)))
        _add_rows(self.highs, sp.hstack([rows, ones]).tocsr(), target, np.full(new.size, _INF))
        _add_rows(self.highs, sp.hstack([rows, -ones]).tocsr(), np.full(new.size, -_INF), target)
        if _run_warm(self.highs, time_limit, 2 * int(self.known.sum())) != \
                highspy.HighsModelStatus.kOptimal:
            raise RuntimeError("best-mixture LP: the restricted level LP was not solved")
        return float(self.highs.getInfo().objective_function_value)


def _highs() -> _Highs:
    # the binding's bare class (every highspy release imports it into ``highspy.highs``):
    # ``highspy.Highs()`` prints HiGHS's banner while it sets up callbacks, before any option
    # can silence it
    highs = _Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("primal_feasibility_tolerance", _HIGHS_TOL)
    highs.setOptionValue("dual_feasibility_tolerance", _HIGHS_TOL)
    highs.setOptionValue("simplex_strategy", 1)     # dual simplex: rows are added between solves
    return highs


def _add_rows(highs: _Highs, rows: sp.csr_matrix, lower: np.ndarray,
              upper: np.ndarray) -> None:
    highs.addRows(rows.shape[0], lower, upper, rows.nnz, rows.indptr[:-1].astype(np.int32),
                  rows.indices.astype(np.int32), rows.data.astype(float))


def _run_warm(highs: _Highs, time_limit: float, rows: int) -> highspy.HighsModelStatus:
    """Re-solve from the last basis; a restart that stalls (more than ``WARM_PIVOTS`` + 2·rows
    pivots: the dual simplex can creep on degenerate rounds) is re-solved from scratch, with
    presolve."""
    start = time.perf_counter()
    highs.setOptionValue("simplex_iteration_limit", warm_budget(rows))
    try:
        status = _run(highs, time_limit)
    finally:
        highs.setOptionValue("simplex_iteration_limit", _MAX_PIVOTS)
    if status == highspy.HighsModelStatus.kIterationLimit:
        highs.clearSolver()
        status = _run(highs, _time_left(start, time_limit))
    return status


def warm_budget(rows: int) -> int:
    """Pivots a warm restart of a model with ``rows`` cell rows may take."""
    return WARM_PIVOTS + 2 * rows


def _run(highs: _Highs, time_limit: float) -> highspy.HighsModelStatus:
    """One HiGHS run; its time limit raises :class:`LPTimeLimitError`. An ``Unknown`` status
    (HiGHS can stop so when its presolved problem is infeasible but the simplex does not prove
    it — met on liu2021's |X̂| = 4,096 sweep, where the same model without presolve is proved
    infeasible — or after a warm restart, by its anti-cycling test) or a solve, presolve or
    postsolve error (met on a warm restart of liu2021's m = 10,000 mixture LP) is solved again
    from scratch with the time left, in turn by each of :data:`_FALLBACKS`: without presolve,
    then by the interior-point method (on fig1_paper_scale's shift-0.6 source, 250K-non-zero
    joins, round 16's nearest-μ LP ends ``Unknown`` in the dual simplex with and without
    presolve, at default tolerances too, and is proved infeasible by the interior-point method
    in 20 s). Once the time is used up it counts as the time limit; a model no run answers
    raises :class:`LPSolverError`."""
    start = time.perf_counter()
    _limit_run(highs, time_limit)
    highs.run()
    status = highs.getModelStatus()
    for options in _FALLBACKS:
        if status not in _RETRIED:
            break
        left = time_limit - (time.perf_counter() - start)
        if left <= 0:
            raise _time_limit_error(time_limit)
        status = _run_with(highs, left, options)
    if status == highspy.HighsModelStatus.kTimeLimit or (
            status in _RETRIED and time.perf_counter() - start >= time_limit):
        raise _time_limit_error(time_limit)
    if status not in (*_SOLVED, highspy.HighsModelStatus.kIterationLimit):
        raise LPSolverError(f"best-mixture LP failed: {highs.modelStatusToString(status)}")
    return status


#: options of the runs from scratch that follow a run ending in a :data:`_RETRIED` status, in
#: turn (:func:`_run`), and the values they are reset to after each.
_FALLBACKS = ({"presolve": "off"}, {"solver": "ipm"})
_DEFAULTS = {"presolve": "choose", "solver": "choose"}


def _run_with(highs: _Highs, seconds: float, options: dict) -> highspy.HighsModelStatus:
    """One run from scratch with ``options`` set for it alone."""
    highs.clearSolver()
    _limit_run(highs, seconds)
    for name, value in options.items():
        highs.setOptionValue(name, value)
    try:
        highs.run()
    finally:
        for name in options:
            highs.setOptionValue(name, _DEFAULTS[name])
    return highs.getModelStatus()


def _limit_run(highs: _Highs, seconds: float) -> None:
    """Let the next run of ``highs`` take at most ``seconds``. HiGHS compares its ``time_limit``
    with the model's run clock, which adds up every earlier run of the model (highspy 1.16,
    measured), so the limit is that clock plus ``seconds``."""
    highs.setOptionValue("time_limit", highs.getRunTime() + float(seconds))


def _scipy_options(time_limit: float) -> dict:
    return {"time_limit": float(time_limit), "primal_feasibility_tolerance": _HIGHS_TOL,
            "dual_feasibility_tolerance": _HIGHS_TOL}


def _time_limit_error(time_limit: float) -> LPTimeLimitError:
    return LPTimeLimitError(f"best-mixture LP not solved within {time_limit:g} s; "
                            "use method=mw or raise lp_time_limit")


def _time_left(start: float, time_limit: float) -> float:
    left = time_limit - (time.perf_counter() - start)
    if left <= 0:
        raise _time_limit_error(time_limit)
    return left


def _solution(matrix, target, floor, lower, mu, rounds, working, start) -> MixtureSolution:
    errors = np.abs(matrix @ mu - target)
    value = max(float(errors.max(initial=0.0)), floor)
    return MixtureSolution(value=value, lower=lower, weights=mu, rounds=rounds,
                           working_cells=int(working),
                           active_cells=int(np.count_nonzero(errors >= value - TOL)),
                           runtime_s=time.perf_counter() - start)
