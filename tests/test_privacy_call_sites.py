"""The values every privacy mechanism is called with, inside PMW^Pub, MWEM, DualQuery and the
quality check, checked against the stated calibration and against the budget ledger.

Calibration (Liu et al. 2021, §4.1): ρ = ρ(ε, δ) by the CKS conversion; the quality check spends
ε_f²/2 and releases f + Laplace(1/(n·ε_f)); the loop has ε0 = sqrt(2ρ')/sqrt(2T) on what remains
(ρ'), selects by permute-and-flip at ε0 with sensitivity 1/n (``exponential``: ε0;
``exponential_bounded_range``: 2·ε0) and measures with Gaussian σ = 1/(n·ε0) (``laplace``: scale
1/(n·ε0)). The ledger check pairs each charge with the call it pays for and demands that it covers
the call's real zCDP cost at sensitivity 1/n. DualQuery's draws are checked against the
exponential mechanism of its docstring and its (ε, ρ) against advanced composition.

The mechanisms are wrapped where the private data's handle looks them up
(:mod:`pubpriv_core.privacy.private_data`, the only module that calls a mechanism on private
data); a call that bypasses the wrappers makes the call counts fail.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from scipy import stats

from pubpriv_core import privacy
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms import best_mixture, dualquery
from pubpriv_core.privacy import private_data
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

WRAPPED = ("permute_and_flip", "exponential_mechanism", "gaussian_mechanism",
           "laplace_mechanism")
KS_P_MIN = 1e-3    # fixed seeds: the correct code gives p well above this


@dataclass
class Log:
    """Mechanism calls (name, parameters, input, output) and budget charges, in order."""

    calls: list = field(default_factory=list)
    charges: list = field(default_factory=list)

    def named(self, name: str) -> list[dict]:
        return [c for c in self.calls if c["name"] == name]


@pytest.fixture
def log(monkeypatch) -> Log:
    """Record every mechanism call and every ZCDPBudget charge, passing them through."""
    record = Log()
    for name in WRAPPED:
        monkeypatch.setattr(private_data, name, _wrap(name, getattr(private_data, name), record))
    charge = privacy.ZCDPBudget.charge

    def recorded_charge(self, rho, label=""):
        record.charges.append((label, float(rho)))
        return charge(self, rho, label)

    monkeypatch.setattr(privacy.ZCDPBudget, "charge", recorded_charge)
    return record


def _wrap(name, mechanism, record: Log):
    def wrapper(values, *args, **kwargs):
        out = mechanism(values, *args, **kwargs)
        params = dict(zip(_PARAMETERS[name], args))
        params.update({k: v for k, v in kwargs.items() if k in _PARAMETERS[name]})
        record.calls.append({"name": name, **params, "input": values, "output": out})
        return out
    return wrapper


_PARAMETERS = {"permute_and_flip": ("eps", "sensitivity"),
               "exponential_mechanism": ("eps", "sensitivity"),
               "report_noisy_max": ("eps", "sensitivity"),
               "gaussian_mechanism": ("sigma",), "laplace_mechanism": ("scale",)}


def real_cost(call: dict, n: int) -> float:
    """zCDP cost of one recorded call when the true sensitivity is 1/n (counting queries)."""
    if call["name"] == "gaussian_mechanism":
        return (1.0 / n) ** 2 / (2.0 * call["sigma"] ** 2)
    if call["name"] == "laplace_mechanism":
        return ((1.0 / n) / call["scale"]) ** 2 / 2.0
    eps = call["eps"] * (1.0 / n) / call["sensitivity"]   # ε-DP at the true sensitivity
    if call["name"] == "exponential_mechanism":
        return eps ** 2 / 8.0       # bounded range (Cesar & Rogers 2021)
    return eps ** 2 / 2.0


def correlated(n: int, domain: Domain, seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    latent = rng.integers(0, 3, n)
    cols = [(latent + (rng.random(n) < 0.3) * rng.integers(0, s, n)) % s for s in domain.shape]
    return Dataset(np.column_stack(cols), domain)


@pytest.fixture(scope="module")
def problem() -> ReleaseProblem:
    """n = 4000 private rows, a 600-row public sample, 2-way marginals on a 1440-cell domain."""
    domain = Domain(list("abcde"), [3, 4, 2, 5, 6])
    private = correlated(4000, domain, seed=1)
    public = correlated(600, domain, seed=2)
    support, counts = np.unique(public.records, axis=0, return_counts=True)
    workload = MarginalWorkload.random(domain, 2, size=None, seed=0)
    return ReleaseProblem(private, workload, support, counts / counts.sum(), len(public))


def stated_eps0(eps: float, delta: float, T: int, eps_f: float = 0.0) -> float:
    rho = privacy.rho_from_eps(eps, delta) - eps_f ** 2 / 2.0
    return math.sqrt(2.0 * rho) / math.sqrt(2.0 * T)


SELECTION_EPS = {"permute_and_flip": ("permute_and_flip", 1.0),
                 "exponential": ("exponential_mechanism", 1.0),
                 "exponential_bounded_range": ("exponential_mechanism", 2.0)}


def run(problem, log, algo, eps=1.0, T=15, seed=0, **options):
    delta = 1.0 / problem.n ** 2
    log.calls.clear()
    log.charges.clear()
    release = run_algorithm(algo, problem, eps=eps, delta=delta, T=T,
                            rng=np.random.default_rng(seed), **options)
    return release, delta


def check_loop_calibration(log: Log, n: int, eps0: float, T: int, selection: str,
                           measurement: str) -> None:
    name, factor = SELECTION_EPS[selection]
    picks = log.named(name)
    assert len(picks) == T
    for call in picks:
        assert call["eps"] == pytest.approx(factor * eps0, rel=1e-12)
        assert call["sensitivity"] == pytest.approx(1.0 / n, rel=1e-12)
    noise = log.named(f"{measurement}_mechanism")
    assert len(noise) == T
    key = "sigma" if measurement == "gaussian" else "scale"
    for call in noise:
        assert call[key] == pytest.approx(1.0 / (n * eps0), rel=1e-12)


def check_ledger(log: Log, n: int, rho_total: float, release) -> None:
    """Each charge pays at least the real cost of its call; the charges add up to the budget."""
    assert len(log.charges) == len(log.calls)
    for (label, charged), call in zip(log.charges, log.calls):
        assert charged >= real_cost(call, n) * (1 - 1e-12), (label, call["name"])
    spent = math.fsum(rho for _, rho in log.charges)
    assert spent == pytest.approx(rho_total, rel=1e-9)
    assert spent <= rho_total * (1 + 1e-9)
    assert release.rho == pytest.approx(spent, rel=1e-12)


@pytest.mark.parametrize("algo", ["pmwpub", "mwem"])
@pytest.mark.parametrize("selection", list(SELECTION_EPS))
@pytest.mark.parametrize("measurement", ["gaussian", "laplace"])
def test_loop_calls_follow_the_calibration_and_the_ledger(problem, log, algo, selection,
                                                          measurement):
    release, delta = run(problem, log, algo, selection=selection, measurement=measurement)
    eps0 = stated_eps0(1.0, delta, 15)
    assert release.trace["eps0"] == pytest.approx(eps0, rel=1e-12)
    check_loop_calibration(log, problem.n, eps0, 15, selection, measurement)
    check_ledger(log, problem.n, privacy.rho_from_eps(1.0, delta), release)
    assert [label for label, _ in log.charges] == ["select", "measure"] * 15
    assert release.eps <= 1.0 * (1 + 1e-9)


def test_rho_is_the_cks_conversion_of_the_target():
    """ρ(ε, δ) is the largest ρ whose CKS ε is within the target (checked at the boundary)."""
    for eps, delta in [(1.0, 1 / 4000 ** 2), (0.1, 1e-10), (8.0, 1e-6)]:
        rho = privacy.rho_from_eps(eps, delta)
        assert privacy.eps_from_rho(rho, delta) <= eps
        assert privacy.eps_from_rho(rho * (1 + 1e-9), delta) > eps * (1 - 1e-6)


def test_quality_check_calls_laplace_at_one_over_n_eps_f(problem, log):
    eps_f = 0.05
    release, delta = run(problem, log, "pmwpub", quality_check_eps=eps_f)
    laplace = log.named("laplace_mechanism")
    assert len(laplace) == 1
    assert laplace[0]["scale"] == pytest.approx(1.0 / (problem.n * eps_f), rel=1e-12)
    lp_value, _ = best_mixture.best_mixture_lp(problem.public_answerer, problem.true_answers)
    assert float(laplace[0]["input"]) == pytest.approx(lp_value, abs=1e-9)
    assert release.trace["best_mixture_error_dp"] == laplace[0]["output"]
    assert log.charges[0] == ("quality_check", pytest.approx(eps_f ** 2 / 2.0, rel=1e-12))
    eps0 = stated_eps0(1.0, delta, 15, eps_f)
    check_loop_calibration(log, problem.n, eps0, 15, "permute_and_flip", "gaussian")
    check_ledger(log, problem.n, privacy.rho_from_eps(1.0, delta), release)


def handle(problem, seed: int, eps: float = 1e4, accounting: str = "zcdp"):
    """The private data's handle on a ledger large enough for many calls."""
    ledger = Ledger(eps, 1.0 / problem.n ** 2, accounting=accounting)
    return private_data.PrivateData(problem, ledger, np.random.default_rng(seed)), ledger


