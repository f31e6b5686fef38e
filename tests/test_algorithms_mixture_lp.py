"""Exact best mixture error by constraint generation (Liu et al. 2021, Def. 4.1)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pubpriv_core.algorithms import mixture_lp

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.best_mixture import (_split, best_mixture_exact, best_mixture_lp,
                                                  best_mixture_mw, present_incidence)
from pubpriv_core.algorithms.mixture_descent import penalty_descent, project_simplex
from pubpriv_core.algorithms.mixture_operator import SupportIncidence
from pubpriv_core.algorithms.mixture_lp import (TOL, LPTimeLimitError, constraint_generation,
                                                plain_lp)
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

DOMAIN = Domain(list("abcdefg"), [3, 4, 2, 5, 3, 4, 2])


def latent_data(n: int, rng: np.random.Generator, skew: float) -> Dataset:
    """Records driven by a 3-class latent variable; ``skew`` tilts the classes' shares."""
    shares = np.array([1.0, 1.0 + skew, 1.0 + 2 * skew])
    latent = rng.choice(3, size=n, p=shares / shares.sum())
    noise = rng.random((n, len(DOMAIN))) < 0.35
    cols = [(latent + noise[:, j] * rng.integers(0, s, n)) % s for j, s in enumerate(DOMAIN.shape)]
    return Dataset(np.column_stack(cols), DOMAIN)


def problem(seed: int, m: int, k: int = 3, size: int | None = 20, skew: float = 1.5):
    rng = np.random.default_rng(seed)
    private, public = latent_data(1500, rng, 0.0), latent_data(m, rng, skew)
    support, counts = np.unique(public.records, axis=0, return_counts=True)
    workload = MarginalWorkload.random(DOMAIN, k, size=size, seed=seed)
    return ReleaseProblem(private, workload, support, counts / counts.sum(), m)


def exact(p: ReleaseProblem):
    return best_mixture_exact(p.public_answerer, p.true_answers, p.public_weights)


@pytest.mark.parametrize("seed,m,k", [(0, 60, 2), (1, 150, 3), (2, 400, 3), (3, 40, 4)])
def test_equals_the_plain_lp_and_certifies_its_value(seed, m, k):
    p = problem(seed, m, k)
    plain, _ = best_mixture_lp(p.public_answerer, p.true_answers)
    solution = exact(p)
    assert solution.value == pytest.approx(plain, abs=1e-8)
    assert solution.lower <= solution.value <= solution.lower + TOL
    errors = np.abs(p.public_answerer.expand(p.public_answerer.answer(solution.weights))
                    - p.true_answers)
    assert errors.max() == pytest.approx(solution.value, abs=1e-12)
    assert solution.active_cells >= 1 and solution.working_cells <= p.public_answerer.num_queries


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_never_above_the_mw_estimate(seed):
    p = problem(seed, 300)
    mw, _ = best_mixture_mw(p.public_answerer, p.true_answers, p.public_weights, 100)
    solution = exact(p)
    assert solution.lower <= mw + 1e-12 and solution.value <= mw + TOL


def test_zero_when_the_support_covers_the_private_data():
    p = problem(7, 200)
    covering = ReleaseProblem(p.private, p.workload, np.unique(p.private.records, axis=0),
                              None, len(p.private))
    uniform = np.full(covering.support_size, 1.0 / covering.support_size)
    solution = best_mixture_exact(covering.public_answerer, covering.true_answers, uniform)
    assert solution.value == pytest.approx(0.0, abs=1e-9)


def test_more_rows_in_the_working_set_than_a_start_when_the_start_is_poor(monkeypatch):
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)     # the public anchor as it is
    p = problem(8, 500, size=None)
    solution = exact(p)
    # more cells than one round can add (PER_GROUP per marginal)
    first_round = mixture_lp.PER_GROUP * p.workload.num_marginals
    assert solution.rounds >= 2 and solution.working_cells > first_round


