"""DualQuery with zCDP accounting: ε_t-bounded-range draws, ε_t²/8-zCDP each (Cesar & Rogers
2021, Lemma 3.2), composed in ρ with the project's ledger."""
from __future__ import annotations

import numpy as np
import pytest

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.dualquery import calibrate_rounds, dualquery_rho_bounded_range
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.privacy import (BudgetExceededError, bounded_range_zcdp, eps_from_rho,
                                  rho_from_eps)
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.queries import MarginalWorkload


def test_rho_is_the_sum_of_bounded_range_costs():
    eta, s, T, n = 2.0, 200, 30, 5000
    explicit = sum(s * (2 * eta * (t - 1) / n) ** 2 / 8 for t in range(2, T + 1))
    assert dualquery_rho_bounded_range(eta, s, T, n) == pytest.approx(explicit, rel=1e-12)


@pytest.mark.parametrize("n,eta,samples", [(1000, 0.5, 25), (7600, 2.0, 50), (48790, 2.0, 200)])
def test_zcdp_calibration_is_the_largest_fitting_round_count(n, eta, samples):
    for eps in [0.1, 0.25, 1.0]:
        delta = 1.0 / n ** 2
        T = calibrate_rounds(eps, delta, n, eta, samples, "zcdp")
        rho = rho_from_eps(eps, delta)
        assert dualquery_rho_bounded_range(eta, samples, T, n) <= rho
        assert dualquery_rho_bounded_range(eta, samples, T + 1, n) > rho


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
def test_zcdp_gets_more_rounds_at_the_same_eps_delta(eps):
    n = 48790
    advanced = calibrate_rounds(eps, n ** -2.0, n, 2.0, 200)
    assert calibrate_rounds(eps, n ** -2.0, n, 2.0, 200, "zcdp") > advanced


def test_ledger_refuses_one_round_too_many():
    """The harness's zCDP ledger takes the calibrated rounds' charges s·ε_t²/8 (t = 2..T) and
    refuses round T + 1."""
    eps, n, eta, s = 0.5, 7600, 2.0, 50
    delta = n ** -2.0
    T = calibrate_rounds(eps, delta, n, eta, s, "zcdp")
    ledger = Ledger(eps, delta)
    for t in range(2, T + 1):
        ledger.charge(s * bounded_range_zcdp(2.0 * eta * (t - 1) / n), f"round {t}")
    assert ledger.eps() <= eps * (1 + 1e-9)
    assert len(ledger.charges) == T - 1
    with pytest.raises(BudgetExceededError):
        ledger.charge(s * bounded_range_zcdp(2.0 * eta * T / n), f"round {T + 1}")


def test_unknown_accounting_is_one_line():
    with pytest.raises(ValueError, match="unknown DualQuery accounting 'rdp'; choose one of"):
        calibrate_rounds(1.0, 1e-6, 1000, 2.0, 25, "rdp")


def test_release_reports_the_ledger_spend():
    domain = Domain(list("abcd"), [3, 4, 2, 3])
    rng = np.random.default_rng(0)
    data = Dataset(rng.integers(0, domain.shape, size=(3000, 4)), domain)
    problem = ReleaseProblem(data, MarginalWorkload.random(domain, 2))
    delta = 3000 ** -2.0
    release = run_algorithm("dualquery", problem, eps=1.0, delta=delta, T=1,
                            rng=np.random.default_rng(1), eta=1.0, samples=25,
                            accounting="zcdp")
    rounds = release.iterations
    assert rounds == calibrate_rounds(1.0, delta, 3000, 1.0, 25, "zcdp")
    assert release.rho == pytest.approx(dualquery_rho_bounded_range(1.0, 25, rounds, 3000),
                                        rel=1e-12)
    assert release.eps == pytest.approx(eps_from_rho(release.rho, delta)) and release.eps <= 1.0
    assert release.trace["accounting"] == "zcdp"
