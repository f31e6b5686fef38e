"""Bassily, Cheu, Moran, Nikolov, Ullman, Wu (ICML 2020): query release assisted by public data.

``d`` = VC(H), ``p`` = dual VC dimension VC*(H), ``n`` private and ``m`` public samples, ``X_size``
= |X̃| (representative domain), ``H_size`` = |H̃| (cover). Natural logs. The PDF text garbles some
formulas; those marked [R] are reconstructed as in the project spec (token order + proofs).
"""
from __future__ import annotations

import math

from .alon2019 import min_npub
from .registry import register
from .search import log_growth


def log_pmw_n(log_x: float, log_h: float, alpha: float, beta: float, eps: float,
              delta: float) -> float:
    """Lemma 7 in terms of ln|X̃| and ln|H̃| (so covers of astronomic size stay finite)."""
    if log_x <= 0:
        raise ValueError("bassily2020.lemma7: needs |X̃| >= 2 (ln|X̃| > 0); pass X_size >= 2")
    lead = 200 * math.sqrt(log_x * math.log(2 / delta)) / (eps * alpha ** 2)
    return lead * (log_h + math.log(128 * log_x / (alpha ** 2 * beta)))


@register("bassily2020.lemma7", explicit=True)
def lemma7(*, X_size, H_size, alpha, beta, eps, delta):
    """Lemma 7 [R] (Dwork–Roth Thm 4.15): PMW on X̃ with queries H̃ is (ε,δ)-DP (0 < ε, δ < 1) and
    has Err ≤ α w.p. ≥ 1−β once
    n ≥ 200·√(ln|X̃|·ln(2/δ))/(ε·α²) · (ln|H̃| + ln(128·ln|X̃|/(α²β)))."""
    return log_pmw_n(math.log(X_size), math.log(H_size), alpha, beta, eps, delta)


@register("bassily2020.claim3", explicit=True)
def claim3(*, H_size, p):
    """Claim 3: the representative domain has |X_H̃| ≤ (e·|H̃|/VC*(H̃))^{VC*(H̃)}, p = VC*(H̃)."""
    return (math.e * H_size / p) ** p


@register("bassily2020.fact4", explicit=True)
def fact4(*, d):
    """Fact 4 (Assouad): VC*(H) < 2^{VC(H)+1}; returns the strict upper bound 2^{d+1}."""
    return 2.0 ** (d + 1)


def _complexity(d: int, alpha: float, beta: float) -> float:
    """d·ln(1/α) + ln(1/β): the cover's sample-complexity term shared by Lemma 11 and Thm 10."""
    return d * math.log(1 / alpha) + math.log(1 / beta)


@register("bassily2020.lemma11", explicit=False)
def lemma11(*, d, alpha, beta, c=1.0):
    """Lemma 11 (= Alon et al. Lemma 3.3): m = c·(d·ln(1/α) + ln(1/β))/α public samples make H̃
    an α/4-cover w.p. ≥ 1 − β/2."""
    return c * _complexity(d, alpha, beta) / alpha


@register("bassily2020.lemma11.explicit", explicit=True, variant="derived")
def lemma11_explicit(*, d, alpha, beta):
    """Lemma 11 with Alon et al. Lemma 3.3's explicit constants: m = min n_pub at (α/4, β/2)
    [derived from the proof]. Spec sanity: α=0.1, β=0.05, d=1 → 3888."""
    return min_npub(d, alpha / 4, beta / 2)


@register("bassily2020.thm10.n", explicit=False)
def thm10_n(*, d, p, alpha, beta, eps, delta, c=1.0):
    """Thm 10 [R] (APAP upper bound): n = c·√p·(d·ln(1/α) + ln(1/β))^{3/2}·√(ln(1/δ))/(ε·α²)
    private samples, d = VC(H), p = VC*(H)."""
    return c * math.sqrt(p) * _complexity(d, alpha, beta) ** 1.5 * math.sqrt(
        math.log(1 / delta)) / (eps * alpha ** 2)


@register("bassily2020.thm10.n.fact4", explicit=False)
def thm10_n_fact4(*, d, alpha, beta, eps, delta, c=1.0):
    """Thm 10 via Fact 4 (p < 2^{d+1}, absorbed in c): n = c·(d·ln(1/α) + ln(1/β))^{3/2}·
    √(2^d·ln(1/δ))/(ε·α²)."""
    return c * _complexity(d, alpha, beta) ** 1.5 * math.sqrt(2.0 ** d * math.log(1 / delta)) / (
        eps * alpha ** 2)