def test_release_records_the_certificate(monkeypatch):
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)     # rounds of constraint generation
    p = problem(9, 120)
    release = run_algorithm("best_mixture", p, eps=1.0, delta=1e-6, T=1, rng=None, method="lp")
    trace = release.trace
    assert trace["lp_lower"] <= trace["lp_value"] <= trace["lp_lower"] + TOL
    assert release.errors(p.true_answers)["max_error"] == pytest.approx(trace["lp_value"],
                                                                      abs=1e-12)
    assert trace["lp_active_cells"] >= 1 and trace["lp_rounds"] >= 1


@pytest.mark.parametrize("per_group", [1, 3, 1000])
def test_any_spread_over_marginals_reaches_the_plain_lp(per_group):
    p = problem(10, 120, k=3, size=None)
    present, floor = _split(p.public_answerer, p.true_answers)
    matrix = present_incidence(p.public_answerer)
    plain, _ = best_mixture_lp(p.public_answerer, p.true_answers)
    solution = constraint_generation(matrix, p.true_answers[present], floor, p.public_weights,
                                     60.0, groups=p.workload.marginal_of(present),
                                     per_group=per_group)
    assert solution.value == pytest.approx(plain, abs=1e-8)
    assert solution.lower <= solution.value <= solution.lower + TOL


def level_rising():
    """(plain LP, constraint generation) with a floor of 0 and a support that misses the
    private data: f > c, so the restricted level LP must raise τ and the nearest-μ model is
    re-solved at the new level."""
    p = problem(11, 50, k=2, size=None, skew=4.0)
    present, _ = _split(p.public_answerer, p.true_answers)
    matrix = present_incidence(p.public_answerer)
    target = p.true_answers[present]
    return plain_lp(matrix, target, 0.0, 60.0), constraint_generation(
        matrix, target, 0.0, p.public_weights, 60.0, groups=p.workload.marginal_of(present))


def test_the_level_rises_above_the_floor_when_the_cells_cannot_all_be_met():
    direct, solution = level_rising()
    assert solution.lower > 0.0
    assert solution.value == pytest.approx(direct.value, abs=1e-8)


def test_an_optimal_anchor_needs_no_round():
    p = problem(12, 200)
    present, floor = _split(p.public_answerer, p.true_answers)
    matrix = present_incidence(p.public_answerer)
    best = exact(p)
    again = constraint_generation(matrix, p.true_answers[present], floor, best.weights, 60.0)
    assert again.rounds == 0 and again.value <= best.lower + TOL


def test_incidence_has_one_cell_per_marginal_in_every_column():
    p = problem(13, 300)
    matrix = present_incidence(p.public_answerer).toarray()
    assert (matrix.sum(axis=0) == p.workload.num_marginals).all()
    for q in (0, matrix.shape[0] // 2, matrix.shape[0] - 1):
        rows = p.public_answerer.rows_of(q)
        assert np.array_equal(np.flatnonzero(matrix[q]), rows)


def test_time_limit_is_reported_as_its_own_error():
    p = problem(14, 400, size=None)
    present, floor = _split(p.public_answerer, p.true_answers)
    with pytest.raises(LPTimeLimitError, match="not solved within"):
        constraint_generation(present_incidence(p.public_answerer), p.true_answers[present],
                              floor, p.public_weights, 1e-9)


def test_a_time_limit_returns_the_certified_interval(monkeypatch):
    p = problem(14, 400, size=None)
    present, floor = _split(p.public_answerer, p.true_answers)
    matrix, target = present_incidence(p.public_answerer), p.true_answers[present]
    exact = constraint_generation(matrix, target, floor, p.public_weights, 60.0)
    assert exact.certified and exact.value - exact.lower <= TOL
    with pytest.raises(ValueError, match="on_time_limit"):
        constraint_generation(matrix, target, floor, p.public_weights, 60.0, on_time_limit="x")
    # stopped after k restricted LPs: lower = τ ≤ f ≤ value = max error of the returned μ
    rounds = []
    solve = mixture_lp._NearestModel.solve
    def limited(self, level, time_limit):
        rounds.append(level)
        if len(rounds) > stop:
            raise mixture_lp._time_limit_error(1.0)
        return solve(self, level, time_limit)
    monkeypatch.setattr(mixture_lp._NearestModel, "solve", limited)
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)
    for stop in (0, 1, 3):
        rounds.clear()
        part = constraint_generation(matrix, target, floor, p.public_weights, 60.0,
                                     on_time_limit="interval")
        assert not part.certified and part.stopped == "time limit"
        assert floor <= part.lower <= exact.value + TOL <= part.value + 2 * TOL
        assert part.value == pytest.approx(max(np.abs(matrix @ part.weights - target).max(),
                                               floor), abs=1e-12)
    assert part.value < max(np.abs(matrix @ p.public_weights - target).max(), floor)
    # a restricted LP no HiGHS run answers ends the search the same way, or raises
    def failing(self, level, time_limit):
        raise mixture_lp.LPSolverError("best-mixture LP failed: Unknown")
    monkeypatch.setattr(mixture_lp._NearestModel, "solve", failing)
    part = constraint_generation(matrix, target, floor, p.public_weights, 60.0,
                                 on_time_limit="interval")
    assert not part.certified and part.lower == floor
    assert part.stopped == "best-mixture LP failed: Unknown"
    with pytest.raises(mixture_lp.LPSolverError):
        constraint_generation(matrix, target, floor, p.public_weights, 60.0)


