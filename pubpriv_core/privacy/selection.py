"""Private selection: pick a candidate with a high score.

Every function maximises ``scores`` (one float per candidate) of sensitivity Δ = ``sensitivity``
and is ε-DP for ε = ``eps`` (one invocation). The "quality" of candidate j is
p_j = exp(ε·(s_j − s*)/(2Δ)) with s* = max_j s_j, so p_j ∈ (0, 1] and the best candidate has 1.
"""
from __future__ import annotations

import numpy as np
from scipy.special import roots_legendre

from pubpriv_core.privacy._checks import generator, positive, score_vector
from pubpriv_core.privacy.noisy_max import EXPONENTIAL, GUMBEL, Ties, noisy_argmax

_QUADRATURE_CELLS = 2 ** 22  # node × candidate products evaluated at once in the exact PF formula


def _scale(eps: float, sensitivity: float) -> float:
    """c = ε/(2Δ), the factor turning a score gap into a log-quality gap."""
    eps = positive("eps", eps, "pass the positive pure-DP parameter of one selection")
    sensitivity = positive("sensitivity", sensitivity, "pass the score's sensitivity Δ > 0")
    return eps / (2.0 * sensitivity)


def permute_and_flip(scores, eps: float, sensitivity: float, rng: np.random.Generator,
                     *, tail_cut: float | None = None, ties: Ties | None = None) -> int:
    """Permute-and-flip (McKenna & Sheldon 2020, Alg. 1), exact and sub-linear in noise draws.

    Literal mechanism: visit candidates in uniformly random order, accept r with probability p_r,
    return the first accepted. It equals report-noisy-max with Exponential(2Δ/ε) noise (Ding,
    Zhang, Wang & Kifer 2021, "The Permute-and-Flip Mechanism is Identical to Report-Noisy-Max
    with Exponential Noise"), i.e. argmax_j (−u_j + E_j) with gaps u_j = ε(s* − s_j)/(2Δ) and
    E_j ~ Exp(1) i.i.d., computed by :func:`~pubpriv_core.privacy.noisy_max.noisy_argmax`: noise
    is drawn for the head (u_j ≤ G) only; among the tail, the candidates whose noise exceeds the
    bar B = M + G (M the best head value, so B ≥ G) form an i.i.d. Bernoulli(e^{−B}) subset (a
    Binomial(N_tail, e^{−B}) number, uniformly placed) with noise B + Exp(1) by memorylessness;
    the other tail candidates cannot win. Any G ≥ 0 gives the same distribution; ``tail_cut``
    overrides the speed heuristic that picks G (tests use it).

    ``ties = (values, counts)`` adds counts[g] candidates of score values[g] per group, numbered
    after the scored ones, at O(#groups) cost (the max of m i.i.d. Exp(1) is drawn by inversion).
    """
    scores, best = score_vector(scores)
    return noisy_argmax(scores, best, _scale(eps, sensitivity), EXPONENTIAL, generator(rng),
                        tail_cut, ties)


def permute_and_flip_probabilities(scores, eps: float, sensitivity: float) -> np.ndarray:
    """Exact output distribution of :func:`permute_and_flip` (McKenna & Sheldon 2020).

    With a uniformly random order given by i.i.d. U(0,1) arrival times, r wins iff it accepts and
    every earlier candidate rejects: P(r) = p_r ∫_0^1 Π_{j≠r}(1 − t·p_j) dt. The integrand is a
    polynomial of degree N − 1 in t, so Gauss–Legendre quadrature with ⌈N/2⌉ nodes is exact.
    Cost O(N²): meant for checks on small candidate sets.
    """
    scores, best = score_vector(scores)
    quality = np.exp(_scale(eps, sensitivity) * (scores - best))
    nodes, weights = roots_legendre(scores.size // 2 + 1)
    t, w = (nodes + 1.0) / 2.0, weights / 2.0
    probabilities = np.zeros(scores.size)
    block = max(1, _QUADRATURE_CELLS // scores.size)
    for start in range(0, t.size, block):
        log_terms = np.log1p(-np.outer(t[start:start + block], quality))
        log_others = log_terms.sum(axis=1, keepdims=True) - log_terms
        probabilities += w[start:start + block] @ np.exp(log_others)
    return quality * probabilities


def exponential_mechanism(scores, eps: float, sensitivity: float, rng: np.random.Generator,
                          *, tail_cut: float | None = None, ties: Ties | None = None) -> int:
    """Exponential mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4, Thm 3.10).

    P(r) ∝ exp(ε·s_r/(2Δ)), sampled exactly by the Gumbel-max trick: argmax_j (−u_j + g_j) with
    g_j i.i.d. standard Gumbel and gaps u_j = ε(s* − s_j)/(2Δ). ε-DP, and ε²/8-zCDP as a
    bounded-range mechanism (Cesar & Rogers 2021). Same head/tail split as
    :func:`permute_and_flip`: a tail candidate survives the bar B with probability
    P(g > B) = 1 − exp(−e^{−B}), and its noise given g > B is −log(−log(1 − V·P(g > B))),
    V ~ U(0, 1]. ``tail_cut`` and ``ties`` as in :func:`permute_and_flip` (the max of m i.i.d.
    Gumbels is Gumbel + log m).
    """
    scores, best = score_vector(scores)
    return noisy_argmax(scores, best, _scale(eps, sensitivity), GUMBEL, generator(rng),
                        tail_cut, ties)


def exponential_mechanism_probabilities(scores, eps: float, sensitivity: float) -> np.ndarray:
    """Exact output distribution of :func:`exponential_mechanism`: softmax of ε·s/(2Δ)."""
    scores, best = score_vector(scores)
    quality = np.exp(_scale(eps, sensitivity) * (scores - best))
    return quality / quality.sum()


def report_noisy_max(scores, eps: float, sensitivity: float, rng: np.random.Generator) -> int:
    """Report-noisy-max with Laplace noise of scale 2Δ/ε: argmax_j (s_j + Lap(2Δ/ε)).

    Dwork & Roth 2014 (Claim 3.9) prove ε-DP with Lap(Δ/ε) for monotone scores such as counts;
    scale 2Δ/ε is the calibration for arbitrary sensitivity-Δ scores (the baseline compared in
    McKenna & Sheldon 2020 and Ding et al. 2021), the setting of every caller here: scores like
    |q(A) − q(D)| are not monotone in the data.
    """
    scores, best = score_vector(scores)
    scale = _scale(eps, sensitivity)
    rng = generator(rng)
    return int(np.argmax(scores + rng.laplace(scale=1.0 / scale, size=scores.size)))


def exponential_samples(log_weights, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` i.i.d. indices j drawn with P(j) ∝ exp(log_weights_j), by inverting the
    cumulative weights on uniform draws. The caller's log-weights carry the mechanism's scale:
    log-weights ε·s_j/(2Δ) of scores s with sensitivity Δ make each draw the exponential
    mechanism at ε (ε-DP, ε-bounded-range)."""
    log_weights = np.asarray(log_weights, dtype=float)
    cdf = np.cumsum(np.exp(log_weights - log_weights.max()))
    picks = np.searchsorted(cdf, generator(rng).random(size) * cdf[-1], side="right")
    return np.minimum(picks, cdf.size - 1)
