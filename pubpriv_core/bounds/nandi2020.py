"""Nandi & Bassily (ALT 2020): privately answering classification queries in the agnostic PAC model.

``d`` = VC(H), ``m`` = number of classification queries, ``n`` private samples. Natural logs (the
paper never fixes the base; Claim 3.6 uses exp). Õ(·) shapes take the constant ``c``; the "≈"
forms (ε = Θ(1), logs dropped) are registered as ``*.approx`` for the comparison plots.
"""
from __future__ import annotations

import math

from scipy import stats

from .registry import register
from .search import smallest_integer


def _complexity(d: int, alpha: float, count: float, beta: float) -> float:
    """d·ln(1/α) + ln(count/β), the VC term of Thm 3.3 (count = m) and Thm 4.1 (count = m_o)."""
    return d * math.log(1 / alpha) + math.log(count / beta)


def _check_thm3_3(bound_id: str, m: float, alpha: float, beta: float) -> None:
    need = 8 * math.log(1 / (alpha * beta)) / alpha
    if m < need:
        raise ValueError(f"{bound_id}: Thm 3.3 assumes m >= 8·ln(1/(αβ))/α = {need:.4g}, got m={m}")


def _thm3_3_core(d, m, alpha, beta, delta) -> float:
    """(d ln(1/α) + ln(m/β))·ln^{3/2}(2/δ)·ln(mα/min(δ, β/2))·max(1, √m·α^{3/2})/α²."""
    return (_complexity(d, alpha, m, beta) * math.log(2 / delta) ** 1.5
            * math.log(m * alpha / min(delta, beta / 2))
            * max(1.0, math.sqrt(m) * alpha ** 1.5) / alpha ** 2)


@register("nandi2020.lemma2.3", explicit=False)
def lemma2_3(*, d, m, alpha, eps, c=1.0):
    """Lemma 2.3 (BTT18, realizable): n = Õ(d/(εα)·max(1, √(mα))) = c·d/(εα)·max(1, √(mα))."""
    return c * d / (eps * alpha) * max(1.0, math.sqrt(m * alpha))


@register("nandi2020.lemma2.3.T", explicit=False)
def lemma2_3_T(*, m, alpha, c=1.0):
    """Lemma 2.3 (BTT18, realizable): sparse-vector cutoff T = max(1, Õ(mα)) = max(1, c·mα)."""
    return max(1.0, c * m * alpha)


@register("nandi2020.lemma2.4", explicit=False)
def lemma2_4(*, d, m, alpha, eps, c=1.0):
    """Lemma 2.4 (BTT18, agnostic, error ≤ α + 3γ): n = c·d/(εα²)·max(1, √(mα))."""
    return c * d / (eps * alpha ** 2) * max(1.0, math.sqrt(m * alpha))


@register("nandi2020.lemma3.2", explicit=True)
def lemma3_2(*, d, alpha, beta):
    """Lemma 3.2 (A_Relabel): n' ≥ 256·(d + ln(3/β))/α² ⇒ w.p. ≥ 1−β
    err(ĥ; D) − err(h^ERM_{S'}; D) ≤ α."""
    return 256 * (d + math.log(3 / beta)) / alpha ** 2


@register("nandi2020.thm3.3", explicit=False)
def thm3_3(*, d, m, alpha, beta, eps, delta, c=1.0):
    """Thm 3.3 / Lemma 3.5 (A_AgPrivCl): n = c·[(d·ln(1/α) + ln(m/β))·ln^{3/2}(2/δ)·
    ln(mα/min(δ, β/2))]/(ε·α²)·max(1, √m·α^{3/2}), provided m ≥ 8·ln(1/(αβ))/α."""
    _check_thm3_3("nandi2020.thm3.3", m, alpha, beta)
    return c * _thm3_3_core(d, m, alpha, beta, delta) / eps


@register("nandi2020.thm3.3.explicit", explicit=True, variant="derived")
def thm3_3_explicit(*, d, m, alpha, beta, eps, delta):
    """Thm 3.3 with the proof's constants: n' = 8000·[...]/α²·max(1, √m·α^{3/2}) and
    n = 56·n'/ε (overall 448,000/ε). Spec sanity: d=10, m=1000, α=0.1, β=0.1, ε=1, δ=1e−5
    → n ≈ 9.9e11."""
    _check_thm3_3("nandi2020.thm3.3.explicit", m, alpha, beta)
    n_prime = 8000 * _thm3_3_core(d, m, alpha, beta, delta)
    return 56 * n_prime / eps, {"n_prime": n_prime}