def test_progress_reports_a_tightening_interval(monkeypatch):
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)
    p = problem(14, 400, size=None)
    present, floor = _split(p.public_answerer, p.true_answers)
    matrix, target = present_incidence(p.public_answerer), p.true_answers[present]
    seen = []
    solution = constraint_generation(matrix, target, floor, p.public_weights, 60.0,
                                     progress=seen.append)
    assert len(seen) == solution.rounds + 1
    lowers, uppers = [i.lower for i in seen], [i.value for i in seen]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True)
    assert seen[-1].certified and seen[-1].value == solution.value


class _StatusSequence:
    """A stand-in HiGHS model whose runs end in the given statuses, one per run."""

    def __init__(self, *statuses):
        self.statuses, self.cleared, self.limits, self.presolve = list(statuses), 0, [], []
        self.solver = []

    def setOptionValue(self, name, value):
        if name == "time_limit":
            self.limits.append(value)
        if name == "presolve":
            self.presolve.append(value)
        if name == "solver":
            self.solver.append(value)
        if name == "simplex_iteration_limit":
            self.pivots = value

    def run(self):
        self.status = self.statuses.pop(0)

    def getModelStatus(self):
        return self.status

    def clearSolver(self):
        self.cleared += 1

    def modelStatusToString(self, status):
        return str(status)

    def getRunTime(self):
        return 0.0


def test_an_unknown_status_is_solved_again_from_scratch():
    import highspy
    status = highspy.HighsModelStatus
    model = _StatusSequence(status.kUnknown, status.kOptimal)
    assert mixture_lp._run(model, 10.0) == status.kOptimal and model.cleared == 1
    assert 0 < model.limits[1] <= 10.0 and model.presolve == ["off", "choose"]
    # an infeasible model that HiGHS left Unknown is reported infeasible by the second run
    infeasible = _StatusSequence(status.kUnknown, status.kInfeasible)
    assert mixture_lp._run(infeasible, 10.0) == status.kInfeasible
    # Unknown twice: the interior-point method decides (met at paper scale: proved infeasible)
    twice = _StatusSequence(status.kUnknown, status.kUnknown, status.kInfeasible)
    assert mixture_lp._run(twice, 10.0) == status.kInfeasible and twice.cleared == 2
    assert twice.presolve == ["off", "choose"] and twice.solver == ["ipm", "choose"]
    with pytest.raises(mixture_lp.LPSolverError, match="LP failed"):
        mixture_lp._run(_StatusSequence(status.kUnknown, status.kUnknown, status.kUnknown), 10.0)
    with pytest.raises(LPTimeLimitError):
        mixture_lp._run(_StatusSequence(status.kUnknown, status.kUnknown), 0.0)


def test_each_run_gets_its_own_time_limit():
    # HiGHS checks time_limit against the model's run clock, the sum of all its runs: a limit of
    # t seconds for the next run is that clock plus t (else warm restarts get ever less time)
    import highspy
    p = problem(14, 400, size=None)
    present, floor = _split(p.public_answerer, p.true_answers)
    model = mixture_lp._LevelModel(present_incidence(p.public_answerer),
                                   p.true_answers[present], floor)
    model.solve(np.arange(present.size), 60.0)
    before = model.highs.getRunTime()
    assert before > 0
    assert mixture_lp._run(model.highs, 5.0) == highspy.HighsModelStatus.kOptimal
    status, limit = model.highs.getOptionValue("time_limit")
    assert limit == pytest.approx(before + 5.0)


