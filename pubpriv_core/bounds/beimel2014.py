"""Beimel, Brenner, Kasiviswanathan, Nissim (MLJ 2014): bounds on private learning and data release.

Pure ε-DP. POINT_d over X_d = [T], T = 2^d: here ``d`` is the number of bits (log2 |X_d|), except in
``beimel2014.thm2.4`` where it is the VC dimension (Blumer et al. hold for any class). Logarithms
are natural; explicit inequalities are evaluated exactly, O/Ω shapes take the constant ``c``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .registry import register
from .search import positive_window, smallest_integer

LN4 = math.log(4.0)


def _log_points(d: int, minus: int) -> float:
    """ln(2^d − minus) exactly, for any d."""
    return math.log(2 ** d - minus)


@register("beimel2014.thm2.4", explicit=False)
def thm2_4(*, d, alpha, beta, c=1.0):
    """Blumer et al. (Thm 2.4), non-private PAC: m = c·(d·ln(1/α) + ln(1/β))/α, d = VC dimension."""
    return c * (d * math.log(1 / alpha) + math.log(1 / beta)) / alpha


@register("beimel2014.thm2.4.lower", explicit=False)
def thm2_4_lower(*, alpha, beta, c=1.0):
    """Thm 2.4 lower side for POINT̂_d: Ω(ln(1/β)/α) non-private samples, i.e. c·ln(1/β)/α."""
    return c * math.log(1 / beta) / alpha


@register("beimel2014.thm3.2", explicit=False)
def thm3_2(*, H_size, alpha, beta, eps, c=1.0):
    """Thm 3.2 (generic learner, H α/2-represents C): m = c·(ln|H| + ln(1/β))/(εα)."""
    return c * (math.log(H_size) + math.log(1 / beta)) / (eps * alpha)


@register("beimel2014.thm3.2.derived", explicit=True, variant="derived")
def thm3_2_derived(*, H_size, alpha, beta, eps):
    """Thm 3.2 with constants derived for the spec [harness, derived — not the paper's]:

    m ≥ max{16·ln(3|H|/β)/(εα), 128·ln(3|H|/β)/α, 24·ln(3/β)/α} suffices when H α/2-represents C.
    """
    log_h = math.log(3 * H_size / beta)
    terms = {"privacy": 16 * log_h / (eps * alpha), "uniform": 128 * log_h / alpha,
             "chernoff": 24 * math.log(3 / beta) / alpha}
    return max(terms.values()), terms


@register("beimel2014.lemma3.4", explicit=False)
def lemma3_4(*, d, alpha, beta, eps, c=1.0):
    """Lemma 3.4, efficient proper learner for POINT_d: m = c·(d + ln(1/β))/(εα)."""
    return c * (d + math.log(1 / beta)) / (eps * alpha)


def lemma3_4_success(m: int, d: int, alpha: float, eps: float) -> float:
    """Exact success probability of the Lemma 3.4 learner on the hard distribution D_i.

    D_i puts mass 1−α on point 1 and α on point i, target c_i. With K ~ Bin(m, α) copies of i,
    c_i has 0 mistakes, c_1 has m, every other c_j has K, so
    P[output c_i] = Σ_K Bin(K; m, α) / (1 + e^{−εm/2} + (T−2)·e^{−εK/2}), T = 2^d.
    """
    k = np.arange(m + 1)
    log_rest = _log_points(d, 2) - eps * k / 2 if d > 1 else np.full(m + 1, -np.inf)
    with np.errstate(over="ignore"):
        denom = 1.0 + math.exp(-eps * m / 2) + np.exp(log_rest)
    return float(np.sum(stats.binom.pmf(k, m, alpha) / denom))


@register("beimel2014.lemma3.4.exact", explicit=True, variant="derived")
def lemma3_4_exact(*, d, alpha, beta, eps):
    """Lemma 3.4 learner, exact n* on its hard distribution [harness, derived]:

    smallest m with Σ_K Bin(K; m, α)/(1 + e^{−εm/2} + (2^d−2)e^{−εK/2}) ≥ 1 − β (success = output
    the target; monotone in m, found by doubling and bisection). Spec sanity at α=0.1, ε=1,
    β=0.05: d = 4, 8, 16, 32 → 134, 201, 328, 575.
    """
    return smallest_integer(lambda m: lemma3_4_success(m, d, alpha, eps) >= 1 - beta, 1)


@register("beimel2014.thm3.6", explicit=True)
def thm3_6(*, H_size, beta, eps):
    """Thm 3.6 (H α-minimal for C): any proper ε-DP learner needs m ≥ ln((|H|−1)(1−β)/β)/ε."""
    if H_size < 2:
        raise ValueError(f"beimel2014.thm3.6: H_size must be >= 2, got {H_size}")
    return (math.log(H_size - 1) + math.log((1 - beta) / beta)) / eps


@register("beimel2014.thm3.6.shape", explicit=False)
def thm3_6_shape(*, H_size, beta, eps, c=1.0):
    """Thm 3.6 shape: Ω((ln|H| + ln(1/β))/ε), i.e. c·(ln|H| + ln(1/β))/ε."""
    return c * (math.log(H_size) + math.log(1 / beta)) / eps


@register("beimel2014.cor3.8", explicit=True)
def cor3_8(*, d, beta, eps):
    """Prop 3.7 / Cor 3.8 (POINT_d is α-minimal): proper learning needs m ≥ ln((2^d−1)(1−β)/β)/ε.

    Spec sanity (β=0.05, ε=1): d = 8, 16, 32, 64 → 8.5, 14.0, 25.1, 47.3.
    """
    return (_log_points(d, 1) + math.log((1 - beta) / beta)) / eps


def _lemma3_9_gap(d: int, alpha: float, beta: float, eps: float):
    """Sign-equivalent log form of g(m) = (2^d − 2)·e^{−4εαm}·(1 − Γ) − Γ, Γ = β + e^{−αm/3}:
    ln(2^d − 2) − 4εαm + ln(1 − Γ) − ln Γ (−1e300 where Γ ≥ 1). Learning needs g(m) ≤ 0."""
    log_pts = _log_points(d, 2)

    def gap(m: float) -> float:
        gamma = beta + math.exp(-alpha * m / 3)
        if gamma >= 1:
            return -1e300
        return log_pts - 4 * eps * alpha * m + math.log1p(-gamma) - math.log(gamma)
    return gap


@register("beimel2014.lemma3.9", explicit=True)
def lemma3_9(*, d, alpha, beta, eps):
    """Lemma 3.9 (proper POINT_d), implicit: a learner with m samples needs
    (2^d − 2)·exp(−4εαm)·(1 − Γ) ≤ Γ, Γ = β + exp(−αm/3).

    Returns the largest root m̄ of the violation: every m just below m̄ is impossible. For small m
    the condition is vacuous (Γ ≥ 1), so the bound excludes only the window where it is violated;
    ``details['m_low']`` is where that window starts (0.0 value means vacuous for all m). d ≥ 2.
    """
    if d < 2:
        raise ValueError("beimel2014.lemma3.9: needs d >= 2 (2^d − 2 hard targets); pass d >= 2")
    gap = _lemma3_9_gap(d, alpha, beta, eps)
    hi = 100 * (d + math.log(1 / beta)) / (eps * alpha) + 100 / alpha
    low, top = positive_window(gap, 1e-6, hi)
    return top, {"m_low": low}


@register("beimel2014.lemma3.9.closed", explicit=True, variant="derived")
def lemma3_9_closed(*, d, alpha, beta, eps):
    """Lemma 3.9 in closed form [harness, derived]: when m ≥ 3·ln(1/β)/α, Γ ≤ 2β, so
    m ≥ [ln(2^d − 2) + ln((1 − 2β)/(2β))]/(4εα). ``details['valid_from']`` = 3·ln(1/β)/α.
    """
    if d < 2 or beta >= 0.5:
        raise ValueError("beimel2014.lemma3.9.closed: needs d >= 2 and beta < 0.5")
    value = (_log_points(d, 2) + math.log((1 - 2 * beta) / (2 * beta))) / (4 * eps * alpha)
    return value, {"valid_from": 3 * math.log(1 / beta) / alpha}


@register("beimel2014.lemma3.9.shape", explicit=False)
def lemma3_9_shape(*, d, alpha, beta, eps, c=1.0):
    """Lemma 3.9 shape: Ω((d + ln(1/β))/(εα)), i.e. c·(d + ln(1/β))/(εα)."""
    return c * (d + math.log(1 / beta)) / (eps * alpha)


@register("beimel2014.lemma3.10", explicit=True)
def lemma3_10(*, d, alpha):
    """Lemma 3.10: for α < 1/2 every H that α-represents POINT_d has |H| ≥ d (returns d)."""
    if alpha >= 0.5:
        raise ValueError(f"beimel2014.lemma3.10: needs alpha < 1/2, got {alpha}")
    return float(d)


def representation_size(d: int, alpha: float) -> float:
    """Lemma 4.1: k = 8e·d·(1 + ⌊1/α⌋)² random sets, so |H_d| = k = O(d/α²)."""
    return 8 * math.e * d * (1 + math.floor(1 / alpha)) ** 2


@register("beimel2014.lemma4.1", explicit=True)
def lemma4_1(*, d, alpha):
    """Lemma 4.1 (d ≥ 16): an α-representation of POINT_d of size k = 8e·d·(1 + ⌊1/α⌋)²."""
    if d < 16:
        raise ValueError(f"beimel2014.lemma4.1: the lemma assumes d >= 16, got d={d}")
    return representation_size(d, alpha)


@register("beimel2014.lemma4.1.plane", explicit=False)
def lemma4_1_plane(*, d, alpha, c=1.0):
    """Lemma 4.1 alternative (projective plane lines, q ≥ 1/α): |H| = O(√T/α) = c·2^{d/2}/α."""
    return c * 2.0 ** (d / 2) / alpha


@register("beimel2014.thm4.2", explicit=False)
def thm4_2(*, d, alpha, beta, eps, c=1.0):
    """Thm 4.2 (improper POINT_d): m = c·(ln d + ln(1/α) + ln(1/β))/(εα)."""
    return c * (math.log(d) + math.log(1 / alpha) + math.log(1 / beta)) / (eps * alpha)


@register("beimel2014.thm4.2.derived", explicit=True, variant="derived")
def thm4_2_derived(*, d, alpha, beta, eps):
    """Thm 4.2 with the derived Thm 3.2 constants and |H_d| = Lemma 4.1 built for α/2
    (8e·d·(1 + ⌊2/α⌋)²) [harness, derived]."""
    h_size = representation_size(d, alpha / 2)
    value, terms = thm3_2_derived(H_size=h_size, alpha=alpha, beta=beta, eps=eps)
    return value, {"H_size": h_size, **terms}


@register("beimel2014.claim4.3", explicit=True)
def claim4_3(*, alpha):
    """Claim 4.3: α < 1/2 and m' ≥ 32·ln(4)/α² ⇒ A2 is ln 4-DP and (α, 3/4)-PAC.

    Returns 32·ln(4)/α²."""
    if alpha >= 0.5:
        raise ValueError(f"beimel2014.claim4.3: needs alpha < 1/2, got {alpha}")
    return 32 * LN4 / alpha ** 2


def sampling_rate(eps: float, eps_star: float = LN4) -> float:
    """Lemma 4.4: f(ε, ε*) = (e^ε − 1)/(e^{ε*} + e^ε − e^{ε−ε*} − 1)."""
    return math.expm1(eps) / (math.exp(eps_star) + math.exp(eps) - math.exp(eps - eps_star) - 1)


@register("beimel2014.lemma4.4.f", explicit=True)
def lemma4_4_f(*, eps):
    """Lemma 4.4 keep-probability f(ε, ln 4) = (e^ε − 1)/(4 + e^ε − e^ε/4 − 1) (> ε/6 for ε < 1)."""
    return sampling_rate(eps)


@register("beimel2014.lemma4.4", explicit=True)
def lemma4_4(*, alpha, eps):
    """Lemma 4.4: A3 on 384·ln(4)/(ε·α²) examples (α = α_in) is ε-DP and (α, 4/5)-PAC (ε < 1)."""
    if eps >= 1:
        raise ValueError(f"beimel2014.lemma4.4: the lemma assumes eps < 1, got {eps}")
    return 384 * LN4 / (eps * alpha ** 2)


def _claim4_5(alpha: float, beta: float, eps: float, sel_log: float):
    runs = math.ceil(math.log(5 / beta) / math.log(5 / 4))
    per_run = math.ceil(24576 * LN4 / (eps * alpha ** 2))
    m_sel = math.ceil(24 * sel_log / (eps * alpha))
    return runs * per_run + m_sel, {"N": runs, "per_run": per_run, "m_sel": m_sel}


@register("beimel2014.claim4.5", explicit=True, variant="corrected")
def claim4_5(*, alpha, beta, eps):
    """Claim 4.5 (boosted A3), corrected selection size: N = ⌈log_{5/4}(5/β)⌉ runs of
    ⌈24576·ln4/(εα²)⌉ (A3 at α/8) plus m_sel = ⌈24·ln(3/β²)/(εα)⌉ (the size for which the
    proof's Chernoff steps hold). Spec sanity: α=0.1, β=0.01, ε=1 → 28 × 3,406,958 + 2,475.
    """
    return _claim4_5(alpha, beta, eps, math.log(3 / beta ** 2))


@register("beimel2014.claim4.5.paper", explicit=True)
def claim4_5_paper(*, alpha, beta, eps):
    """Claim 4.5 as printed: same N and runs, m_sel = ⌈24·ln(3/β)/(εα)⌉.

    Too small for the Chernoff steps of its own proof; see ``beimel2014.claim4.5``."""
    return _claim4_5(alpha, beta, eps, math.log(3 / beta))


@register("beimel2014.lemma5.2", explicit=True)
def lemma5_2(*, d, beta, eps):
    """Lemma 5.2 (proper INTERVAL_d, |C| = 2^d + 1) via Thm 3.6: m ≥ ln(2^d·(1−β)/β)/ε."""
    return (d * math.log(2) + math.log((1 - beta) / beta)) / eps


@register("beimel2014.lemma5.2.shape", explicit=False, variant="corrected")
def lemma5_2_shape(*, d, beta, eps, c=1.0):
    """Lemma 5.2 shape, corrected: Ω((d + ln(1/β))/ε) = c·(d + ln(1/β))/ε."""
    return c * (d + math.log(1 / beta)) / eps


@register("beimel2014.lemma5.2.shape.paper", explicit=False)
def lemma5_2_shape_paper(*, d, beta, eps, c=1.0):
    """Lemma 5.2 shape as printed, Ω((d + 1/β)/ε) = c·(d + 1/β)/ε (a typo for ln(1/β))."""
    return c * (d + 1 / beta) / eps


@register("beimel2014.thm7.1", explicit=False)
def thm7_1(*, d, alpha, beta, eps, c=1.0):
    """Thm 7.1 (Blum et al. 2008) for POINT_d (VC = 1, log|X_d| = d): an ε-DP (α,β)-useful sanitizer
    exists with m = c·(d·ln(1/α)/(α³ε) + ln(1/β)/(εα))."""
    return c * (d * math.log(1 / alpha) / (alpha ** 3 * eps) + math.log(1 / beta) / (eps * alpha))


@register("beimel2014.thm7.2", explicit=True)
def thm7_2(*, d, alpha, beta, eps):
    """Thm 7.2: an ε-DP (α,β)-useful sanitizer for POINT_d needs (T−1)·e^{−3εαm}·(1−β) < β, i.e.
    m > ln((2^d − 1)(1−β)/β)/(3εα) (α < 1/4). Spec sanity (α=0.1, β=0.05, ε=1): d = 8, 16, 32,
    64 → 28.3, 46.8, 83.8, 157.7.
    """
    if alpha >= 0.25:
        raise ValueError(f"beimel2014.thm7.2: the theorem assumes alpha < 1/4, got {alpha}")
    return (_log_points(d, 1) + math.log((1 - beta) / beta)) / (3 * eps * alpha)


@register("beimel2014.thm7.2.shape", explicit=False)
def thm7_2_shape(*, d, alpha, beta, eps, c=1.0):
    """Thm 7.2 shape: Ω((d + ln(1/β))/(εα)) = c·(d + ln(1/β))/(εα)."""
    return c * (d + math.log(1 / beta)) / (eps * alpha)


@register("beimel2014.laplace_histogram", explicit=True, variant="derived")
def laplace_histogram(*, d, alpha, beta, eps):
    """Laplace-histogram sanitizer for POINT_d [harness baseline]: noise Lap(2/(εm)) per cell is
    (α,β)-useful iff (1 − e^{−αεm/2})^T ≥ 1 − β, so m* = −2·ln(1 − (1−β)^{1/T})/(εα), T = 2^d."""
    log_x = math.log(-math.log1p(-beta)) - d * math.log(2)      # x = ln(1/(1−β))/T
    # ln(1 − e^{−x}) = ln x + ln((1 − e^{−x})/x), and the second term is −x/2 + O(x²) → 0
    log_cell = math.log(-math.expm1(-math.exp(log_x))) if log_x > -600 else log_x
    return -2 * log_cell / (eps * alpha)