def test_quality_check_noise_is_laplace_of_the_stated_scale(problem):
    """400 releases of f + noise: (release − f)·n·ε_f is Laplace(1) by a KS test, each one
    charged ε_f²/2."""
    lp_value, _ = best_mixture.best_mixture_lp(problem.public_answerer, problem.true_answers)
    assert problem.best_mixture_error == pytest.approx(lp_value, abs=1e-9)
    eps_f = 0.05
    private, ledger = handle(problem, 5)
    released = [private.best_mixture_error(eps_f) for _ in range(400)]
    assert ledger.charges == [("quality_check", eps_f ** 2 / 2.0)] * 400
    residuals = (np.array(released) - lp_value) * problem.n * eps_f
    assert stats.kstest(residuals, "laplace").pvalue > KS_P_MIN


@pytest.mark.parametrize("algo", ["pmwpub", "mwem"])
@pytest.mark.parametrize("measurement, law", [("gaussian", "norm"), ("laplace", "laplace")])
def test_released_measurement_residuals_have_the_stated_law(problem, algo, measurement, law):
    """Released a_t − q_t(D̃), over runs, standardised by the stated scale 1/(n·ε0).

    Only rounds whose true answer lies 8 scales inside [0, 1] are kept: the clip to [0, 1] then
    acts with probability < 1e-6 (Gaussian) / 4e-4 (Laplace), and the choice depends on q_t alone,
    which is fixed before the noise of round t is drawn.
    """
    delta, T = 1.0 / problem.n ** 2, 40
    scale = 1.0 / (problem.n * stated_eps0(1.0, delta, T))
    residuals = []
    for seed in range(30):
        trace = run_algorithm(algo, problem, eps=1.0, delta=delta, T=T,
                              rng=np.random.default_rng(seed), measurement=measurement).trace
        truth = problem.true_answers[trace["queries"]]
        keep = (truth > 8 * scale) & (truth < 1 - 8 * scale)
        residuals.extend((np.array(trace["measurements"])[keep] - truth[keep]) / scale)
    assert len(residuals) >= 200
    assert stats.kstest(residuals, law).pvalue > KS_P_MIN


