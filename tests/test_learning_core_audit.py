"""Audits: exact audit machinery and the empirical audit flagging mis-calibrated mechanisms."""
import numpy as np
import pytest

from pubpriv_core.learning.audit import empirical_epsilon, exact_audit, max_log_ratio, neighbours
from pubpriv_core.privacy import eps_from_rho, gaussian_mechanism, gaussian_sigma, permute_and_flip


def test_neighbours_and_ratio_basics():
    assert sorted(neighbours((0, 1), [0, 1, 2])) == [(0, 0), (0, 2), (1, 1), (2, 1)]
    assert max_log_ratio([0.5, 0.5], [0.25, 0.75]) == pytest.approx(np.log(2))
    assert max_log_ratio([1.0, 0.0], [0.5, 0.5]) == np.inf


def test_exact_audit_of_randomised_response():
    eps = 0.9
    keep = np.exp(eps) / (1 + np.exp(eps))
    law = lambda db: np.array([keep, 1 - keep]) if db[0] == 0 else np.array([1 - keep, keep])  # noqa: E731
    assert exact_audit(law, [0, 1], 1).eps_max == pytest.approx(eps)


def pf_outputs(scores, eps, n, rng):
    return np.array([permute_and_flip(scores, eps, 1.0, rng) for _ in range(n)], dtype=float)


@pytest.mark.parametrize("factor, flagged", [(1.0, False), (3.0, True)])
def test_empirical_audit_of_permute_and_flip(factor, flagged):
    rng = np.random.default_rng(0)
    eps, n = 1.0, 6000
    # neighbouring score vectors (each score moves by ≤ Δ = 1); the variant spends factor·ε
    a = pf_outputs(np.array([1.0, 0.0, 0.0]), factor * eps, n, rng)
    b = pf_outputs(np.array([0.0, 1.0, 0.0]), factor * eps, n, rng)
    eps_hat = empirical_epsilon(a, b, np.array([0.5, 1.5]))
    assert (eps_hat > eps) == flagged


@pytest.mark.parametrize("sigma_factor, flagged", [(1.0, False), (1 / 3, True)])
def test_empirical_audit_of_gaussian_mechanism(sigma_factor, flagged):
    rng = np.random.default_rng(1)
    rho, delta, n = 0.5, 1e-3, 200_000
    sigma = gaussian_sigma(rho, 1.0) * sigma_factor
    a = gaussian_mechanism(np.zeros(n), sigma, rng)
    b = gaussian_mechanism(np.ones(n), sigma, rng)
    eps_hat = empirical_epsilon(a, b, np.linspace(-1.0, 2.0, 13), delta=delta)
    assert (eps_hat > eps_from_rho(rho, delta)) == flagged


def _pmwpub_audit(factor: int, samples: int):
    """PMW^Pub (T = 2) on two neighbouring pairs of a 4-point domain, run at ρ·factor but
    audited against the ρ of (ε, δ) = (8, 1e-3)."""
    from pubpriv_core.learning import liu2021 as lv
    from pubpriv_core.learning.audit import loss_audit
    from pubpriv_core.privacy import rho_from_eps

    problems = lv.tiny_problems(2)
    pairs = [((0, 0), (0, 3)), ((0, 3), (3, 3))]
    rho = rho_from_eps(8.0, 1e-3)
    eps_run = eps_from_rho(factor * rho, 1e-3)
    rng = np.random.default_rng(factor)
    return loss_audit(pairs, lambda d: lv.pmwpub_transcript(problems[d], eps_run, 1e-3, 2, rng),
                      lambda d, o: lv.transcript_log_likelihood(problems[d], o[0], o[1], o[2]),
                      rho=rho, eps=8.0, delta=1e-3, samples=samples, alphas=(1.5, 2, 3))


@pytest.mark.parametrize("factor, flagged", [(1, False), (4, True)])
def test_loss_audit_of_pmwpub_flags_halved_noise(factor, flagged):
    """Run at 4ρ (σ halved, selection at 2ε0) while claiming ρ: the audit must flag it."""
    res = _pmwpub_audit(factor, 400)
    assert res.flagged is flagged
    assert res.pairs == 2 and res.renyi_ratio > 0


def test_renyi_and_delta_bounds_of_a_gaussian_loss():
    """L ~ N(ρ', 2ρ') is the loss of a Gaussian mechanism: D_α = ρ'α, δ(ε) from its formula."""
    from scipy import stats

    from pubpriv_core.learning.audit import delta_bounds, renyi_bounds
    rho = 0.3
    losses = np.random.default_rng(0).normal(rho, np.sqrt(2 * rho), 200000)
    point, lower = renyi_bounds(losses, 2.0, 3.0)
    assert point == pytest.approx(2 * rho, rel=0.03) and lower < point
    eps = 1.0
    s = np.sqrt(2 * rho)
    exact = stats.norm.cdf(rho / s - eps / s) - np.exp(eps) * stats.norm.cdf(-rho / s - eps / s)
    point, lower = delta_bounds(losses, eps, 3.0)
    assert point == pytest.approx(exact, rel=0.05) and lower < point
