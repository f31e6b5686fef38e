"""PMW^Pub, MWEM, public-only and best mixture error on small random problems."""
import copy

import numpy as np
import pytest

from pubpriv_core import privacy
from pubpriv_core.algorithms.base import Release
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.best_mixture import best_mixture_lp, best_mixture_mw
from pubpriv_core.algorithms.multiplicative_weights import MWState
from pubpriv_core.algorithms.mwem import DomainTooLargeError
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload, answer_histogram


def correlated_data(n: int, seed: int) -> Dataset:
    """Records whose attributes all follow a shared latent class, plus noise."""
    rng = np.random.default_rng(seed)
    domain = Domain(list("abcdef"), [3, 4, 2, 5, 3, 4])
    latent = rng.integers(0, 3, n)
    cols = [(latent + (rng.random(n) < 0.3) * rng.integers(0, s, n)) % s for s in domain.shape]
    return Dataset(np.column_stack(cols), domain)


def problem_from(private: Dataset, public: Dataset, k: int = 3, size: int | None = 12):
    support, counts = np.unique(public.records, axis=0, return_counts=True)
    workload = MarginalWorkload.random(private.domain, k, size=size, seed=0)
    return ReleaseProblem(private, workload, support, counts / counts.sum(), len(public))


def biased_public(private: Dataset, m: int, seed: int) -> Dataset:
    """Public rows drawn with replacement, 80% of them with attribute a == 0 (true share ≈ 1/3)."""
    rng = np.random.default_rng(seed)
    a = private.column("a")
    zero, other = np.flatnonzero(a == 0), np.flatnonzero(a != 0)
    pick_zero = rng.random(m) < 0.8
    rows = np.where(pick_zero, rng.choice(zero, m), rng.choice(other, m))
    return private.take(rows)


@pytest.fixture(scope="module")
def private():
    return correlated_data(4000, seed=1)


@pytest.fixture(scope="module")
def biased_problem(private):
    return problem_from(private, biased_public(private, 600, seed=2))


@pytest.mark.parametrize("algo", ["pmwpub", "mwem"])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_privacy_spent_equals_the_budget(biased_problem, algo, eps):
    delta = 1.0 / biased_problem.n ** 2
    release = run_algorithm(algo, biased_problem, eps=eps, delta=delta, T=20,
                            rng=np.random.default_rng(0))
    assert release.rho == pytest.approx(privacy.rho_from_eps(eps, delta), rel=1e-9)
    assert release.eps == pytest.approx(eps, rel=1e-6)
    assert release.eps <= eps * (1 + 1e-9)
    assert len(release.trace["queries"]) == 20


def test_quality_check_is_charged_to_the_same_budget(biased_problem):
    delta = 1e-6
    release = run_algorithm("pmwpub", biased_problem, eps=1.0, delta=delta, T=10,
                            rng=np.random.default_rng(0), quality_check_eps=0.05)
    assert release.privacy.by_label["quality_check"] == pytest.approx(0.05 ** 2 / 2)
    assert release.rho == pytest.approx(privacy.rho_from_eps(1.0, delta), rel=1e-9)
    assert np.isfinite(release.trace["best_mixture_error_dp"])


def test_pmwpub_beats_public_only_on_a_biased_source(biased_problem):
    kwargs = dict(eps=1.0, delta=1e-6, T=30)
    public_only = run_algorithm("public_only", biased_problem, rng=None, **kwargs)
    errors = [run_algorithm("pmwpub", biased_problem, rng=np.random.default_rng(s), **kwargs)
              .errors(biased_problem.true_answers)["max_error"] for s in range(3)]
    baseline = public_only.errors(biased_problem.true_answers)["max_error"]
    assert public_only.rho == 0.0
    assert np.mean(errors) < 0.7 * baseline


def test_pmwpub_with_private_data_as_public_source_beats_biased_public(private, biased_problem):
    own = problem_from(private, private)
    kwargs = dict(eps=1.0, delta=1e-6, T=30, rng=np.random.default_rng(0))
    own_error = run_algorithm("pmwpub", own, **kwargs).errors(own.true_answers)["max_error"]
    kwargs["rng"] = np.random.default_rng(0)
    biased_error = run_algorithm("pmwpub", biased_problem, **kwargs) \
        .errors(biased_problem.true_answers)["max_error"]
    assert own_error < 0.01 < biased_error


