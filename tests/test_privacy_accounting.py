"""zCDP accounting: CKS conversion, its inverse, budgets and per-step calibration."""
import math

import numpy as np
import pytest

from pubpriv_core.privacy import (BudgetExceededError, ZCDPBudget, advanced_composition,
                                  bounded_range_zcdp, default_delta, eps_from_rho,
                                  eps_upper_bound, gaussian_sigma, gaussian_zcdp, per_step_eps,
                                  pure_dp_zcdp, rho_from_eps)

RHOS = np.logspace(-7, 3, 21)
DELTAS = [1e-30, 1 / 43944 ** 2, 1e-6, 1e-3, 0.05]


def brute_force_eps(rho, delta):
    """min over a dense log-spaced grid of α − 1 ∈ [1e-7, 1e7] of the CKS bound (numpy)."""
    x = np.logspace(-7, 7, 400_001)
    alpha = 1 + x
    values = alpha * rho + np.log(1 / (alpha * delta)) / x + np.log(x / alpha)
    return max(0.0, values.min())


def test_paper_sanity_values():
    assert rho_from_eps(1, 1 / 43944 ** 2) == pytest.approx(0.0144352, abs=1e-6)
    assert eps_from_rho(0.5, 1e-5) == pytest.approx(4.7284, abs=1e-3)


@pytest.mark.parametrize("delta", DELTAS)
def test_eps_from_rho_below_closed_form_bound(delta):
    for rho in RHOS:
        assert eps_from_rho(rho, delta) <= eps_upper_bound(rho, delta)


@pytest.mark.parametrize("delta", [1e-30, 1e-10, 1e-5, 0.01])
@pytest.mark.parametrize("rho", [1e-5, 0.0144352, 0.5, 20.0])
def test_eps_from_rho_matches_brute_force_grid(rho, delta):
    exact, grid = eps_from_rho(rho, delta), brute_force_eps(rho, delta)
    assert exact <= grid + 1e-12
    assert grid == pytest.approx(exact, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1 / 43944 ** 2])
