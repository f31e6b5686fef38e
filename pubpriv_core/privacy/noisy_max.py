"""Exact report-noisy-max over many candidates, drawing noise for few of them.

Selection by noisy max returns argmax_j (−u_j + X_j), with gaps u_j = c·(s* − s_j) ≥ 0
(c = ε/(2Δ), s* the best score) and X_j i.i.d. noise: Exp(1) gives permute-and-flip (Ding, Zhang,
Wang & Kifer 2021), standard Gumbel gives the exponential mechanism (Gumbel-max).

Head/tail split. Fix a cut G ≥ 0; the head is {j : u_j ≤ G}, the tail the rest. Draw the head's
noise and let M be the best head value. A tail candidate can only win if X_j > M + u_j > M + G
=: B. Given the head, each tail candidate does so independently with probability S(B) = P(X > B),
and a survivor's noise is distributed as X conditioned on X > B (for Exp(1), by memorylessness,
B + Exp(1)). Non-survivors score below M and cannot win. So the result is exact for every G,
and noise is drawn only for the head and the ~N_tail·S(B) survivors (S(B) ≈ e^{−G}/Σ_head p_j).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numba as nb
import numpy as np

from pubpriv_core.privacy.uniform_integers import uniform_integers

_PILOT = 256  # candidates sampled to choose the cut G (speed only)
_SURVIVOR_COST = 6.0  # cost of one tail survivor, in head noise draws (speed only)
_TINY_SURVIVAL = 1e-9  # below this survival probability, survivors are drawn by count
_SCAN_BLOCK = 16  # scores tested per block in the head scan (speed only)

Ties = tuple[np.ndarray, np.ndarray]
_NO_PILOT = np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class NoiseLaw:
    """An i.i.d. noise law X for noisy max: sampler, survival S(x) = P(X > x), sampler of X given
    X > x, and sampler of the maximum of m i.i.d. copies (for tied groups)."""

    draw: Callable[[np.random.Generator, int], np.ndarray]
    survival: Callable[[float], float]
    above: Callable[[np.random.Generator, float, int], np.ndarray]
    group_max: Callable[[np.random.Generator, np.ndarray], np.ndarray]


def _exponential_above(rng: np.random.Generator, x: float, size: int) -> np.ndarray:
    """Exp(1) given > x: max(x, 0) + Exp(1) (memorylessness)."""
    return max(x, 0.0) + rng.standard_exponential(size)


def _exponential_group_max(rng: np.random.Generator, counts: np.ndarray) -> np.ndarray:
    """max of m i.i.d. Exp(1), CDF (1 − e^{−x})^m, by inversion: −log(1 − U^{1/m})."""
    uniform = 1.0 - rng.random(counts.size)
    return -np.log(-np.expm1(np.log(uniform) / counts))


def _gumbel_survival(x: float) -> float:
    """P(G > x) = 1 − exp(−e^{−x}) for a standard Gumbel G."""
    return 1.0 if x < -50 else -math.expm1(-math.exp(-x))


def _gumbel_above(rng: np.random.Generator, x: float, size: int) -> np.ndarray:
    """Gumbel given > x: solve S(g) = V·S(x), V ~ U(0, 1]: g = −log(−log(1 − V·S(x)))."""
    uniform = 1.0 - rng.random(size)
    return -np.log(-np.log1p(-uniform * _gumbel_survival(x)))


EXPONENTIAL = NoiseLaw(
    draw=lambda rng, size: rng.standard_exponential(size),
    survival=lambda x: 1.0 if x <= 0 else math.exp(-x),
    above=_exponential_above,
    group_max=_exponential_group_max,
)
GUMBEL = NoiseLaw(
    draw=lambda rng, size: rng.gumbel(size=size),
    survival=_gumbel_survival,
    above=_gumbel_above,
    group_max=lambda rng, counts: rng.gumbel(size=counts.size) + np.log(counts),
)


@nb.njit(nogil=True, cache=True)
def _pilot_cut(scores, pilot, best, scale, cap):
    """Speed heuristic for the cut G (any G ≥ 0 is exact).

    Work ≈ |head(G)| + SURVIVOR_COST·N·e^{−G}/Z(G) noise draws, Z(G) = Σ_head e^{−u_j} (the bar B
    sits about log Z above G). |head(G)| and Z(G) are estimated from the ``pilot`` (random
    candidates, independent of the selection noise, so the output distribution is unchanged):
    returns the pilot gap g_k below ``cap`` (or cap) minimising
    weight·k + SURVIVOR_COST·N·e^{−g_k} / (1 + weight·Σ_{i≤k} e^{−g_i}).
    The second term is ≥ 0, so the search stops once the first alone exceeds the best cost.
    """
    gaps = np.sort(scale * (best - scores[pilot]))
    weight = scores.size / pilot.size
    mass, best_cost, cut = 0.0, np.inf, cap
    for k in range(gaps.size + 1):
        if weight * (k + 1) > best_cost:
            break
        gap = gaps[k] if k < gaps.size and gaps[k] < cap else cap
        survival = np.exp(-gap)
        mass += survival
        cost = weight * (k + 1) + _SURVIVOR_COST * scores.size * survival / (1.0 + weight * mass)
        if cost < best_cost:
            best_cost, cut = cost, gap
        if gap == cap:
            break
    return cut


def bernoulli_ranks(n: int, q: float, rng: np.random.Generator) -> np.ndarray:
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
    ranks, last = _ranks_below(rng.geometric(q, size=batch), -1, n)
    while last < n:       # the whole batch fell below n: draw the next one
        more, last = _ranks_below(rng.geometric(q, size=batch), last, n)
        ranks = np.concatenate([ranks, more])
    return ranks


@nb.njit(nogil=True, cache=True)
def _ranks_below(gaps, start, n):
    """The partial sums start + gaps[0] + … + gaps[i] that are < n (ascending), and the last
    partial sum of all of ``gaps``."""
    out = np.empty(gaps.size, dtype=np.int64)
    size, rank = 0, start
    for i in range(gaps.size):
        rank += gaps[i]
        if rank < n:
            out[size] = rank
            size += 1
    return out[:size], rank


def tail_survivors(head: np.ndarray, n_candidates: int, survival: float,
                   rng: np.random.Generator) -> np.ndarray:
    """Indices of the tail candidates (those not in sorted ``head``) whose noise beats the bar.

    Each tail candidate survives independently with probability ``survival``. A tail rank r maps
    to index r + #{i : head_i − i ≤ r} (head_i − i tail items precede head_i), so the tail is
    never materialised.
    """
    n_tail = n_candidates - head.size
    if n_tail == 0:
        return np.empty(0, dtype=np.intp)
    return _tail_indices(head, bernoulli_ranks(n_tail, survival, rng))


@nb.njit(nogil=True, cache=True)
def _tail_indices(head, ranks):
    """r + #{i : head_i − i ≤ r} for each ascending tail rank r, by one merge of the two lists
    (``ranks + searchsorted(head − arange, ranks, "right")``)."""
    out = np.empty(ranks.size, dtype=np.int64)
    preceding = 0
    for i in range(ranks.size):
        while preceding < head.size and head[preceding] - preceding <= ranks[i]:
            preceding += 1
        out[i] = ranks[i] + preceding
    return out


def noisy_argmax(scores: np.ndarray, best: float, scale: float, law: NoiseLaw,
                 rng: np.random.Generator, tail_cut: float | None = None,
                 ties: Ties | None = None) -> int:
    """argmax_j (−u_j + X_j) over ``scores`` (and tied groups), exactly, by the head/tail split.

    ``scores`` is a checked 1-D float array with maximum ``best``; ``tail_cut`` fixes G (default:
    :func:`_pilot_cut` on _PILOT random candidates, capped at max(1, ln N); the cap itself for
    N ≤ _PILOT). ``ties`` are extra candidates, see :func:`_tie_winner`. The cut, the
    head and the best head value come from compiled scans (:func:`_head_scan`,
    :func:`_head_best`: one index buffer, no boolean mask or value arrays); the random draws are
    numpy's, in the order of the steps above.
    """
    n = scores.size
    if tail_cut is None:
        cut = max(1.0, math.log(n))
        pilot = uniform_integers(rng, n, _PILOT) if n > _PILOT else _NO_PILOT
    else:
        cut, pilot = float(tail_cut), _NO_PILOT
        if not cut >= 0:
            raise ValueError(f"tail_cut must be >= 0, got {tail_cut}; pass a non-negative gap "
                             "or None")
    head = np.empty(n, dtype=np.int64)
    cut, size = _head_scan(scores, best, scale, cut, pilot, head)
    head = head[:size]
    winner, value = _head_best(scores, head, best, scale, law.draw(rng, size))
    bar = value + cut
    survivors = tail_survivors(head, n, law.survival(bar), rng)
    if survivors.size:
        winner, value = _tail_best(scores, survivors, best, scale,
                                   law.above(rng, bar, survivors.size), winner, value)
    if ties is None:
        return winner
    return _tie_winner(winner, value, ties, scale, best, n, law, rng)


@nb.njit(nogil=True, cache=True)
def _head_scan(scores, best, scale, cut, pilot, out):
    """(G, h): the cut G — :func:`_pilot_cut` capped at ``cut`` when a pilot is given, else
    ``cut`` — and the head {j : scores[j] ≥ best − G/scale} written in ascending order to
    ``out[:h]`` (``np.flatnonzero`` of the comparison), in one pass over ``scores`` (a block of
    _SCAN_BLOCK holding a head member is read twice)."""
    if pilot.size:
        cut = _pilot_cut(scores, pilot, best, scale, cut)
    threshold = best - cut / scale
    size, block = 0, np.uintp(_SCAN_BLOCK)      # unsigned indices let the count vectorise
    end = np.uintp(scores.size) - np.uintp(scores.size) % block
    for start in range(np.uintp(0), end, block):
        if _count_at_least(scores, threshold, start, start + block):
            size = _append_head(scores, threshold, start, start + block, out, size)
    return cut, _append_head(scores, threshold, end, np.uintp(scores.size), out, size)


@nb.njit(nogil=True, cache=True)
def _count_at_least(scores, threshold, start, stop):
    """#{j in [start, stop) : scores[j] ≥ threshold}, without a branch."""
    count = 0
    for j in range(start, stop):
        count += scores[j] >= threshold
    return count


