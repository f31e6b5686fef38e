"""zCDP accounting: the one place where a privacy budget is converted or split.

Zero-concentrated DP (Bun & Steinke 2016, "Concentrated Differential Privacy: Simplifications,
Extensions, and Lower Bounds"): a mechanism is ρ-zCDP if its Rényi divergence of every order
α > 1 between neighbours is at most αρ. zCDP composes additively (Bun & Steinke 2016, Lemma 1.7).
Liu et al. 2021 (PMW^Pub, §2, §4.1, Thm 4.5) state the target as (ε, δ)-DP with δ = 1/n², convert
it to ρ with the Canonne–Kamath–Steinke bound and spend ρ over T rounds of two ε0-DP steps.
"""
from __future__ import annotations

import math

from scipy.optimize import brentq

from pubpriv_core.privacy._checks import count, non_negative, positive, probability


class BudgetExceededError(RuntimeError):
    """A charge would take a :class:`ZCDPBudget` past its total ρ."""


def _check_rho_delta(rho: float, delta: float) -> tuple[float, float]:
    rho = positive("rho", rho, "pass a positive zCDP parameter")
    delta = probability("delta", delta, "pass a failure probability such as 1/n**2")
    return rho, delta


def _optimal_alpha_minus_one(rho: float, log_inv_delta: float) -> float:
    """x = α* − 1 minimising the CKS bound, the unique root of ρx² + log(1 + x) = log(1/δ).

    d/dα [αρ + log(1/(αδ))/(α−1) + log(1 − 1/α)] = ρ − log(1/(αδ))/(α−1)²: negative at α → 1⁺,
    increasing, and positive at x = sqrt(log(1/δ)/ρ), so the bracket below holds the minimiser.
    """
    upper = math.sqrt(log_inv_delta / rho)
    return brentq(lambda x: rho * x * x + math.log1p(x) - log_inv_delta, 0.0, upper,
                  xtol=1e-300, rtol=4 * 2.0 ** -52, maxiter=500)


def eps_from_rho(rho: float, delta: float) -> float:
    """Smallest ε such that ρ-zCDP implies (ε, δ)-DP by Canonne, Kamath & Steinke 2020.

    ε = inf_{α>1} [ αρ + log(1/(αδ))/(α−1) + log(1 − 1/α) ]  (CKS 2020, Prop. 12 / Cor. 13;
    Liu et al. 2021, Thm 4.5 and §4.1). The infimum is attained at the unique stationary point
    (see :func:`_optimal_alpha_minus_one`), so the value is exact up to floating point.
    Negative values are clipped to 0. Sanity value: eps_from_rho(0.5, 1e-5) = 4.7284.
    """
    rho, delta = _check_rho_delta(rho, delta)
    log_inv_delta = -math.log(delta)
    x = _optimal_alpha_minus_one(rho, log_inv_delta)
    eps = (1 + x) * rho + (log_inv_delta - math.log1p(x)) / x + math.log(x / (1 + x))
    return max(0.0, eps)