@pytest.fixture(scope="module")
def dq_problem() -> ReleaseProblem:
    domain = Domain(list("abcd"), [3, 4, 2, 5])
    return ReleaseProblem(correlated(3000, domain, seed=3), MarginalWorkload.random(domain, 2))


def test_dualquery_draws_follow_its_exponential_mechanism(dq_problem, monkeypatch):
    """Round t draws s queries from exp(ε_t·score/(2Δ_t)), ε_t = 2η(t−1)/n, Δ_t = (t−1)/n, with
    score(q) = Σ_{i<t}(q(D̃) − q(x_i)) and score(¬q) = −score(q); rebuilt from the release."""
    draws = []
    sample = private_data.PrivateData.dual_queries

    def recorded(self, counts, rounds, eta, size):
        log_weights = eta * (rounds * self._source.true_answers - counts)
        draws.append((rounds, log_weights, size))
        return sample(self, counts, rounds, eta, size)

    monkeypatch.setattr(private_data.PrivateData, "dual_queries", recorded)
    eta, samples, n = 1.5, 50, dq_problem.n
    release = run_algorithm("dualquery", dq_problem, eps=1.0, delta=1.0 / n ** 2, T=1,
                            rng=np.random.default_rng(0), eta=eta, samples=samples)
    cells = dq_problem.workload.cell_ids(release.support)
    assert len(draws) == release.iterations
    for t, (rounds, log_weights, size) in enumerate(draws, start=1):
        assert (rounds, size) == (t - 1, samples)
        counts = np.bincount(cells[:t - 1].ravel(), minlength=dq_problem.workload.num_queries)
        score = (t - 1) * dq_problem.true_answers - counts
        if t > 1:
            eps_t, sensitivity = 2 * eta * (t - 1) / n, (t - 1) / n
            np.testing.assert_allclose(log_weights, eps_t * score / (2 * sensitivity), atol=1e-9)
        else:
            np.testing.assert_allclose(log_weights, 0.0, atol=1e-12)


