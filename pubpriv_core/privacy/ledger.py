"""The harness's privacy ledger: the one account of what a release spent.

The harness opens a :class:`Ledger` for every release with the target (ε, δ), the neighbouring
relation and the accounting of the algorithm, and hands the algorithm the private data only
through a :class:`~pubpriv_core.privacy.private_data.PrivateData` whose mechanisms charge this
ledger before they run. The record's ρ, ε and δ are :meth:`Ledger.report`'s, never numbers the
algorithm returns.

Two accountings:

* ``zcdp`` (every algorithm but DualQuery's paper calibration): the total ρ = rho_from_eps(ε, δ)
  by the Canonne–Kamath–Steinke conversion (Liu et al. 2021, Thm 4.5); charges add up (Bun &
  Steinke 2016, Lemma 1.7) and the ε spent is eps_from_rho(ρ spent, δ);
* ``advanced`` (DualQuery as Gaboardi et al. 2014 and Liu et al. 2021 calibrate it): every
  charge is a number of pure ε_i-DP steps; the ε spent is the advanced composition of all steps
  at the largest ε_i (Dwork, Rothblum & Vadhan 2010, Thm III.3) with slack δ, and the ρ shown
  beside it is Σ ε_i²/2 (Bun & Steinke 2016, Prop. 1.4).

A charge that would exceed the target (relative tolerance 1e-9) raises
:class:`~pubpriv_core.privacy.accounting.BudgetExceededError` and is not recorded.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from pubpriv_core.privacy._checks import count, positive, probability
from pubpriv_core.privacy.accounting import (BudgetExceededError, ZCDPBudget,
                                             advanced_composition, eps_from_rho, rho_from_eps)

ACCOUNTINGS = ("zcdp", "advanced")
#: what a record says of its privacy: every private read charged (verified), none made
#: (a non-private reference), or the escape hatch used (not verified)
VERIFIED, REFERENCE, NOT_VERIFIED = "verified", "non-private reference", "not verified"


@dataclass(frozen=True)
class Spend:
    """What a release spent, read off the ledger: zCDP ρ, (ε, δ), the accounting, the
    neighbouring relation, whether every private read went through a charged mechanism, ρ per
    charge kind (the label's first word: select, measure, round, …) and every (label, ρ)
    charge in order."""

    rho: float
    eps: float
    delta: float
    accounting: str
    relation: str
    privacy: str
    by_label: dict
    charges: tuple = ()

    @property
    def verified(self) -> bool:
        return self.privacy == VERIFIED


def budget_rho(eps: float, delta: float) -> float:
    """ρ(ε, δ) (:func:`~pubpriv_core.privacy.accounting.rho_from_eps`), or 0 when ε is so small
    that ρ underflows (a ledger on which no mechanism can run)."""
    try:
        return rho_from_eps(eps, delta)
    except ValueError:
        return 0.0


class Ledger:
    """A release's budget (ε, δ) and the charges made against it.

    ``accounting`` is ``zcdp`` or ``advanced`` (module docstring); ``relation`` names the
    neighbouring relation the charges were computed for (``replace_one`` or ``add_remove``)."""

    RELATIVE_TOLERANCE = ZCDPBudget.RELATIVE_TOLERANCE

    def __init__(self, eps: float, delta: float, *, accounting: str = "zcdp",
                 relation: str = "replace_one"):
        if accounting not in ACCOUNTINGS:
            raise ValueError(f"unknown accounting {accounting!r}; choose one of "
                             f"{', '.join(ACCOUNTINGS)}")
        self.target_eps = positive("eps", eps, "pass a positive privacy budget")
        self.target_delta = probability("delta", delta, "pass a failure probability such as "
                                                         "1/n**2")
        self.accounting, self.relation = accounting, relation
        self._zcdp = ZCDPBudget(budget_rho(eps, delta) if accounting == "zcdp"
                                else sys.float_info.max)    # advanced: capped by ε below
        self._steps, self._step_eps = 0, 0.0
        self._unverified: list[str] = []

    @property
    def rho_total(self) -> float:
        """The zCDP budget ρ(ε, δ) (``zcdp``; ∞ under ``advanced``, capped by ε instead)."""
        return self._zcdp.rho_total if self.accounting == "zcdp" else math.inf

    @property
    def spent(self) -> float:
        """ρ charged so far (exact sum of the charges)."""
        return self._zcdp.spent

    @property
    def remaining(self) -> float:
        return self._zcdp.remaining

    @property
    def charges(self) -> list[tuple[str, float]]:
        """(label, ρ) of every charge, in order."""
        return list(self._zcdp.ledger)

    def charge(self, rho: float, label: str) -> None:
        """Record a ρ-zCDP spend (``zcdp`` accounting); refused past the budget."""
        if self.accounting != "zcdp":
            raise BudgetExceededError(f"charge {label!r} states a zCDP cost but this ledger "
                                      "composes pure-DP steps (advanced); charge pure steps")
        self._zcdp.charge(rho, label)

    def charge_pure(self, eps_step: float, steps: int, label: str) -> None:
        """Record ``steps`` pure ε_step-DP steps (``advanced`` accounting), each ε²/2-zCDP;
        refused when the advanced composition of all steps would exceed the target ε."""
        eps_step = positive("eps_step", eps_step, "charge a positive pure-DP parameter")
        steps = count("steps", steps, "charge at least one step")
        if self.accounting != "advanced":
            raise BudgetExceededError(f"charge {label!r} composes pure-DP steps but this "
                                      "ledger is zCDP; charge their zCDP cost")
        total = advanced_composition(max(self._step_eps, eps_step), self._steps + steps,
                                     self.target_delta)
        if total > self.target_eps * (1.0 + self.RELATIVE_TOLERANCE):
            raise BudgetExceededError(f"charging {steps} step(s) at eps={eps_step:.6g} "
                                      f"({label}) would spend eps={total:.6g} > budget "
                                      f"{self.target_eps:.6g}; take fewer steps")
        self._zcdp.charge(steps * eps_step * eps_step / 2.0, label)
        self._steps += steps
        self._step_eps = max(self._step_eps, eps_step)

    def mark_unverified(self, reason: str) -> None:
        """The escape hatch was used: the private data were read outside the mechanisms."""
        self._unverified.append(reason)

    def eps(self) -> float:
        """ε spent at the target δ (0 before any charge)."""
        if self.spent == 0:
            return 0.0
        if self.accounting == "advanced":
            return advanced_composition(self._step_eps, self._steps, self.target_delta)
        return eps_from_rho(self.spent, self.target_delta)

    def report(self, reference: bool = False) -> Spend:
        """The spend as recorded; ``reference``: the algorithm is a declared non-private
        reference (its raw reads are its purpose, and it claims no privacy)."""
        totals: dict[str, float] = {}
        for label, rho in self._zcdp.ledger:
            key = label.split(" ")[0]
            totals[key] = totals.get(key, 0.0) + rho
        privacy = VERIFIED
        if self._unverified:
            privacy = REFERENCE if reference else NOT_VERIFIED
        return Spend(rho=self.spent, eps=self.eps(), delta=self.target_delta,
                     accounting=self.accounting, relation=self.relation, privacy=privacy,
                     by_label=totals, charges=tuple(self._zcdp.ledger))

    def __repr__(self) -> str:
        return (f"Ledger(eps={self.target_eps:g}, delta={self.target_delta:g}, "
                f"{self.accounting}, spent rho={self.spent:.6g})")