@nb.njit(nogil=True, cache=True)
def _append_head(scores, threshold, start, stop, out, size):
    """Append the j in [start, stop) with scores[j] ≥ threshold to out[size:]; new size.
    Without a branch: every j is written at out[size] (size ≤ j, so in bounds) and size moves
    on only past a head member."""
    for j in range(start, stop):
        out[size] = j
        size += scores[j] >= threshold
    return size


@nb.njit(nogil=True, cache=True)
def _head_best(scores, head, best, scale, noise):
    """(candidate, value) of the first largest −u_j + X_j = scale·(scores[j] − best) + noise
    over the head j = head[i] (``np.argmax`` of the head's noisy values)."""
    winner, value = head[0], scale * (scores[head[0]] - best) + noise[0]
    for i in range(1, head.size):
        current = scale * (scores[head[i]] - best) + noise[i]
        if current > value:
            winner, value = head[i], current
    return int(winner), float(value)


@nb.njit(nogil=True, cache=True)
def _tail_best(scores, survivors, best, scale, noise, winner, value):
    """The head's (winner, value) replaced by the first survivor whose noisy value is larger
    (``np.argmax`` over the head's values followed by the survivors')."""
    for i in range(survivors.size):
        current = scale * (scores[survivors[i]] - best) + noise[i]
        if current > value:
            winner, value = survivors[i], current
    return int(winner), float(value)