def test_huge_eps_approaches_the_best_mixture_error(private):
    rng = np.random.default_rng(5)
    public = private.take(rng.integers(0, len(private), 80))
    problem = problem_from(private, public)
    floor, _ = best_mixture_lp(problem.public_answerer, problem.true_answers)
    release = run_algorithm("pmwpub", problem, eps=1e4, delta=1e-6, T=300,
                            rng=np.random.default_rng(0))
    errors = release.errors(problem.true_answers)
    best = min(errors["max_error"], errors["last_max_error"])
    assert floor > 0.01
    assert floor - 1e-9 <= best <= floor + 0.02


def test_lp_is_below_mw_estimate_and_zero_when_support_covers_private(private, biased_problem):
    lp, mu = best_mixture_lp(biased_problem.public_answerer, biased_problem.true_answers)
    mw, _ = best_mixture_mw(biased_problem.public_answerer, biased_problem.true_answers,
                            biased_problem.public_weights)
    assert 0 <= lp <= mw + 1e-12
    assert mu.sum() == pytest.approx(1) and (mu >= 0).all()
    answerer = biased_problem.public_answerer
    achieved = np.abs(answerer.expand(answerer.answer(mu)) - biased_problem.true_answers)
    assert achieved.max() == pytest.approx(lp, abs=1e-7)
    full = problem_from(private, private)
    assert best_mixture_lp(full.public_answerer, full.true_answers)[0] == pytest.approx(0, abs=1e-9)


def test_best_mixture_release_reports_both_routes(biased_problem):
    release = run_algorithm("best_mixture", biased_problem, eps=1.0, delta=1e-6, T=1, rng=None)
    assert release.rho == 0.0
    assert release.trace["lp_value"] <= release.trace["mw_value"]
    assert release.errors(biased_problem.true_answers)["max_error"] == \
        pytest.approx(release.trace["lp_value"], abs=1e-7)


def test_mwem_refuses_a_too_large_domain_in_one_line(biased_problem):
    with pytest.raises(DomainTooLargeError) as info:
        run_algorithm("mwem", biased_problem, eps=1.0, delta=1e-6, T=5,
                      rng=np.random.default_rng(0), max_domain_size=100)
    message = str(info.value)
    assert "\n" not in message and "pmwpub" in message and "1.44e+03" in message


def test_mwem_error_falls_with_rounds_at_large_eps(biased_problem):
    errors = [run_algorithm("mwem", biased_problem, eps=100.0, delta=1e-6, T=T,
                            rng=np.random.default_rng(0)).errors(biased_problem.true_answers)
              ["last_max_error"] for T in (5, 200)]
    assert errors[1] < 0.5 * errors[0]


@pytest.mark.parametrize("options", [dict(selection="exponential"), dict(measurement="laplace"),
                                     dict(replay=False), dict(init="uniform"),
                                     dict(selection="exponential_bounded_range")])
def test_options_run_and_spend_the_budget(biased_problem, options):
    release = run_algorithm("pmwpub", biased_problem, eps=0.5, delta=1e-6, T=10,
                            rng=np.random.default_rng(0), **options)
    assert release.rho == pytest.approx(privacy.rho_from_eps(0.5, 1e-6), rel=1e-9)


@pytest.mark.parametrize("bad, match", [(dict(eps=-1.0), "eps"), (dict(delta=1.5), "delta"),
                                        (dict(T=0), "T"), (dict(selection="x"), "selection")])
def test_bad_inputs_are_refused(biased_problem, bad, match):
    kwargs = dict(eps=1.0, delta=1e-6, T=5, rng=np.random.default_rng(0)) | bad
    with pytest.raises(ValueError, match=match):
        run_algorithm("pmwpub", biased_problem, **kwargs)


def test_same_seed_same_release(biased_problem):
    runs = [run_algorithm("pmwpub", biased_problem, eps=0.5, delta=1e-6, T=15,
                          rng=np.random.default_rng(42)) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].answers, runs[1].answers)