@pytest.mark.parametrize("accounting", ["advanced", "zcdp"])
def test_dualquery_sampler_draws_from_its_weights_and_charges_each_draw(dq_problem, accounting):
    """Chi-square: 200 000 draws of the handle's DualQuery sampler against softmax(±log-weights)
    after 30 played records; the draws are charged as 200 000 steps at ε_t = 2η·30/n (advanced)
    or 200 000·ε_t²/8 (zCDP, bounded range)."""
    rng = np.random.default_rng(1)
    private, ledger = handle(dq_problem, 2, eps=1e6, accounting=accounting)
    player = dualquery.QueryPlayer(private, dq_problem.workload.num_queries, eta=1.5)
    for _ in range(30):
        player.update(dq_problem.workload.cell_ids(rng.integers(0, 2, (1, 4)))[0])
    log_weights = 1.5 * (30 * dq_problem.true_answers - player.counts)
    logw = np.concatenate([log_weights, -log_weights])
    expected = np.exp(logw - logw.max())
    expected *= 200_000 / expected.sum()
    observed = np.bincount(player.sample(200_000), minlength=logw.size)
    big = expected >= 5
    pooled_o = np.append(observed[big], observed[~big].sum())
    pooled_e = np.append(expected[big], expected[~big].sum())
    assert stats.chisquare(pooled_o, pooled_e).pvalue > KS_P_MIN
    eps_t = 2 * 1.5 * 30 / dq_problem.n
    per_draw = eps_t ** 2 / (2.0 if accounting == "advanced" else 8.0)
    assert ledger.charges == [("round 31", pytest.approx(200_000 * per_draw, rel=1e-12))]


def test_dualquery_first_round_reads_nothing_private_and_is_free(dq_problem):
    """Round 1's distribution is uniform over Q ∪ ¬Q (no record played): no charge."""
    private, ledger = handle(dq_problem, 3)
    draws = private.dual_queries(np.zeros(dq_problem.workload.num_queries, np.int64), 0, 1.5,
                                 100_000)
    counts = np.bincount(draws, minlength=2 * dq_problem.workload.num_queries)
    assert stats.chisquare(counts).pvalue > KS_P_MIN
    assert ledger.charges == []


@pytest.mark.parametrize("eps, eta, samples", [(1.0, 1.5, 50), (3.0, 0.5, 200)])
def test_dualquery_calibration_is_advanced_composition(dq_problem, eps, eta, samples):
    """T is the largest round count whose advanced-composition ε fits; ε and ρ as stated."""
    n = dq_problem.n
    delta = 1.0 / n ** 2

    def drv(T):
        step, k = 2 * eta * (T - 1) / n, samples * (T - 1)
        return step * math.sqrt(2 * k * math.log(1 / delta)) + k * step * math.expm1(step)

    release = run_algorithm("dualquery", dq_problem, eps=eps, delta=delta, T=1,
                            rng=np.random.default_rng(0), eta=eta, samples=samples, max_T=10**6)
    T = release.iterations
    assert drv(T) <= eps < drv(T + 1)
    assert release.eps == pytest.approx(drv(T), rel=1e-12)
    rho = sum(samples * (2 * eta * (t - 1) / n) ** 2 / 2 for t in range(2, T + 1))
    assert release.rho == pytest.approx(rho, rel=1e-9)


@pytest.mark.parametrize("eps, eta, samples", [(1.0, 1.5, 50), (3.0, 0.5, 200)])
def test_dualquery_zcdp_calibration_is_bounded_range(dq_problem, eps, eta, samples):
    """``accounting=zcdp``: each draw ε_t-bounded-range, ε_t²/8-zCDP; T the largest fitting ρ."""
    n = dq_problem.n
    delta = 1.0 / n ** 2
    budget = privacy.rho_from_eps(eps, delta)

    def spend(T):
        return sum(samples * (2 * eta * (t - 1) / n) ** 2 / 8 for t in range(2, T + 1))

    release = run_algorithm("dualquery", dq_problem, eps=eps, delta=delta, T=1,
                            rng=np.random.default_rng(0), eta=eta, samples=samples,
                            max_T=10**6, accounting="zcdp")
    T = release.iterations
    assert spend(T) <= budget < spend(T + 1)
    assert release.rho == pytest.approx(spend(T), rel=1e-9)
    assert release.eps <= eps * (1 + 1e-9)