@register("bassily2020.thm10.m", explicit=False)
def thm10_m(*, d, alpha, beta, c=1.0):
    """Thm 10 (APAP): m = c·(d·ln(1/α) + ln(1/β))/α public samples."""
    return c * _complexity(d, alpha, beta) / alpha


def thm10_chain(d: int, p: int, alpha: float, beta: float, eps: float, delta: float) -> dict:
    """Thm 10's proof as an explicit calculator [derived]: m = min n_pub(d, α/4, β/2) (Lemma 3.3);
    |H̃| ≤ Σ_{i≤d} C(m, i) (Sauer); |X̃| ≤ min(2^{|H̃|}, (e|H̃|/p)^p) (Claim 3);
    n = Lemma 7 at (|X̃|, |H̃|, α/2, β/2, ε, δ). Sizes are carried as logarithms."""
    m = min_npub(d, alpha / 4, beta / 2)
    log_h = log_growth(m, d)
    log_x = min(math.exp(log_h) * math.log(2), p * (1 + log_h - math.log(p)))
    n = log_pmw_n(log_x, log_h, alpha / 2, beta / 2, eps, delta)
    return {"m": m, "n": n, "log_H_size": log_h, "log_X_size": log_x}


@register("bassily2020.thm10.explicit.n", explicit=True, variant="derived")
def thm10_explicit_n(*, d, p, alpha, beta, eps, delta):
    """Thm 10 explicit chain, private sample n (see ``thm10_chain``). Spec sanity (α=0.1, β=0.05,
    ε=1, δ=1e−6): d=p=1 → n ≈ 2.2e7; d=p=2 → 6.2e7; d=p=4 → 1.9e8."""
    chain = thm10_chain(d, p, alpha, beta, eps, delta)
    return chain["n"], chain


@register("bassily2020.thm10.explicit.m", explicit=True, variant="derived")
def thm10_explicit_m(*, d, alpha, beta):
    """Thm 10 explicit chain, public sample m = min n_pub(d, α/4, β/2). Spec sanity (α=0.1,
    β=0.05): d = 1, 2, 4 → 3888, 7009, 13243."""
    return min_npub(d, alpha / 4, beta / 2)


@register("bassily2020.thm13.n", explicit=False)
def thm13_n(*, p, alpha, c=1.0):
    """Thm 13 (stumps S_p, (1, 1/(4n))-DP, (α,α)-accurate): n = Ω(√p/α) or m = Ω(1/α²);
    private side c·√p/α."""
    return c * math.sqrt(p) / alpha


@register("bassily2020.thm13.m", explicit=False)
def thm13_m(*, alpha, c=1.0):
    """Thm 13, public side of the dichotomy: m = Ω(1/α²), i.e. c/α²."""
    return c / alpha ** 2


@register("bassily2020.thm13.eps", explicit=True)
def thm13_eps(*, n):
    """Thm 13 (proof): tracing forces ε ≥ ln(n/4), so (1, 1/(4n))-DP fails once ln(n/4) > 1,
    i.e. n ≥ 11. Returns ln(n/4)."""
    return math.log(n / 4)


@register("bassily2020.thm15", explicit=False)
def thm15(*, alpha, c=1.0):
    """Thm 15 (infinite Littlestone dimension): any PAP release needs m = Ω(1/α) public samples,
    for any n; returns c/α."""
    return c / alpha


@register("bassily2020.lemma17", explicit=False)
def lemma17(*, n, alpha, beta, c=1.0):
    """Lemma 17: an (α,β,ε,δ)-PAP release on (n, m) gives an (O(α),O(β),O(ε),O(δ))-PAP learner
    with n' = c·n·ln(1/(αβ))/(α²β) private samples and the same m."""
    return c * n * math.log(1 / (alpha * beta)) / (alpha ** 2 * beta)


@register("bassily2020.stumps.public", explicit=True, variant="derived")
def stumps_public(*, p, alpha, beta):
    """Decision stumps S_p released from public data alone [derived, Hoeffding + union over p
    stumps on the ±1 scale]: m = ⌈2·ln(2p/β)/α²⌉."""
    return math.ceil(2 * math.log(2 * p / beta) / alpha ** 2)


@register("bassily2020.remark9", explicit=True)
def remark9(*, d, alpha):
    """Remark 9: any answer vector G can be turned (inefficiently) into synthetic data of size
    n' > VC(H)/α² with error ≤ 2α; returns the threshold d/α²."""
    return d / alpha ** 2