def test_a_warm_restart_stopped_by_its_time_limit_leaves_no_pivot_budget_behind():
    import highspy
    model = _StatusSequence(highspy.HighsModelStatus.kTimeLimit)
    with pytest.raises(LPTimeLimitError):
        mixture_lp._run_warm(model, 10.0, rows=3)
    assert model.pivots == mixture_lp._MAX_PIVOTS


@pytest.mark.parametrize("failure", ["kSolveError", "kPresolveError", "kPostsolveError"])
def test_a_solver_error_is_solved_again_from_scratch_then_reported(failure):
    import highspy
    status = highspy.HighsModelStatus
    model = _StatusSequence(getattr(status, failure), status.kOptimal)
    assert mixture_lp._run(model, 10.0) == status.kOptimal and model.cleared == 1
    assert model.presolve == ["off", "choose"]
    assert model.solver == []
    with pytest.raises(mixture_lp.LPSolverError, match="LP failed"):
        mixture_lp._run(_StatusSequence(getattr(status, failure), status.kSolveError,
                                        status.kSolveError), 10.0)


def test_the_engine_operator_gives_the_matrix_solution(monkeypatch):
    p = problem(15, 300)
    present, floor = _split(p.public_answerer, p.true_answers)
    matrix, target = present_incidence(p.public_answerer), p.true_answers[present]
    operator = SupportIncidence(p.public_answerer)
    rng = np.random.default_rng(0)
    mu, g = rng.random(matrix.shape[1]), rng.standard_normal(matrix.shape[0])
    np.testing.assert_allclose(operator @ mu, matrix @ mu, rtol=1e-12)
    np.testing.assert_allclose(operator.T @ g, matrix.T @ g, rtol=1e-12, atol=1e-12)
    cells = np.array([0, 5, matrix.shape[0] - 1])
    assert (operator[cells] != matrix[cells]).nnz == 0
    a = constraint_generation(matrix, target, floor, p.public_weights, 60.0)
    b = constraint_generation(operator, target, floor, p.public_weights, 60.0)
    assert b.certified and b.value == pytest.approx(a.value, abs=1e-9)
    # a tight non-zero budget per round: more rounds, the same certified value
    sizes = matrix.getnnz(axis=1)
    cells = np.arange(matrix.shape[0])
    excess = np.linspace(0.0, 1.0, cells.size)
    kept = mixture_lp._within_nonzeros(cells, excess, sizes, int(sizes[-3:].sum()))
    assert np.array_equal(kept, cells[-3:])
    assert mixture_lp._within_nonzeros(cells, excess, sizes, 0).size == 1
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)
    joins = []
    within = mixture_lp._within_nonzeros
    monkeypatch.setattr(mixture_lp, "_within_nonzeros", lambda *args: joins.append(args[-1])
                        or within(*args))
    c = constraint_generation(operator, target, floor, p.public_weights, 60.0,
                              join_nonzeros=3 * int(sizes.max()))
    assert c.certified and c.value == pytest.approx(a.value, abs=1e-9)
    assert joins and set(joins) == {3 * int(sizes.max())}


def test_a_stalled_warm_restart_is_solved_afresh(monkeypatch):
    # with no pivot budget every warm restart stops at its limit and the round is re-solved
    monkeypatch.setattr(mixture_lp, "warm_budget", lambda rows: 0)
    monkeypatch.setattr(mixture_lp, "DESCENT_STEPS", 0)
    solves = []
    run = mixture_lp._run
    monkeypatch.setattr(mixture_lp, "_run", lambda highs, limit: solves.append(1) or run(highs,
                                                                                        limit))
    p = problem(8, 500, size=None)
    plain, _ = best_mixture_lp(p.public_answerer, p.true_answers)
    solution = exact(p)
    assert solution.rounds >= 2 and len(solves) >= 2 * solution.rounds - 1
    assert solution.value == pytest.approx(plain, abs=1e-8)
    assert solution.lower <= solution.value <= solution.lower + TOL