def _tie_winner(winner: int, value: float, ties: Ties, scale: float, best: float, n: int,
                law: NoiseLaw, rng: np.random.Generator) -> int:
    """Resolve selection over the scored candidates plus tied groups ``ties = (values, counts)``.

    Group g stands for counts[g] extra candidates of score values[g], numbered after the n
    scored ones (group 0 first). Noisy max over the union compares the scored winner's noisy
    value with each group's best noisy value, c·(v_g − s*) + max of counts[g] i.i.d. noises
    (``law.group_max``); the noises are i.i.d., so the winner within a group is uniform.
    Exact; costs O(#groups) instead of O(Σ counts).
    """
    tie_values, counts = _check_ties(ties)
    if counts.size == 0:
        return winner
    g, group_value = _best_group(tie_values, best, scale,
                                 law.group_max(rng, counts.astype(float)))
    if group_value <= value:
        return winner
    offset = n + int(counts[:g].sum())
    return offset + int(uniform_integers(rng, int(counts[g]), 1)[0])


@nb.njit(nogil=True, cache=True)
def _best_group(tie_values, best, scale, noise):
    """(g, value) of the first largest scale·(tie_values[g] − best) + noise[g] (``np.argmax``)."""
    g, top = 0, scale * (tie_values[0] - best) + noise[0]
    for i in range(1, tie_values.size):
        value = scale * (tie_values[i] - best) + noise[i]
        if value > top:
            g, top = i, value
    return g, top


def _check_ties(ties: Ties) -> Ties:
    values, counts = ties
    values, counts = np.asarray(values), np.asarray(counts)
    if values.shape != counts.shape or values.ndim != 1 or values.dtype.kind not in "biuf" \
            or counts.dtype.kind not in "biuf" or not _valid_groups(values, counts):
        raise ValueError("ties must be (values, counts): 1-D arrays of equal length, finite "
                         "values and counts >= 1; pass ties=(values, counts) or None")
    return values.astype(float, copy=False), counts.astype(np.int64, copy=False)


@nb.njit(nogil=True, cache=True)
def _valid_groups(values, counts):
    """Every value finite and every count ≥ 1 (``isfinite(values).all()`` and
    ``(counts >= 1).all()``)."""
    for i in range(values.size):
        if not (np.isfinite(values[i]) and counts[i] >= 1):
            return False
    return True