def alg3_parameters(*, m, alpha, beta, delta, eps=None, n=None) -> dict:
    """Alg. 3 (A_AgPrivCl) and the Alg. 5 (A_SubSamp) parameters it induces, literal constants.

    Alg. 3: T = max(1, mα/8 + √(3mα·ln(m/β))/4); ε' = α·max(1, √(mα));
    ε̂ = min(1, ε')/ln(2/δ); δ̂ = δ/(2·e^{min(1,ε')}·ln(2/δ)); n' = (ε/56)·n (if n, ε given).
    Alg. 5 at (ε̂, δ̂): λ = √(32·T·ln(2/δ̂))/ε̂; k = 34√2·λ·ln(4mT/min(δ̂, β/2));
    w = 2λ·ln(2m/δ̂). Spec sanity (m=1000, α=0.1, β=0.1, δ=1e−5): T=25.6, ε̂=0.082, λ=1416,
    k=1.86e6, w=6.6e4.
    """
    t = max(1.0, m * alpha / 8 + math.sqrt(3 * m * alpha * math.log(m / beta)) / 4)
    eps_prime = alpha * max(1.0, math.sqrt(m * alpha))
    cap = min(1.0, eps_prime)
    eps_hat = cap / math.log(2 / delta)
    delta_hat = delta / (2 * math.exp(cap) * math.log(2 / delta))
    lam = math.sqrt(32 * t * math.log(2 / delta_hat)) / eps_hat
    k = 34 * math.sqrt(2) * lam * math.log(4 * m * t / min(delta_hat, beta / 2))
    w = 2 * lam * math.log(2 * m / delta_hat)
    out = {"T": t, "eps_prime": eps_prime, "eps_hat": eps_hat, "delta_hat": delta_hat,
           "lambda": lam, "k": k, "w": w, "w_over_k": w / k}
    if n is not None and eps is not None:
        out["n_prime"] = eps * n / 56
    return out


@register("nandi2020.alg3.T", explicit=True)
def alg3_T(*, m, alpha, beta, delta):
    """Alg. 3 cutoff T = max(1, mα/8 + √(3mα·ln(m/β))/4); ``details`` = all Alg. 3/5 parameters."""
    params = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)
    return params["T"], params


@register("nandi2020.alg3.eps_hat", explicit=True)
def alg3_eps_hat(*, m, alpha, beta, delta):
    """Alg. 3 per-query budget ε̂ = min(1, α·max(1, √(mα)))/ln(2/δ); ``details`` = all."""
    params = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)
    return params["eps_hat"], params


@register("nandi2020.alg3.n_prime", explicit=True)
def alg3_n_prime(*, n, eps):
    """Alg. 3 subsample size n' = (ε/56)·n (privacy amplification by sampling, Lemma 3.4)."""
    return eps * n / 56


@register("nandi2020.alg5.lambda", explicit=True)
def alg5_lambda(*, m, alpha, beta, delta):
    """Alg. 5 Laplace scale λ = √(32·T·ln(2/δ̂))/ε̂ at Alg. 3's (T, ε̂, δ̂); ``details`` = all."""
    params = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)
    return params["lambda"], params


@register("nandi2020.alg5.k", explicit=True)
def alg5_k(*, m, alpha, beta, delta):
    """Alg. 5 number of chunks k = 34√2·λ·ln(4mT/min(δ̂, β/2)); ``details`` = all parameters."""
    params = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)
    return params["k"], params


@register("nandi2020.alg5.w", explicit=True)
def alg5_w(*, m, alpha, beta, delta):
    """Alg. 5 vote-margin threshold w = 2λ·ln(2m/δ̂); ``details`` = all parameters."""
    params = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)
    return params["w"], params


def _chunk(d, m, alpha, beta, delta, constant: float):
    k = alg3_parameters(m=m, alpha=alpha, beta=beta, delta=delta)["k"]
    return constant * (d * math.log(1 / alpha) + math.log(8 * k / beta)) / alpha ** 2, {"k": k}


@register("nandi2020.thm3.3.chunk", explicit=True)
def thm3_3_chunk(*, d, m, alpha, beta, delta):
    """Thm 3.3 proof, per-chunk learner size as printed: n' ≥ 7200·(d·ln(1/α) + ln(8k/β))/α²,
    k from Alg. 5. 7200 = 50·12² is Claim 3.6 at deviation α/12."""
    return _chunk(d, m, alpha, beta, delta, 7200)


