"""Alon, Bassily, Moran (NeurIPS 2019): limits of private learning with access to public data.

``d`` = VC(H); labels {0,1}; natural logs. Lemma 3.3's cover bound is explicit inside its proof
and is the basis of every "minimum n_pub" calculation in the project (also Bassily et al. Lemma 11).
"""
from __future__ import annotations

import math

from .registry import register
from .search import log_growth, smallest_integer


def log_cover_fail(n_pub: float, d: int, alpha: float) -> float:
    """ln of Lemma 3.3's bound 2·(2e·n_pub/d)^{2d}·e^{−α·n_pub/4} (n_pub ≥ d)."""
    return math.log(2) + 2 * d * math.log(2 * math.e * n_pub / d) - alpha * n_pub / 4


def log_cover_fail_growth(n_pub: int, d: int, alpha: float) -> float:
    """ln of Lemma 3.3's bound with the exact growth bound:
    2·(Σ_{i≤d} C(2n_pub, i))²·e^{−α·n_pub/4}."""
    return math.log(2) + 2 * log_growth(2 * n_pub, d) - alpha * n_pub / 4


def min_npub(d: int, alpha: float, beta: float, log_fail=log_cover_fail) -> int:
    """Smallest integer n_pub with Lemma 3.3's failure bound ≤ β.

    ln fail is concave in n_pub with its peak at 8d/α (where it is > 0), so the bound is ≤ β
    exactly on [n̄, ∞) with n̄ > 8d/α: a monotone integer search from ⌈8d/α⌉ is exact.
    """
    target = math.log(beta)
    return smallest_integer(lambda n: log_fail(n, d, alpha) <= target, math.ceil(8 * d / alpha))


@register("alon2019.lemma3.3.fail", explicit=True)
def lemma3_3_fail(*, n_pub, d, alpha):
    """Lemma 3.3 (proof): P[Bad] ≤ 2·(2e·n_pub/d)^{2d}·e^{−α·n_pub/4}, Bad = some h1, h2 with
    dis(h1, h2; D_X) > α agree on T_pub (so the patterns of T_pub are not an α-cover). n_pub ≥ d.
    The value may exceed 1 (vacuous)."""
    if n_pub < d:
        raise ValueError(f"alon2019.lemma3.3.fail: needs n_pub >= d, got n_pub={n_pub}, d={d}")
    log_fail = log_cover_fail(n_pub, d, alpha)
    return math.exp(log_fail) if log_fail < 700 else math.inf


@register("alon2019.lemma3.3", explicit=True)
def lemma3_3(*, d, alpha, beta):
    """Lemma 3.3, minimum public sample: smallest integer n_pub with 2(2e·n_pub/d)^{2d}e^{−αn_pub/4}
    ≤ β. Spec sanity (β=0.05): (d, α) = (1, .1) → 820; (2, .1) → 1475; (4, .1) → 2784;
    (1, .05) → 1762; (1, .01) → 10216; (1, .001) → 121995."""
    return min_npub(d, alpha, beta)


@register("alon2019.lemma3.3.growth", explicit=True, variant="derived")
def lemma3_3_growth(*, d, alpha, beta):
    """Lemma 3.3 with the exact growth bound Σ_{i≤d} C(2n_pub, i) in place of (2e·n_pub/d)^d
    [harness, derived; tighter]: smallest n_pub with 2(Σ_{i≤d} C(2n_pub,i))²e^{−αn_pub/4} ≤ β."""
    return min_npub(d, alpha, beta, log_cover_fail_growth)


@register("alon2019.thm3.1.n_priv", explicit=False)
def thm3_1_n_priv(*, d, alpha, beta, eps, c=1.0):
    """Thm 3.1 (ASSPP, pure ε-DP, agnostic): n_priv = c·(d·ln(1/α) + ln(1/β))·max(1/α², 1/(εα))."""
    return c * (d * math.log(1 / alpha) + math.log(1 / beta)) * max(1 / alpha ** 2,
                                                                    1 / (eps * alpha))


@register("alon2019.thm3.1.n_pub", explicit=False)
def thm3_1_n_pub(*, d, alpha, beta, c=1.0):
    """Thm 3.1 (ASSPP): n_pub = c·(d·ln(1/α) + ln(1/β))/α unlabelled public examples."""
    return c * (d * math.log(1 / alpha) + math.log(1 / beta)) / alpha


@register("alon2019.thm4.1", explicit=True)
def thm4_1(*, alpha):
    """Thm 4.1 (infinite Littlestone dimension, approximate DP, even labelled public data): any
    (α, 1/18, 0.1, 1/(100·n_priv²·log n_priv))-SP learner has n_pub > 1/(1600α)."""
    return 1 / (1600 * alpha)


@register("alon2019.thm4.2", explicit=True)
def thm4_2(*, alpha):
    """Thm 4.2 (pure-DP dichotomy): if H is not pure-privately learnable, every pure SP learner
    has n_pub > 1/(1600α)."""
    return 1 / (1600 * alpha)


def _check_lemma4_4(alpha: float) -> None:
    if alpha > 0.01:
        raise ValueError(f"alon2019.lemma4.4: the lemma assumes 0 < alpha <= 1/100, got {alpha}")


@register("alon2019.lemma4.4.alpha", explicit=True)
def lemma4_4_alpha(*, alpha, n_pub):
    """Lemma 4.4 (reduction, α ≤ 1/100): an (α, 1/18, ε, δ) agnostic SP learner gives a private
    realizable learner with error 100·n_pub·α (failure 1/16). Returns 100·n_pub·α."""
    _check_lemma4_4(alpha)
    return 100 * n_pub * alpha


@register("alon2019.lemma4.4.n", explicit=True)
def lemma4_4_n(*, alpha, n_priv, n_pub):
    """Lemma 4.4: the realizable learner uses ⌈n_priv/(10·n_pub)⌉ private samples; the mixing
    probability is p = 1/(100·n_pub) (``details['p']``)."""
    _check_lemma4_4(alpha)
    return math.ceil(n_priv / (10 * n_pub)), {"p": 1 / (100 * n_pub)}


@register("alon2019.asspp.excess", explicit=True, variant="derived")
def asspp_excess(*, alpha, H_size, beta, eps, n_priv):
    """ASSPP excess error [harness, derived — not the paper's]: with an α-cover H̃ (α = cover
    radius), w.p. ≥ 1 − β, err(h_priv) − inf_H err ≤ α + 2·√(ln(6|H̃|/β)/(2n_priv))
    + 2·ln(3|H̃|/β)/(ε·n_priv) (uniform convergence + exponential mechanism, β split in three)."""
    sampling = 2 * math.sqrt(math.log(6 * H_size / beta) / (2 * n_priv))
    selection = 2 * math.log(3 * H_size / beta) / (eps * n_priv)
    return alpha + sampling + selection, {"sampling": sampling, "selection": selection}
