"""Liu, Vietri, Steinke, Ullman, Wu (ICML 2021): PMW^Pub's public-support and error bounds.

Natural logs. ``n`` private rows, ``m`` public rows, ``Q_size`` = |Q| statistical queries,
``D2``/``Dinf`` = Rényi divergences D_2(μ‖ν) ≤ D_∞(μ‖ν) of the private (μ) from the public (ν)
distribution. PMW^Pub's privacy parameter ε̃ is expressed through ρ = ε̃²/2 (zCDP).
"""
from __future__ import annotations

import math

from ..privacy import eps_from_rho, eps_upper_bound
from .registry import register


def _check_divergences(bound_id: str, D2: float, Dinf: float) -> None:
    if D2 > Dinf:
        raise ValueError(f"{bound_id}: needs D2 <= Dinf (Rényi divergences grow with the order), "
                         f"got D2={D2}, Dinf={Dinf}")


@register("liu2021.prop4.3.n", explicit=True)
def prop4_3_n(*, alpha, beta, Q_size):
    """Prop 4.3: the private sample needs n ≥ (8/α²)·ln(4|Q|/β) (Hoeffding, union over Q)."""
    return 8 / alpha ** 2 * math.log(4 * Q_size / beta)


@register("liu2021.prop4.3.m", explicit=True)
def prop4_3_m(*, alpha, beta, Q_size, D2=0.0, Dinf=0.0):
    """Prop 4.3: the public sample needs m ≥ (32·e^{D2}/α² + 8·e^{D∞}/(3α))·ln((4|Q| + 4)/β)
    for the best-mixture error f_{D̃,Q}(X̂) ≤ α w.p. ≥ 1 − β (Bernstein, union over Q)."""
    _check_divergences("liu2021.prop4.3.m", D2, Dinf)
    scale = 32 * math.exp(D2) / alpha ** 2 + 8 * math.exp(Dinf) / (3 * alpha)
    return scale * math.log((4 * Q_size + 4) / beta)


@register("liu2021.prop4.3.fail", explicit=True)
def prop4_3_fail(*, alpha, n, m, Q_size, D2=0.0, Dinf=0.0):
    """Prop 4.3 (proof): P[f_{D̃,Q}(X̂) > α] ≤ 2|Q|·e^{−α²n/8}
    + (2|Q| + 2)·exp(−α²m/(32·e^{D2} + (8/3)·α·e^{D∞})). The value may exceed 1 (vacuous)."""
    _check_divergences("liu2021.prop4.3.fail", D2, Dinf)
    private = 2 * Q_size * math.exp(-alpha ** 2 * n / 8)
    public = (2 * Q_size + 2) * math.exp(
        -alpha ** 2 * m / (32 * math.exp(D2) + 8 / 3 * alpha * math.exp(Dinf)))
    return private + public, {"private": private, "public": public}


def _eps_tilde(rho: float) -> float:
    """ε̃ = √(2ρ): PMW^Pub run with parameter ε̃ is ε̃²/2-zCDP (Thm 4.5)."""
    return math.sqrt(2 * rho)


@register("liu2021.thm4.4", explicit=False)
def thm4_4(*, n, m, Q_size, beta, rho, c=1.0):
    """Thm 4.4: PMW^Pub's max error ≤ c·√(ln|Q|·(√(ln m) + ln(1/β))/(n·ε̃)) + f_{D̃,Q}(X̂),
    ε̃ = √(2ρ). Returns the private term only; add the best-mixture error f (measured)."""
    return c * math.sqrt(math.log(Q_size) * (math.sqrt(math.log(m)) + math.log(1 / beta))
                         / (n * _eps_tilde(rho)))


@register("liu2021.thm4.4.n", explicit=False)
def thm4_4_n(*, alpha, m, Q_size, beta, rho, c=1.0):
    """Thm 4.4 solved for n: the private term is ≤ α once
    n ≥ c²·ln|Q|·(√(ln m) + ln(1/β))/(α²·ε̃), ε̃ = √(2ρ)."""
    return c ** 2 * math.log(Q_size) * (math.sqrt(math.log(m)) + math.log(1 / beta)) / (
        alpha ** 2 * _eps_tilde(rho))


@register("liu2021.thm4.4.T", explicit=False)
def thm4_4_T(*, n, m, Q_size, beta, rho, c=1.0):
    """Thm 4.4's iteration count: T = c·(n·ε̃·√(ln m)/ln|Q| + ln(1/β)), ε̃ = √(2ρ)."""
    return c * (n * _eps_tilde(rho) * math.sqrt(math.log(m)) / math.log(Q_size)
                + math.log(1 / beta))


@register("liu2021.thm4.5", explicit=True)
def thm4_5(*, rho, delta):
    """Thm 4.5: PMW^Pub with ε̃ is ρ = ε̃²/2-zCDP, hence (ε(δ), δ)-DP with the exact
    Canonne–Kamath–Steinke conversion ε(δ) = inf_{a>1} [aρ + ln(1/(aδ))/(a−1) + ln(1 − 1/a)]
    (computed by ``pubpriv_core.privacy.eps_from_rho``). Sanity: ρ=0.5, δ=1e−5 → 4.728."""
    return eps_from_rho(rho, delta)


@register("liu2021.thm4.5.upper", explicit=True)
def thm4_5_upper(*, rho, delta):
    """Thm 4.5 closed-form bound: ε(δ) ≤ ε̃²/2 + √(2·ln(1/δ))·ε̃ = ρ + 2·√(ρ·ln(1/δ))
    (``pubpriv_core.privacy.eps_upper_bound``)."""
    return eps_upper_bound(rho, delta)
