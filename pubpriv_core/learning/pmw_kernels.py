"""Compiled offline PMW loop of :func:`pubpriv_core.learning.bassily2020.offline_pmw`.

The loop (Dwork & Roth 2014, Alg. 8 via NumericSparse; the calibration is
:class:`~pubpriv_core.learning.bassily2020.PMWParams`) makes thousands of small steps per run —
scan a block of queries, draw its test noise, update the MW state — which cost ≈ 0.3 ms each as
numpy calls. Here the same steps run in one numba call and draw their noise from the run's own
``numpy.random.Generator`` (numba implements ``Generator.laplace`` with numpy's algorithm on the
same bit generator), in the same order and in the same blocks, with the same floating-point
operations as the numpy code: outputs, and the generator's state after, are identical
(``tests/test_learning_bassily2020.py`` checks both against a numpy reference loop).

Two MW states, as in ``bassily2020``: prefix queries over a line of K cells stored as pieces
(start, log-offset) — the pieces' masses are recomputed only after an update, not per scanned
block — and coordinate queries on {±1}^k (a product distribution, log-odds θ).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

PREFIX, PRODUCT = 0, 1


@nb.njit(cache=True)
def _prefix_cum(starts, offsets, pieces, K, cum):
    """cum[p] = mass of pieces < p (unnormalised, max offset 0); returns the max offset."""
    top = offsets[0]
    for p in range(1, pieces):
        top = max(top, offsets[p])
    cum[0] = 0.0
    for p in range(pieces):
        end = starts[p + 1] if p + 1 < pieces else K
        cum[p + 1] = cum[p] + (end - starts[p]) * math.exp(offsets[p] - top)
    return top


@nb.njit(cache=True)
def _prefix_answer(cut, starts, offsets, pieces, cum, top):
    """MW mass below ``cut``: the pieces before it plus the part of its own piece."""
    piece = np.searchsorted(starts[:pieces], cut, side="right") - 1
    below = cum[piece] + (cut - starts[piece]) * math.exp(offsets[piece] - top)
    return below / cum[pieces]


@nb.njit(cache=True)
def _prefix_update(cut, below, eta, starts, offsets, pieces, K):
    """Split at ``cut`` (new piece inherits its left neighbour's offset), then lower the
    prefix (``below``) or the suffix by η; returns the new piece count."""
    if 0 < cut < K:
        i = np.searchsorted(starts[:pieces], cut)
        if i == pieces or starts[i] != cut:
            for p in range(pieces, i, -1):
                starts[p] = starts[p - 1]
                offsets[p] = offsets[p - 1]
            starts[i] = cut
            offsets[i] = offsets[i - 1]
            pieces += 1
    for p in range(pieces):
        if (starts[p] < cut) == below:
            offsets[p] -= eta
    return pieces


@nb.njit(cache=True)
def _answer(kind, j, cuts, starts, offsets, pieces, cum, top, theta):
    if kind == PREFIX:
        return _prefix_answer(cuts[j], starts, offsets, pieces, cum, top)
    return 1.0 / (1.0 + math.exp(-theta[j]))


@nb.njit(cache=True)
def _first_above(kind, true, start, t_hat, scale, block, rng, cuts, starts, offsets, pieces, cum,
                 top, theta, diff, noise):
    """First query ≥ ``start`` whose noisy |error| reaches ``t_hat`` (−1 if none) and its error:
    blocks of 16, 32, … (at most ``block``) queries, each block's Lap(scale) noise drawn whole."""
    q, size = true.size, 16
    while start < q:
        stop = min(q, start + size)
        for i in range(start, stop):
            diff[i - start] = true[i] - _answer(kind, i, cuts, starts, offsets, pieces, cum, top, theta)
        for i in range(stop - start):
            noise[i] = rng.laplace(0.0, scale)
        for i in range(stop - start):
            if abs(diff[i]) + noise[i] >= t_hat:
                return start + i, diff[i]
        start, size = start + size, min(2 * size, block)
    return -1, 0.0


@nb.njit(cache=True)
def offline_pmw_loop(kind, true, cuts, K, starts, offsets, pieces, theta, c, a, s1, s2, rng,
                     max_passes, block):
    """The offline PMW loop on a prefix (``kind`` = PREFIX: ``starts``/``offsets`` with room for
    c more pieces) or product (PRODUCT: ``theta``) state, updated in place. Returns (updates,
    passes, reach, pieces)."""
    eta, threshold = a / 2, 3 * a / 4
    cum = np.empty(pieces + c + 2)
    top = _prefix_cum(starts, offsets, pieces, K, cum) if kind == PREFIX else 0.0
    width = min(block, true.size) + 16
    diff, noise = np.empty(width), np.empty(width)
    updates = passes = reach = 0
    t_hat = threshold + rng.laplace(0.0, s1)
    while updates < c and passes < max_passes:
        passes += 1
        start, hit = 0, False
        while updates < c:
            j, err = _first_above(kind, true, start, t_hat, 2 * s1, block, rng, cuts, starts, offsets,
                                  pieces, cum, top, theta, diff, noise)
            if j < 0:
                reach = true.size
                break
            below = err + rng.laplace(0.0, s2) < 0
            if kind == PREFIX:
                pieces = _prefix_update(cuts[j], below, eta, starts, offsets, pieces, K)
                top = _prefix_cum(starts, offsets, pieces, K, cum)
            else:
                theta[j] += -eta if below else eta
            updates, hit, start = updates + 1, True, j + 1
            reach = max(reach, start)
            t_hat = threshold + rng.laplace(0.0, s1)
        if not hit:
            break
    return updates, passes, reach, pieces