@pytest.mark.parametrize("engine", ["public", "domain"])
@pytest.mark.parametrize("limit", [None, 0, 10 ** 9])
def test_incremental_answers_match_recomputation(biased_problem, engine, limit):
    """Lazy answers (scattered changes, full recomputation, or a mix) equal a fresh answer."""
    if engine == "public":
        answerer, init = biased_problem.public_answerer, biased_problem.public_weights
    else:
        answerer = biased_problem.domain_answerer
        init = np.random.default_rng(4).dirichlet(np.ones(answerer.size))
    if limit is not None:
        answerer = copy.copy(answerer)
        answerer.incremental_limit = limit
    state = MWState(answerer, init)
    rng = np.random.default_rng(3)
    for q in rng.choice(answerer.num_queries, 40):
        state.update(int(q), float(rng.random()))
        np.testing.assert_allclose(state.answers(), answerer.answer(state.weights()), atol=1e-12)


def test_mwem_answers_are_those_of_its_histogram(biased_problem):
    release = run_algorithm("mwem", biased_problem, eps=1.0, delta=1e-6, T=5,
                            rng=np.random.default_rng(0))
    hist = release.weights.reshape(biased_problem.private.domain.shape)
    np.testing.assert_allclose(answer_histogram(biased_problem.workload, hist), release.answers,
                               atol=1e-12)
    assert release.support is None and release.weights.size == biased_problem.private.domain.size()


def test_lp_time_limit_falls_back_to_the_mw_estimate(biased_problem):
    exact = run_algorithm("best_mixture", biased_problem, eps=1.0, delta=1e-6, T=1, rng=None,
                          method="lp")
    f = exact.trace["lp_value"]
    assert exact.trace["mixture_certified"] and exact.trace["mixture_upper"] == f
    assert exact.trace["mixture_lower"] == pytest.approx(f, abs=1e-9)
    alone = run_algorithm("best_mixture", biased_problem, eps=1.0, delta=1e-6, T=1, rng=None,
                          method="lp", lp_time_limit=1e-9)
    assert np.isnan(alone.trace["lp_value"]) and not alone.trace["mixture_certified"]
    # the interval held at the limit: the absent-cell floor and the anchor's max error
    assert alone.trace["mixture_lower"] <= f <= alone.trace["mixture_upper"]
    assert alone.trace["mixture_upper"] == pytest.approx(
        alone.errors(biased_problem.true_answers)["max_error"])
    release = run_algorithm("best_mixture", biased_problem, eps=1.0, delta=1e-6, T=1, rng=None,
                            method="both", lp_time_limit=1e-9)
    assert np.isnan(release.trace["lp_value"])
    assert release.trace["mixture_upper"] == min(release.trace["mw_value"],
                                                 alone.trace["mixture_upper"])
    assert release.errors(biased_problem.true_answers)["max_error"] == \
        pytest.approx(release.trace["mixture_upper"])
    mw = run_algorithm("best_mixture", biased_problem, eps=1.0, delta=1e-6, T=1, rng=None,
                       method="mw")
    assert mw.trace["mixture_upper"] == mw.trace["mw_value"] >= f >= mw.trace["mixture_lower"]


def test_a_release_runs_on_one_blas_thread(biased_problem, monkeypatch):
    """``run_algorithm`` limits BLAS to one thread for the release, and restores the caller's
    setting after it (two threads here, so the limit is seen whatever the machine's cores)."""
    import sys
    import types

    from threadpoolctl import threadpool_info, threadpool_limits

    from pubpriv_core import algorithms

    def blas_threads() -> list[int]:
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    seen = []
    probe = types.ModuleType("blas_probe")
    probe.run = lambda problem, private, **kwargs: seen.append(blas_threads()) or Release(
        "blas_probe", weights=None, answers=np.zeros(problem.workload.num_queries))
    monkeypatch.setitem(sys.modules, "blas_probe", probe)
    monkeypatch.setitem(algorithms.ALGORITHMS, "blas_probe", algorithms.Entry("blas_probe",
                                                                              "run"))
    with threadpool_limits(limits=2, user_api="blas"):
        run_algorithm("blas_probe", biased_problem, eps=1.0, delta=1e-6, T=1,
                      rng=np.random.default_rng(0))
        assert set(blas_threads()) == {2}
    assert seen and set(seen[0]) == {1}
