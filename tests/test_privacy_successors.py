"""The mechanism calls of PEP, PEP^Pub, GEM, GEM^Pub and RAP^softmax against their stated
calibration (Liu, Vietri & Wu 2021; :mod:`pubpriv_core.algorithms.adaptive_measurements`):

ρ = ρ(ε, δ) (CKS); S = T·s selections; ε0 = sqrt(2ρ/(S(α² + (1 − α)²))); each selection is the
exponential mechanism at 2αε0 with sensitivity 1/n on the scores max_cells |q(D) − q(A)| of the
unmeasured marginals (−∞ for measured ones), charged (2αε0)²/8; each measurement adds
N(0, σ²), σ = (√2/n)/((1 − α)ε0), to the selected marginal's exact answers, charged
(√2/n)²/(2σ²); the charges pay the calls' real costs (replace-one: a marginal's max error moves by
1/n, a whole marginal by √2/n in L2) and add up to ρ. Plus: the released answers depend on the
private data only through the mechanisms' outputs, the measurement noise has the stated law, and
the sanity checks of the spec (large ε).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pubpriv_core import privacy
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms import gem
from pubpriv_core.algorithms.adaptive_measurements import RoundBudget
from pubpriv_core.privacy import private_data
from pubpriv_core.privacy.private_data import marginal_scores
from pubpriv_core.algorithms.best_mixture import best_mixture_lp
from pubpriv_core.data.domain import Domain
from pubpriv_core.queries import MarginalWorkload
from test_privacy_call_sites import KS_P_MIN, correlated, log  # noqa: F401  (log: fixture)

ALGOS = ("pep", "pep_pub", "gem", "gem_pub", "rap")
#: small models so that a run takes well under a second
FAST = {"pep": {}, "pep_pub": {},
        "gem": {"K": 64, "embedding": 16, "hidden": 16, "max_iters": 5},
        "gem_pub": {"K": 64, "embedding": 16, "hidden": 16, "max_iters": 5,
                    "pretrain_steps": 20},
        "rap": {"K": 64, "max_iters": 5}}
PER_ROUND = {"rap": 2}


@pytest.fixture(scope="module")
def problem() -> ReleaseProblem:
    """n = 3000 private rows, a 500-row public sample, all 10 2-way marginals of 5 attributes."""
    domain = Domain(list("abcde"), [3, 4, 2, 5, 3])
    private = correlated(3000, domain, seed=11)
    public = correlated(500, domain, seed=12)
    support, counts = np.unique(public.records, axis=0, return_counts=True)
    workload = MarginalWorkload.random(domain, 2, size=None, seed=0)
    return ReleaseProblem(private, workload, support, counts / counts.sum(), len(public))


def stated(eps: float, delta: float, selections: int, alpha: float, n: int) -> dict:
    rho = privacy.rho_from_eps(eps, delta)
    eps0 = math.sqrt(2 * rho / (selections * (alpha ** 2 + (1 - alpha) ** 2)))
    return {"rho": rho, "eps0": eps0, "select_eps": 2 * alpha * eps0,
            "sigma": math.sqrt(2) / (n * (1 - alpha) * eps0)}


def run(problem, log, algo, T=4, eps=1.0, seed=0, **options):
    delta = 1.0 / problem.n ** 2
    log.calls.clear()
    log.charges.clear()
    release = run_algorithm(algo, problem, eps=eps, delta=delta, T=T,
                            rng=np.random.default_rng(seed), **{**FAST[algo], **options})
    return release, delta


@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_calls_follow_the_calibration_and_the_ledger(problem, log, algo, alpha):
    T, n, s = 4, problem.n, PER_ROUND.get(algo, 1)
    release, delta = run(problem, log, algo, T=T, alpha=alpha)
    want = stated(1.0, delta, T * s, alpha, n)
    picks, noise = log.named("exponential_mechanism"), log.named("gaussian_mechanism")
    assert len(picks) == len(noise) == T * s and len(log.calls) == 2 * T * s
    offsets = problem.workload.offsets
    chosen = []
    for pick, measure in zip(picks, noise):
        assert pick["eps"] == pytest.approx(want["select_eps"], rel=1e-12)
        assert pick["sensitivity"] == pytest.approx(1.0 / n, rel=1e-12)
        scores = np.asarray(pick["input"])
        assert np.flatnonzero(np.isneginf(scores)).tolist() == sorted(chosen)
        w = int(pick["output"])
        assert np.isfinite(scores[w])
        chosen.append(w)
        assert measure["sigma"] == pytest.approx(want["sigma"], rel=1e-12)
        np.testing.assert_array_equal(measure["input"],
                                      problem.true_answers[offsets[w]:offsets[w + 1]])
    assert release.trace["marginals"] == chosen
    for measure, kept in zip(noise, release.trace["measured"]):   # released: clipped to [0, 1]
        np.testing.assert_array_equal(kept, np.clip(measure["output"], 0.0, 1.0))
    assert release.trace["eps0"] == pytest.approx(want["eps0"], rel=1e-12)
    assert [label for label, _ in log.charges] == ["select", "measure"] * (T * s)
    for (label, charged), call in zip(log.charges, log.calls):
        if call["name"] == "exponential_mechanism":
            real = (call["eps"] * (1.0 / n) / call["sensitivity"]) ** 2 / 8.0
        else:
            real = (math.sqrt(2) / n) ** 2 / (2.0 * call["sigma"] ** 2)
        assert charged >= real * (1 - 1e-12), label
    spent = math.fsum(rho for _, rho in log.charges)
    assert spent == pytest.approx(want["rho"], rel=1e-9)
    assert release.rho == pytest.approx(spent, rel=1e-12)
    assert release.eps <= 1.0 * (1 + 1e-9)


@pytest.mark.parametrize("algo", ["pep", "pep_pub"])
def test_scores_are_the_marginals_max_errors_of_the_model(problem, log, algo):
    """Round 1's scores are max_cells |q(D) − q(A_0)| per marginal on the starting histogram
    (PEP: uniform on X; PEP^Pub: the public distribution)."""
    run(problem, log, algo, T=2)
    first = np.asarray(log.named("exponential_mechanism")[0]["input"])
    if algo == "pep_pub":
        start = problem.public_answerer.expand(problem.public_answerer.answer(
            problem.public_weights))
    else:
        start = problem.domain_answerer.answer(np.full(problem.private.domain.size(),
                                                       1.0 / problem.private.domain.size()))
    expected = np.maximum.reduceat(np.abs(problem.true_answers - start),
                                   problem.workload.offsets[:-1])
    np.testing.assert_allclose(first, expected, atol=1e-12)


def test_marginal_scores_on_a_tiny_domain():
    """The pure score function enumerated by hand: 2 marginals of 2 and 3 cells (the largest
    gap of the second is negative)."""
    offsets = np.array([0, 2, 5])
    data = np.array([0.5, 0.5, 0.2, 0.3, 0.5])
    model = np.array([0.4, 0.6, 0.5, 0.25, 0.25])
    np.testing.assert_allclose(marginal_scores(offsets, data, model, np.array([False, False])),
                               [0.1, 0.3])
    out = marginal_scores(offsets, data, model, np.array([True, False]))
    assert out[0] == -np.inf and out[1] == pytest.approx(0.3)


def test_round_budget_spends_rho_exactly():
    for rho, S, alpha, n in [(0.01, 50, 0.5, 1000), (2.0, 7, 0.2, 31), (0.3, 100, 0.9, 10 ** 5)]:
        b = RoundBudget(rho, S, alpha, n)
        per = privacy.bounded_range_zcdp(b.select_eps) + \
            privacy.gaussian_zcdp(b.sigma, math.sqrt(2) / n)
        assert S * per == pytest.approx(rho, rel=1e-12)
        assert b.select_eps ** 2 / 8 == pytest.approx((alpha * b.eps0) ** 2 / 2, rel=1e-12)


@pytest.mark.parametrize("algo", ALGOS)
def test_release_depends_on_private_data_only_through_the_mechanisms(problem, monkeypatch, algo):
    """With the mechanisms' outputs fixed, two different private datasets give the same
    release: no step reads the private answers except through selection and measurement."""
    other = correlated(problem.n, problem.private.domain, seed=99)
    twin = ReleaseProblem(other, problem.workload, problem.public_support,
                          problem.public_weights, problem.public_rows)
    assert not np.allclose(twin.true_answers, problem.true_answers)
    picks = iter([3, 7, 1, 8, 0, 5, 2, 9])

    def fixed_pick(scores, *args, **kwargs):
        return next(picks)

    def fixed_noise(values, sigma, rng):
        return np.linspace(0.05, 0.6, np.size(values))

    monkeypatch.setattr(private_data, "exponential_mechanism", fixed_pick)
    monkeypatch.setattr(private_data, "gaussian_mechanism", fixed_noise)
    releases = []
    for p in (problem, twin):
        picks = iter([3, 7, 1, 8, 0, 5, 2, 9])
        releases.append(run_algorithm(algo, p, eps=1.0, delta=1.0 / p.n ** 2, T=2,
                                      rng=np.random.default_rng(4), **FAST[algo]))
    np.testing.assert_array_equal(releases[0].answers, releases[1].answers)


@pytest.mark.parametrize("algo", ["pep_pub", "gem"])
def test_measurement_residuals_have_the_stated_law(problem, algo):
    """Measured cells minus the true cells, over runs, standardised by σ: N(0, 1) (cells 8σ
    inside [0, 1], so the clip acts with probability < 1e−15)."""
    residuals = []
    sigma = stated(1.0, 1.0 / problem.n ** 2, 4, 0.5, problem.n)["sigma"]
    for seed in range(20):
        release = run_algorithm(algo, problem, eps=1.0, delta=1.0 / problem.n ** 2, T=4,
                                rng=np.random.default_rng(seed), **FAST[algo])
        for w, values in zip(release.trace["marginals"], release.trace["measured"]):
            truth = problem.true_answers[problem.workload.offsets[w]:
                                         problem.workload.offsets[w + 1]]
            keep = (truth > 8 * sigma) & (truth < 1 - 8 * sigma)
            residuals.extend((values[keep] - truth[keep]) / sigma)
    assert len(residuals) >= 200
    assert stats.kstest(residuals, "norm").pvalue > KS_P_MIN


# ----------------------------------------------------------------------------- sanity (spec)
def test_gem_fits_the_measured_marginals_at_large_budget(problem):
    """ε = 1000 (noise σ ≈ 1e−5), every marginal measured: GEM's answers on the measured cells
    end close to the measurements."""
    release = run_algorithm("gem", problem, eps=1000.0, delta=1.0 / problem.n ** 2, T=10,
                            rng=np.random.default_rng(0),
                            **(FAST["gem"] | {"lr": 1e-2, "max_iters": 100}),
                            ema_error_factor=0.05)
    assert release.errors(problem.true_answers)["max_error"] < 0.01


def test_pep_pub_reaches_the_best_mixture_error_of_its_support(problem):
    """ε = 1000, every marginal measured, many projection steps: PEP^Pub's max error is within
    0.002 of the support's exact best mixture error (Liu et al. 2021, Def. 4.1)."""
    best, _ = best_mixture_lp(problem.public_answerer, problem.true_answers)
    release = run_algorithm("pep_pub", problem, eps=1000.0, delta=1.0 / problem.n ** 2, T=10,
                            rng=np.random.default_rng(0), max_iters=3000)
    assert best <= release.errors(problem.true_answers)["max_error"] + 1e-9
    assert release.errors(problem.true_answers)["max_error"] <= best + 0.002


def test_gem_pub_with_the_private_data_as_public_starts_at_its_error(problem):
    """Public = private: the pre-trained generator's private error is its public error, the
    error of the public data alone is 0, and pre-training brings the generator near it."""
    support, counts = np.unique(problem.private.records, axis=0, return_counts=True)
    same = ReleaseProblem(problem.private, problem.workload, support, counts / counts.sum(),
                          problem.n)
    opts = gem.GEMPubOptions(**FAST["gem"], pretrain_steps=200, pretrain_lr=1e-2)
    params, z, info = gem.pretrain(same, opts)
    model = gem.GeneratorModel(same, opts, 1, params, z)
    start_error = float(np.abs(model.answers() - same.true_answers).max())
    assert start_error == pytest.approx(info["pretrain_public_max_error"], abs=1e-6)
    public_alone = same.public_answerer.expand(same.public_answerer.answer(same.public_weights))
    assert np.abs(public_alone - same.true_answers).max() < 1e-12
    assert start_error < 0.02
