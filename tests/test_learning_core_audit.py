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