def test_the_level_lp_restarts_within_a_pivot_budget_too(monkeypatch):
    # the restricted level LP is re-solved from its last basis as cells join; a restart past its
    # pivot budget (here none) is solved from scratch (on liu2021's m = 10,000 mixture LP a warm
    # restart crept for minutes where a fresh solve takes 3 s), with the same optimum
    levels, warm = [], []
    init, run_warm = mixture_lp._LevelModel.__init__, mixture_lp._run_warm
    monkeypatch.setattr(mixture_lp._LevelModel, "__init__",
                        lambda self, *args: init(self, *args) or levels.append(self))
    monkeypatch.setattr(mixture_lp, "_run_warm", lambda highs, limit, rows: warm.append(highs)
                        or run_warm(highs, limit, rows))
    monkeypatch.setattr(mixture_lp, "warm_budget", lambda rows: 0)
    direct, solution = level_rising()
    assert levels and any(highs is levels[0].highs for highs in warm)
    assert solution.lower > 0.0 and solution.value == pytest.approx(direct.value, abs=1e-8)


def test_the_descent_certifies_the_floor_without_an_lp():
    p = problem(1, 150, 3)
    _, floor = _split(p.public_answerer, p.true_answers)
    plain, _ = best_mixture_lp(p.public_answerer, p.true_answers)
    solution = exact(p)
    assert plain == pytest.approx(floor, abs=1e-12)
    assert solution.rounds == 0 and solution.working_cells == 0
    assert solution.lower == floor and floor <= solution.value <= floor + TOL
    assert solution.active_cells >= 1     # the absent cell(s) at the floor


@pytest.mark.parametrize("steps", [0, 3, 100])
@pytest.mark.parametrize("seed,skew", [(15, 1.5), (16, 4.0)])
def test_any_descent_length_reaches_the_plain_lp(seed, skew, steps):
    p = problem(seed, 80, k=3, size=None, skew=skew)
    present, _ = _split(p.public_answerer, p.true_answers)
    matrix, target = present_incidence(p.public_answerer), p.true_answers[present]
    direct = plain_lp(matrix, target, 0.0, 60.0)
    solution = constraint_generation(matrix, target, 0.0, p.public_weights, 60.0,
                                     groups=p.workload.marginal_of(present), descent_steps=steps)
    assert solution.value == pytest.approx(direct.value, abs=1e-8)
    assert solution.lower <= solution.value <= solution.lower + TOL


def test_the_descent_never_claims_a_goal_below_the_optimum():
    p = problem(11, 50, k=2, size=None, skew=4.0)
    present, _ = _split(p.public_answerer, p.true_answers)
    matrix, target = present_incidence(p.public_answerer), p.true_answers[present]
    optimum = plain_lp(matrix, target, 0.0, 60.0).value
    mu, reached = penalty_descent(matrix, target, 0.9 * optimum, p.public_weights, 200)
    assert not reached and np.abs(matrix @ mu - target).max() > 0.9 * optimum
    mu, reached = penalty_descent(matrix, target, 1.5 * optimum, p.public_weights, 2000)
    assert reached and np.abs(matrix @ mu - target).max() <= 1.5 * optimum


def test_the_simplex_projection_is_the_nearest_point():
    rng = np.random.default_rng(17)
    for v in (rng.normal(size=50), rng.random(7) * 3, np.full(4, 0.25)):
        mu = project_simplex(v)
        assert mu.min() >= 0 and mu.sum() == pytest.approx(1.0, abs=1e-12)
        # KKT: mu = max(v − θ, 0) with one θ for every coordinate
        theta = (v - mu)[mu > 0]
        assert np.ptp(theta) < 1e-12 and (v[mu == 0] <= theta[0] + 1e-12).all()


def test_a_solve_prints_nothing(capfd):
    # a fresh interpreter: HiGHS prints its banner once per process, at the first model
    code = ("from test_algorithms_mixture_lp import problem, exact\n"
            "from pubpriv_core.algorithms import mixture_lp\n"
            "mixture_lp.DESCENT_STEPS = 0\n"
            "assert exact(problem(8, 500, size=None)).rounds >= 1\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