@register("nandi2020.thm3.3.chunk.corrected", explicit=True, variant="corrected")
def thm3_3_chunk_corrected(*, d, m, alpha, beta, delta):
    """Thm 3.3 proof, per-chunk size corrected: the proof needs Claim 3.6 at deviation α/24, i.e.
    50·24² = 28800 in place of 7200: n' ≥ 28800·(d·ln(1/α) + ln(8k/β))/α²."""
    return _chunk(d, m, alpha, beta, delta, 28800)


@register("nandi2020.claim3.6", explicit=True)
def claim3_6(*, d, alpha, beta):
    """Claim 3.6 as stated: n_o ≥ 50·(d·ln(1/α) + ln(1/β'))/α² (β' = beta) gives, w.p. ≥ 1−β',
    |dis − dis^| ≤ α for all pairs. Its constant can fall short of its own tail bound."""
    return 50 * (d * math.log(1 / alpha) + math.log(1 / beta)) / alpha ** 2


def log_claim3_6_fail(n: float, d: int, alpha: float) -> float:
    """ln of Claim 3.6's tail bound 2·(e·n/d)^{2d}·exp(−n·α²/8)."""
    return math.log(2) + 2 * d * math.log(math.e * n / d) - n * alpha ** 2 / 8


@register("nandi2020.claim3.6.root", explicit=True, variant="corrected")
def claim3_6_root(*, d, alpha, beta):
    """Claim 3.6 corrected: the smallest integer n_o with 2·(e·n_o/d)^{2d}·e^{−n_o·α²/8} ≤ β'
    (the proof's own tail bound; concave in ln-space with peak 16d/α², so the search is exact).
    Spec: at d=10, α=0.1, β'=0.1 it is ≈ 1.38 × the closed form."""
    target = math.log(beta)
    return smallest_integer(lambda n: log_claim3_6_fail(n, d, alpha) <= target,
                            math.ceil(16 * d / alpha ** 2))


def universal_public_size(d: int, alpha: float, beta: float) -> float:
    """Alg. 4 step 1: m_o = 32·(d·ln(1/α) + ln(1/β))/α."""
    return 32 * (d * math.log(1 / alpha) + math.log(1 / beta)) / alpha


@register("nandi2020.thm4.1.m_o", explicit=True)
def thm4_1_m_o(*, d, alpha, beta):
    """Thm 4.1 / Alg. 4 (A_UnvPrivCl): queries answered before switching, m_o = 32·(d·ln(1/α) +
    ln(1/β))/α (the theorem states O(·); Alg. 4 fixes 32)."""
    return universal_public_size(d, alpha, beta)


@register("nandi2020.thm4.1", explicit=False)
def thm4_1(*, d, alpha, beta, eps, delta, c=1.0):
    """Thm 4.1 (universal, any m): n = c·[(d·ln(1/α) + ln(m_o/β))·ln^{3/2}(2/δ)·
    ln(m_o·α/min(δ, β/2))]/(ε·α²)·max(1, √d·α·ln^{1/2}(1/α)), m_o from Alg. 4."""
    m_o = universal_public_size(d, alpha, beta)
    core = (_complexity(d, alpha, m_o, beta) * math.log(2 / delta) ** 1.5
            * math.log(m_o * alpha / min(delta, beta / 2)))
    spread = max(1.0, math.sqrt(d) * alpha * math.sqrt(math.log(1 / alpha)))
    return c * core * spread / (eps * alpha ** 2), {"m_o": m_o}


@register("nandi2020.remark1", explicit=False)
def remark1(*, d, alpha, c=1.0):
    """Remark 1: BTT18's construction + ABM19's semi-private learner gives a universal algorithm
    with n = Õ(VC/α²·max(1, √VC)) = c·d/α²·max(1, √d)."""
    return c * d / alpha ** 2 * max(1.0, math.sqrt(d))


@register("nandi2020.remark1.ratio.paper", explicit=True)
def remark1_ratio_paper(*, alpha):
    """Remark 1 as printed: Thm 4.1 is tighter than the BTT18-based bound "by a factor ≈ α",
    i.e. ratio 1/α."""
    return 1 / alpha


@register("nandi2020.remark1.ratio", explicit=True, variant="corrected")
def remark1_ratio(*, d, alpha):
    """Remark 1 corrected: the ≈ forms give ratio max(1, √d)/max(1, √d·α) = min(√d, 1/α)
    (d ≥ 1, α < 1): 1/α only when α ≥ 1/√d."""
    return max(1.0, math.sqrt(d)) / max(1.0, math.sqrt(d) * alpha)