def eps_upper_bound(rho: float, delta: float) -> float:
    """ε = ρ + 2·sqrt(ρ·log(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    Never below :func:`eps_from_rho`; kept as a closed-form check.
    """
    rho, delta = _check_rho_delta(rho, delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def rho_from_eps(eps: float, delta: float) -> float:
    """Largest ρ with eps_from_rho(ρ, δ) ≤ ε (Liu et al. 2021, §4.1: "binary search on ρ").

    eps_from_rho is continuous and strictly increasing in ρ. The root is bracketed below by the ρ
    that makes :func:`eps_upper_bound` equal ε, i.e. (sqrt(log(1/δ) + ε) − sqrt(log(1/δ)))², and
    above by doubling. The returned ρ satisfies eps_from_rho(ρ, δ) ≤ ε.
    Sanity value: rho_from_eps(1, 1/43944**2) = 0.0144352.
    """
    eps = positive("eps", eps, "pass a positive privacy budget")
    delta = probability("delta", delta, "pass a failure probability such as 1/n**2")
    log_inv_delta = -math.log(delta)
    low = (math.sqrt(log_inv_delta + eps) - math.sqrt(log_inv_delta)) ** 2
    high = 2.0 * low
    while eps_from_rho(high, delta) < eps:
        high *= 2.0
    rho = brentq(lambda r: eps_from_rho(r, delta) - eps, low, high,
                 xtol=1e-300, rtol=4 * 2.0 ** -52, maxiter=500)
    while eps_from_rho(rho, delta) > eps:
        rho *= 1.0 - 2.0 ** -50
    return rho


def default_delta(n: int) -> float:
    """δ = 1/n² (Liu et al. 2021, §5.1), for a private dataset of n rows."""
    n = count("n", n, "pass the number of private rows")
    return 1.0 / n ** 2


def pure_dp_zcdp(eps: float) -> float:
    """An ε-DP mechanism is ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
    eps = positive("eps", eps, "pass a positive privacy budget")
    return eps * eps / 2.0


def bounded_range_zcdp(eps: float) -> float:
    """An ε-bounded-range mechanism (e.g. the exponential mechanism at ε) is ε²/8-zCDP.

    Cesar & Rogers 2021, "Bounding, Concentrating, and Truncating", Lemma 3.2 (and Thm 3.6).
    """
    eps = positive("eps", eps, "pass a positive privacy budget")
    return eps * eps / 8.0


def gaussian_zcdp(sigma: float, sensitivity: float) -> float:
    """N(0, σ²) noise on an L2-sensitivity-Δ query is Δ²/(2σ²)-zCDP.

    Bun & Steinke 2016, Prop. 1.6.
    """
    sigma = positive("sigma", sigma, "pass a positive noise standard deviation")
    sensitivity = positive("sensitivity", sensitivity, "pass the query's L2 sensitivity")
    return sensitivity ** 2 / (2.0 * sigma ** 2)


def gaussian_sigma(rho: float, sensitivity: float) -> float:
    """σ = Δ/sqrt(2ρ): the Gaussian noise making a sensitivity-Δ query ρ-zCDP (inverse above)."""
    rho = positive("rho", rho, "pass a positive zCDP parameter")
    sensitivity = positive("sensitivity", sensitivity, "pass the query's L2 sensitivity")
    return sensitivity / math.sqrt(2.0 * rho)


def per_step_eps(rho: float, T: int, mechanisms_per_round: int = 2) -> float:
    """ε0 = sqrt(2ρ/(mechanisms_per_round·T)).

    Liu et al. 2021, §4.1: ε0 = ε̃/sqrt(2T) with ε̃ = sqrt(2ρ) and two mechanisms per round.

    Each step is ε0-DP hence ε0²/2-zCDP, so T rounds of ``mechanisms_per_round`` steps spend ρ.
    """
    rho = positive("rho", rho, "pass a positive zCDP parameter")
    T = count("T", T, "pass the number of rounds")
    mechanisms_per_round = count("mechanisms_per_round", mechanisms_per_round,
                                 "pass how many mechanisms run each round")
    return math.sqrt(2.0 * rho / (mechanisms_per_round * T))


def advanced_composition(eps_step: float, k: int, delta_prime: float) -> float:
    """ε of k adaptive ε-DP steps, with extra failure δ' (Dwork, Rothblum & Vadhan 2010, Thm III.3).

    ε_total = ε·sqrt(2k·ln(1/δ')) + k·ε·(e^ε − 1); used for DualQuery's calibration.
    """
    eps_step = positive("eps_step", eps_step, "pass the per-step pure-DP parameter")
    k = count("k", k, "pass the number of composed steps")
    delta_prime = probability("delta_prime", delta_prime, "pass the composition's slack δ'")
    return eps_step * math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) + \
        k * eps_step * math.expm1(eps_step)


class ZCDPBudget:
    """A total ρ and the ledger of what has been spent from it (zCDP adds up: Bun & Steinke 2016,
    Lemma 1.7). :meth:`charge` refuses a spend that would exceed the total (relative tol 1e-9);
    a total of 0 (an ε so small that ρ(ε, δ) underflows) refuses every charge."""

    RELATIVE_TOLERANCE = 1e-9

    def __init__(self, rho_total: float):
        self.rho_total = non_negative("rho_total", rho_total, "pass a zCDP budget >= 0")
        self.ledger: list[tuple[str, float]] = []
        self._running = 0.0   # running sum for the O(1) check in charge (spent re-sums exactly)

    @classmethod
    def from_eps_delta(cls, eps: float, delta: float) -> "ZCDPBudget":
        """The budget ρ = rho_from_eps(ε, δ)."""
        return cls(rho_from_eps(eps, delta))

    @property
    def spent(self) -> float:
        return math.fsum(rho for _, rho in self.ledger)

    @property
    def remaining(self) -> float:
        return max(0.0, self.rho_total - self.spent)

    def charge(self, rho: float, label: str = "") -> None:
        """Record a ρ-zCDP spend; raise :class:`BudgetExceededError` if it does not fit."""
        rho = positive("rho", rho, "charge a positive zCDP cost")
        total = self._running + rho
        if total > self.rho_total * (1.0 + self.RELATIVE_TOLERANCE):
            raise BudgetExceededError(
                f"charging rho={rho:.6g} ({label or 'unlabelled'}) would spend {total:.6g} > "
                f"budget {self.rho_total:.6g}; lower the per-step cost or the number of steps")
        self.ledger.append((label, rho))
        self._running = total

    def eps(self, delta: float) -> float:
        """(ε, δ)-DP guarantee of the spend so far (0 before any spend)."""
        spent = self.spent
        if spent == 0:
            probability("delta", delta, "pass a failure probability such as 1/n**2")
            return 0.0
        return eps_from_rho(spent, delta)

    def __repr__(self) -> str:
        return f"ZCDPBudget(rho_total={self.rho_total:.6g}, spent={self.spent:.6g})"
