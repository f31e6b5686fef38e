"""Private selection: pick a candidate with a high score.

Every function maximises ``scores`` (one float per candidate) of sensitivity Δ = ``sensitivity``
and is ε-DP for ε = ``eps`` (one invocation). The "quality" of candidate j is
p_j = exp(ε·(s_j − s*)/(2Δ)) with s* = max_j s_j, so p_j ∈ (0, 1] and the best candidate has 1.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import roots_legendre

from pubpriv_core.privacy._checks import generator, positive, score_vector

_QUADRATURE_CELLS = 2 ** 22  # node × candidate products evaluated at once in the exact PF formula
_TINY_SURVIVAL = 1e-9  # below this survival probability, tail survivors are drawn by count
_PILOT = 256  # candidates sampled to choose the tail cut
_SURVIVOR_COST = 6.0  # cost of one tail survivor, in head noise draws (measured, speed only)


def _scale(eps: float, sensitivity: float) -> float:
    """c = ε/(2Δ), the factor turning a score gap into a log-quality gap."""
    eps = positive("eps", eps, "pass the positive pure-DP parameter of one selection")
    sensitivity = positive("sensitivity", sensitivity, "pass the score's sensitivity Δ > 0")
    return eps / (2.0 * sensitivity)


def _default_tail_cut(scores: np.ndarray, best: float, scale: float,
                      rng: np.random.Generator) -> float:
    """Speed heuristic for the cut G of the head/tail split (any G ≥ 0 is exact).

    Work is about |head(G)| + SURVIVOR_COST·N·e^{−G} noise draws (a survivor costs a few head
    draws). |head(G)|/N is estimated from the gaps of a pilot of random candidates and the cost
    minimised over those gaps, capped at max(1, ln N) where under one survivor is expected. The
    pilot is independent of the selection noise, so the output distribution is unchanged.
    """
    cap = max(1.0, math.log(scores.size))
    if scores.size <= _PILOT:
        return cap
    gaps = np.sort(scale * (best - scores[rng.integers(scores.size, size=_PILOT)]))
    gaps = np.append(gaps[gaps < cap], cap)
    cost = np.arange(1, gaps.size + 1) / _PILOT + _SURVIVOR_COST * np.exp(-gaps)
    return float(gaps[np.argmin(cost)])


def _bernoulli_ranks(n: int, q: float, rng: np.random.Generator) -> np.ndarray:
    """Sorted ranks in range(n), each kept independently with probability q ∈ [0, 1].

    The gaps between consecutive kept ranks of a Bernoulli(q) process are i.i.d. Geometric(q),
    so the kept ranks are the partial sums of geometric draws that stay below n (cost O(nq)).
    For q < 1e-9 (geometric draws could overflow) the count is drawn as Binomial(n, q) and that
    many distinct ranks are chosen uniformly.
    """
    if q >= 1:
        return np.arange(n)
    if q < _TINY_SURVIVAL:
        k = rng.binomial(n, q)
        return np.sort(rng.choice(n, size=k, replace=False)) if k else np.empty(0, np.int64)
    batch = int(n * q + 4 * math.sqrt(n * q) + 8)
    ranks = np.cumsum(rng.geometric(q, size=batch)) - 1
    while ranks[-1] < n:
        ranks = np.concatenate([ranks, ranks[-1] + np.cumsum(rng.geometric(q, size=batch))])
    return ranks[:np.searchsorted(ranks, n)]


def _tail_survivors(head: np.ndarray, n_candidates: int, survival: float,
                    rng: np.random.Generator) -> np.ndarray:
    """Indices of the tail candidates (those not in sorted ``head``) whose noise exceeds the bar.

    Each tail candidate survives independently with probability ``survival``. A tail rank r maps
    to index r + #{i : head_i − i ≤ r} (head_i − i tail items precede head_i), so the tail is
    never materialised.
    """
    n_tail = n_candidates - head.size
    if n_tail == 0:
        return np.empty(0, dtype=np.intp)
    ranks = _bernoulli_ranks(n_tail, survival, rng)
    return ranks + np.searchsorted(head - np.arange(head.size), ranks, side="right")


def _head(scores: np.ndarray, best: float, scale: float, tail_cut: float | None,
          rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """The cut G and the sorted indices of the head, the candidates with gap u_j ≤ G."""
    cut = _default_tail_cut(scores, best, scale, rng) if tail_cut is None else float(tail_cut)
    if not cut >= 0:
        raise ValueError(f"tail_cut must be >= 0, got {tail_cut}; pass a non-negative gap or None")
    return cut, np.flatnonzero(scores >= best - cut / scale)


def permute_and_flip(scores, eps: float, sensitivity: float, rng: np.random.Generator,
                     *, tail_cut: float | None = None, ties: Ties | None = None) -> int:
    """Permute-and-flip (McKenna & Sheldon 2020, Alg. 1), exact and sub-linear in noise draws.

    Literal mechanism: visit candidates in uniformly random order, accept r with probability p_r,
    return the first accepted. It equals report-noisy-max with Exponential(2Δ/ε) noise (Ding,
    Zhang, Wang & Kifer 2021, "The Permute-and-Flip Mechanism is Identical to Report-Noisy-Max
    with Exponential Noise"), i.e. argmax_j (−u_j + E_j) with gaps u_j = ε(s* − s_j)/(2Δ) and
    E_j ~ Exp(1) i.i.d.

    Exact shortcut: candidates with u_j > G (the tail) can only win when E_j > u_j > G, because
    the best candidate has value E ≥ 0. Each tail candidate has E_j > G independently with
    probability e^{−G} (so their number is Binomial(N_tail, e^{−G}) and, given it, they are a
    uniform subset of the tail), and by memorylessness such a survivor's noise is G + Exp(1); the
    others cannot win. So noise is drawn only for the head (u_j ≤ G) and for those survivors.
    Any G ≥ 0 gives the same distribution; ``tail_cut`` overrides the speed heuristic that picks
    G (tests use it). ``ties`` adds tied candidates (see :func:`_tie_winner`): the maximum of m
    i.i.d. Exp(1) variables has CDF (1 − e^{−x})^m, so a group's best noise is drawn by inversion.
    """
    scores, best = score_vector(scores)
    scale = _scale(eps, sensitivity)
    cut, head = _head(scores, best, scale, tail_cut, generator(rng))
    survivors = _tail_survivors(head, scores.size, math.exp(-cut), rng)
    head_values = scale * (scores[head] - best) + rng.standard_exponential(head.size)
    tail_values = scale * (scores[survivors] - best) + cut + \
        rng.standard_exponential(survivors.size)
    winner, value = _argmax(np.concatenate([head, survivors]),
                            np.concatenate([head_values, tail_values]))
    if ties is None:
        return winner
    return _tie_winner(winner, value, ties, scale, best, scores.size, rng, _max_exponential)


def _argmax(candidates: np.ndarray, values: np.ndarray) -> tuple[int, float]:
    i = int(np.argmax(values))
    return int(candidates[i]), float(values[i])


Ties = tuple[np.ndarray, np.ndarray]


def _max_exponential(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """max of m i.i.d. Exp(1) for each m in ``counts``: −log(1 − U^{1/m}) (inverse CDF)."""
    uniform = 1.0 - rng.random(counts.size)
    return -np.log(-np.expm1(np.log(uniform) / counts))


def _max_gumbel(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """max of m i.i.d. standard Gumbel for each m in ``counts``: Gumbel + log m."""
    return rng.gumbel(size=counts.size) + np.log(counts)


def _tie_winner(winner: int, value: float, ties: Ties, scale: float, best: float, n: int,
                rng: np.random.Generator, group_max) -> int:
    """Resolve selection over ``scores`` plus tied groups ``ties = (values, counts)``.

    Group g stands for counts[g] extra candidates of score values[g], numbered after the n
    scored ones (group 0 first). Report-noisy-max over the union compares the scored winner's
    noisy value with each group's best noisy value, scale·(v_g − s*) + max of counts[g] i.i.d.
    noises (``group_max``); the noises are i.i.d., so the winner within a group is uniform.
    Exact; costs O(#groups) instead of O(Σ counts).
    """
    tie_values, counts = _check_ties(ties)
    if counts.size == 0:
        return winner
    group_values = scale * (tie_values - best) + group_max(counts.astype(float), rng)
    g = int(np.argmax(group_values))
    if group_values[g] <= value:
        return winner
    offset = n + int(counts[:g].sum())
    return offset + int(rng.integers(counts[g]))


def _check_ties(ties: Ties) -> Ties:
    values, counts = (np.asarray(t) for t in ties)
    if values.shape != counts.shape or values.ndim != 1 or not np.all(np.isfinite(values)) \
            or np.any(counts < 1):
        raise ValueError("ties must be (values, counts): 1-D arrays of equal length, finite "
                         "values and counts >= 1")
    return values.astype(float), counts.astype(np.int64)


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
    bounded-range mechanism (Cesar & Rogers 2021).

    Exact shortcut as in :func:`permute_and_flip`: draw g for the head (u_j ≤ G) and let M be the
    best head value. A tail candidate (u_j > G) can only win if g_j > M + u_j > M + G; each does so
    independently with probability q = P(g > M + G) = 1 − exp(−e^{−(M+G)}), and a survivor's noise,
    conditioned on exceeding M + G, is −log(−log(1 − Vq)) with V ~ U(0, 1]. ``ties`` adds tied
    candidates as in :func:`permute_and_flip` (the max of m i.i.d. Gumbels is Gumbel + log m).
    """
    scores, best = score_vector(scores)
    scale = _scale(eps, sensitivity)
    cut, head = _head(scores, best, scale, tail_cut, generator(rng))
    head_values = scale * (scores[head] - best) + rng.gumbel(size=head.size)
    bar = float(head_values.max()) + cut
    survival = 1.0 if bar < -50 else -math.expm1(-math.exp(-bar))
    survivors = _tail_survivors(head, scores.size, survival, rng)
    uniform = 1.0 - rng.random(survivors.size)
    tail_values = scale * (scores[survivors] - best) - np.log(-np.log1p(-uniform * survival))
    winner, value = _argmax(np.concatenate([head, survivors]),
                            np.concatenate([head_values, tail_values]))
    if ties is None:
        return winner
    return _tie_winner(winner, value, ties, scale, best, scores.size, rng, _max_gumbel)


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