@register("nandi2020.thm3.3.approx", explicit=False)
def thm3_3_approx(*, d, m, alpha, c=1.0):
    """Thm 3.3 "≈" form (ε = Θ(1), logs dropped): n ≈ c·d/α²·max(1, √m·α^{3/2})."""
    return c * d / alpha ** 2 * max(1.0, math.sqrt(m) * alpha ** 1.5)


@register("nandi2020.lemma2.4.approx", explicit=False)
def lemma2_4_approx(*, d, m, alpha, c=1.0):
    """Lemma 2.4 (BTT18 agnostic) "≈" form: n ≈ c·d/α²·max(1, √(mα))."""
    return c * d / alpha ** 2 * max(1.0, math.sqrt(m * alpha))


@register("nandi2020.thm3.3.gain", explicit=True, variant="derived")
def thm3_3_gain(*, m, alpha):
    """Improvement of Thm 3.3 over BTT18 (ratio of the "≈" forms):
    max(1, √(mα))/max(1, √m·α^{3/2}) = max(1, min(√(mα), 1/α))."""
    return max(1.0, math.sqrt(m * alpha)) / max(1.0, math.sqrt(m) * alpha ** 1.5)


@register("nandi2020.thm4.1.approx", explicit=False)
def thm4_1_approx(*, d, alpha, c=1.0):
    """Thm 4.1 "≈" form: n ≈ c·d/α²·max(1, √d·α)."""
    return c * d / alpha ** 2 * max(1.0, math.sqrt(d) * alpha)


@register("nandi2020.btt18.universal", explicit=False)
def btt18_universal(*, d, alpha, c=1.0):
    """BTT18's "relabel public data then learn" extension, as quoted: n ≈ c·d^{3/2}/α^{5/2}."""
    return c * d ** 1.5 / alpha ** 2.5


@register("nandi2020.df18", explicit=False)
def df18(*, d, alpha, eps, c=1.0):
    """Dwork–Feldman 2018, as quoted: n ≈ c·d/(ε·α³)."""
    return c * d / (eps * alpha ** 3)


@register("nandi2020.df19", explicit=False)
def df19(*, d, alpha, eps, c=1.0):
    """Dagan–Feldman 2019, as quoted: n ≈ c·(d/α² + d²/(ε·α))."""
    return c * (d / alpha ** 2 + d ** 2 / (eps * alpha))


@register("nandi2020.nonprivate", explicit=False)
def nonprivate(*, d, alpha, beta, c=1.0):
    """Non-private agnostic PAC sample complexity Θ((VC + ln(1/β))/α²) = c·(d + ln(1/β))/α²."""
    return c * (d + math.log(1 / beta)) / alpha ** 2


@register("nandi2020.lemma3.4.eps", explicit=True)
def lemma3_4_eps(*, eps):
    """Lemma 3.4 amplification: the (4, 4eδ)-DP inner algorithm run on an ε/56 subsample is
    ln(1 + (ε/56)(e⁴ − 1))-DP, which must be ≤ ε (it is ≤ 0.957ε for ε ≤ 1)."""
    return math.log1p(eps / 56 * math.expm1(4))


@register("nandi2020.lemma3.4.delta", explicit=True)
def lemma3_4_delta(*, eps, delta):
    """Lemma 3.4 amplification of δ: (ε/56)·4e·δ (≈ 0.194·ε·δ ≤ δ)."""
    return eps / 56 * 4 * math.e * delta


@register("nandi2020.lemma3.4.multiplicity", explicit=True)
def lemma3_4_multiplicity(*, delta):
    """Lemma 3.4 check [note]: the multiplicity r of a record in Ŝ is ≈ Poisson(1); the proof
    needs P[r > ln(2/δ)] ≤ δ/2. Returns the tail P[Poisson(1) > ln(2/δ)]; ``details['holds']``."""
    tail = float(stats.poisson.sf(math.floor(math.log(2 / delta)), 1.0))
    return tail, {"holds": tail <= delta / 2, "target": delta / 2}


@register("nandi2020.thm4.1.eps.paper", explicit=True)
def thm4_1_eps_paper(*, eps):
    """Thm 4.1 as stated: A_UnvPrivCl run at ε is (ε, δ)-DP (returns ε)."""
    return eps


@register("nandi2020.thm4.1.eps", explicit=True, variant="corrected")
def thm4_1_eps(*, eps):
    """Thm 4.1 corrected: both stages of Alg. 4 (A_AgPrivCl and A_SSPP) read S at ε, so basic
    composition gives (2ε, δ); run each stage at ε/2 to claim ε (returns 2ε)."""
    return 2 * eps