@pytest.mark.parametrize("rho", [1e-4, 0.0144352, 0.5, 5.0])
def test_eps_from_rho_matches_dp_accounting(rho, delta):
    """Google's dp-accounting RDP accountant: a Gaussian with noise multiplier z has RDP α/(2z²),
    i.e. ρ-zCDP for z = 1/sqrt(2ρ); its RDP→DP conversion is the same CKS bound, minimised over
    the orders we give it (so it can only be ≥ the exact infimum)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    orders = 1 + np.logspace(-2, 5, 20_000)
    accountant = dp_accounting.rdp.RdpAccountant(orders=list(orders))
    accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1 / math.sqrt(2 * rho)))
    theirs = accountant.get_epsilon(delta)
    ours = eps_from_rho(rho, delta)
    assert ours <= theirs + 1e-12
    assert theirs == pytest.approx(ours, rel=1e-5)


@pytest.mark.parametrize("delta", DELTAS)
def test_rho_from_eps_inverts_eps_from_rho(delta):
    for rho in RHOS:
        eps = eps_from_rho(rho, delta)
        if eps == 0:  # clipped region: no unique inverse
            continue
        back = rho_from_eps(eps, delta)
        assert back == pytest.approx(rho, rel=1e-9)
        assert eps_from_rho(back, delta) <= eps


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 8.0])
def test_rho_from_eps_is_largest_within_budget(eps):
    delta = 1e-9
    rho = rho_from_eps(eps, delta)
    assert eps_from_rho(rho, delta) <= eps
    assert eps_from_rho(rho * (1 + 1e-9), delta) > eps - 1e-12


def test_budget_refuses_overspending():
    budget = ZCDPBudget(1.0)
    budget.charge(0.6, "select")
    budget.charge(0.4 * (1 + 1e-10), "measure")  # within the 1e-9 relative tolerance
    assert budget.spent == pytest.approx(1.0)
    assert budget.remaining == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(BudgetExceededError) as err:
        budget.charge(1e-6, "one more")
    assert "\n" not in str(err.value) and "one more" in str(err.value)
    assert budget.ledger == [("select", 0.6), ("measure", 0.4 * (1 + 1e-10))]


def test_budget_refuses_a_charge_just_over_tolerance():
    budget = ZCDPBudget(2.0)
    with pytest.raises(BudgetExceededError):
        budget.charge(2.0 * (1 + 1e-8))
    assert budget.ledger == []


def test_budget_from_eps_delta_round_trips():
    delta = 1 / 43944 ** 2
    budget = ZCDPBudget.from_eps_delta(1.0, delta)
    assert budget.rho_total == pytest.approx(0.0144352, abs=1e-6)
    assert budget.eps(delta) == 0.0
    budget.charge(budget.rho_total / 2, "half")
    assert budget.eps(delta) == pytest.approx(eps_from_rho(budget.rho_total / 2, delta))
    budget.charge(budget.remaining, "rest")
    assert budget.eps(delta) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("rho,T,per_round", [(0.0144352, 100, 2), (0.5, 7, 2), (0.03, 13, 3)])
def test_per_step_eps_spends_exactly_rho(rho, T, per_round):
    eps0 = per_step_eps(rho, T, per_round)
    budget = ZCDPBudget(rho)
    for t in range(T):
        for m in range(per_round):
            budget.charge(pure_dp_zcdp(eps0), f"round {t} step {m}")
    assert budget.spent == pytest.approx(rho, rel=1e-12)
    with pytest.raises(BudgetExceededError):
        budget.charge(pure_dp_zcdp(eps0), "extra step")


def test_liu_calibration_gaussian_step_costs_the_same():
    """Liu et al. 2021 §4.1: σ = 1/(n·ε0) on a 1/n-sensitive query is ε0²/2-zCDP."""
    n, eps0 = 43944, 0.012
    assert gaussian_zcdp(1 / (n * eps0), 1 / n) == pytest.approx(pure_dp_zcdp(eps0))
    assert gaussian_sigma(pure_dp_zcdp(eps0), 1 / n) == pytest.approx(1 / (n * eps0))


def test_small_conversions():
    assert default_delta(43944) == 1 / 43944 ** 2
    assert pure_dp_zcdp(0.3) == pytest.approx(0.045)
    assert bounded_range_zcdp(0.3) == pytest.approx(0.01125)
    assert gaussian_zcdp(2.0, 1.0) == pytest.approx(0.125)
    assert gaussian_sigma(0.125, 1.0) == pytest.approx(2.0)


def test_advanced_composition_value_and_regime():
    # 0.01·sqrt(2·100·ln 1e6) + 100·0.01·(e^0.01 − 1), = 0.5256522 + 0.0100502
    assert advanced_composition(0.01, 100, 1e-6) == pytest.approx(0.5357024, abs=1e-7)
    assert advanced_composition(0.01, 10_000, 1e-6) < 0.01 * 10_000  # beats basic composition


@pytest.mark.parametrize("call", [
    lambda: eps_from_rho(-1, 1e-5), lambda: eps_from_rho(0.1, 0), lambda: eps_from_rho(0.1, 1),
    lambda: rho_from_eps(0, 1e-5), lambda: rho_from_eps(float("nan"), 1e-5),
    lambda: ZCDPBudget(-1.0), lambda: ZCDPBudget(1).charge(-0.1), lambda: per_step_eps(0.1, 0),
    lambda: advanced_composition(0.1, 5, 2.0), lambda: default_delta(0),
    lambda: ZCDPBudget.from_eps_delta(1.0, 1.5), lambda: gaussian_sigma(0.1, 0),
])
def test_bad_input_raises_one_line_value_error(call):
    with pytest.raises(ValueError) as err:
        call()
    assert "\n" not in str(err.value) and ";" in str(err.value)
