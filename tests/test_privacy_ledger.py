"""The harness's ledger at its boundaries: ρ, ε and δ each just over the target are refused, the
cap it is created with is ρ(ε, δ) exactly, its report is what the record says, and the escape
hatch is visible in the report."""
from __future__ import annotations

import math

import pytest

from pubpriv_core.privacy import BudgetExceededError, advanced_composition, eps_from_rho
from pubpriv_core.privacy import rho_from_eps
from pubpriv_core.privacy.ledger import NOT_VERIFIED, REFERENCE, VERIFIED, Ledger

EPS, DELTA = 1.0, 1e-6
TOL = Ledger.RELATIVE_TOLERANCE


def test_the_cap_is_the_cks_conversion_of_the_target():
    ledger = Ledger(EPS, DELTA)
    assert ledger.rho_total == rho_from_eps(EPS, DELTA)
    assert (ledger.target_eps, ledger.target_delta) == (EPS, DELTA)


def test_rho_just_over_the_cap_is_refused_and_not_recorded():
    ledger = Ledger(EPS, DELTA)
    ledger.charge(ledger.rho_total * (1 + TOL / 2), "all")            # within the tolerance
    assert ledger.spent == pytest.approx(ledger.rho_total, rel=TOL)
    fresh = Ledger(EPS, DELTA)
    with pytest.raises(BudgetExceededError, match="would spend"):
        fresh.charge(fresh.rho_total * (1 + 3 * TOL), "too much")
    assert fresh.charges == [] and fresh.spent == 0


def test_the_report_is_the_charges():
    ledger = Ledger(EPS, DELTA)
    ledger.charge(ledger.rho_total / 4, "select 1")
    ledger.charge(ledger.rho_total / 4, "measure a")
    report = ledger.report()
    assert report.rho == math.fsum(rho for _, rho in ledger.charges)
    assert report.eps == eps_from_rho(report.rho, DELTA) < EPS
    assert report.delta == DELTA and report.privacy == VERIFIED and report.verified
    assert report.by_label == {"select": ledger.rho_total / 4, "measure": ledger.rho_total / 4}
    assert report.charges == (("select 1", ledger.rho_total / 4),
                              ("measure a", ledger.rho_total / 4))


def test_nothing_spent_reports_zero():
    report = Ledger(EPS, DELTA).report()
    assert (report.rho, report.eps, report.delta) == (0.0, 0.0, DELTA)


def test_an_underflowing_budget_refuses_every_charge():
    ledger = Ledger(1e-300, DELTA)
    assert ledger.rho_total == 0.0
    with pytest.raises(BudgetExceededError):
        ledger.charge(1e-320, "anything")


def test_advanced_composition_eps_just_over_is_refused():
    """Pure steps compose by advanced composition at the largest step ε with slack δ; the step
    that would take ε past the target is refused and not recorded."""
    ledger = Ledger(EPS, DELTA, accounting="advanced")
    step, k = 1e-3, 1
    while advanced_composition(step, k + 1, DELTA) <= EPS:
        k += 1
    ledger.charge_pure(step, k, "round 2")
    assert ledger.eps() == advanced_composition(step, k, DELTA) <= EPS
    assert ledger.spent == k * step * step / 2
    with pytest.raises(BudgetExceededError, match="would spend eps"):
        ledger.charge_pure(step, 1, "round 3")
    with pytest.raises(BudgetExceededError):              # a larger step raises the whole ε
        ledger.charge_pure(step * 1.0001, 0 + 1, "round 3")
    assert ledger.eps() == advanced_composition(step, k, DELTA)
    assert ledger.report().accounting == "advanced"


def test_a_charge_of_the_other_accounting_is_refused():
    with pytest.raises(BudgetExceededError, match="pure-DP steps"):
        Ledger(EPS, DELTA, accounting="advanced").charge(1e-6, "x")
    with pytest.raises(BudgetExceededError, match="ledger is zCDP"):
        Ledger(EPS, DELTA).charge_pure(1e-3, 1, "x")
    with pytest.raises(ValueError, match="unknown accounting 'rdp'"):
        Ledger(EPS, DELTA, accounting="rdp")


@pytest.mark.parametrize("eps, delta", [(0.0, DELTA), (-1.0, DELTA), (float("nan"), DELTA),
                                        (EPS, 0.0), (EPS, 1.0), (EPS, float("nan"))])
def test_a_bad_target_is_one_line(eps, delta):
    with pytest.raises(ValueError) as info:
        Ledger(eps, delta)
    assert "\n" not in str(info.value)


def test_the_escape_hatch_is_in_the_report():
    ledger = Ledger(EPS, DELTA)
    ledger.mark_unverified("exact answers")
    assert ledger.report().privacy == NOT_VERIFIED and not ledger.report().verified
    assert ledger.report(reference=True).privacy == REFERENCE
    assert Ledger(EPS, DELTA).report(reference=True).privacy == VERIFIED
