"""Compiled steps of the multiplicative-weights loop on a support (Liu et al. 2021, Alg. 1, §5.3).

A round of PMW^Pub applies a handful of multiplicative updates (the new measurement and the
replayed ones) to the rows of one query each, and scores every present query. Done with numpy,
each step is a few calls on small arrays, and their fixed cost dominates on ADULT-sized supports.
These kernels do the same arithmetic in one call, operation for operation, so a run gives the same
floating-point numbers as the numpy expressions they replace:

* a sum over a row block is numpy's pairwise summation (``ndarray.sum``: 8 accumulators on
  blocks of at most 128, halves split at multiples of 8, started from the identity 0), and
* ``math.exp`` is the C library's ``exp`` in both.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

#: numpy's largest block summed without splitting (PW_BLOCKSIZE of its pairwise summation)
_PAIRWISE_BLOCK = 128


@nb.njit(nogil=True, cache=True)
def _pairwise_sum(u, rows, lo, count):
    """Σ u[rows[lo + i]] for i < count, in numpy's pairwise order (starting from −0.0 below 8)."""
    if count < 8:
        total = -0.0
        for i in range(lo, lo + count):
            total += u[rows[i]]
        return total
    if count <= _PAIRWISE_BLOCK:
        r0, r1, r2, r3 = u[rows[lo]], u[rows[lo + 1]], u[rows[lo + 2]], u[rows[lo + 3]]
        r4, r5, r6, r7 = u[rows[lo + 4]], u[rows[lo + 5]], u[rows[lo + 6]], u[rows[lo + 7]]
        i = 8
        while i < count - count % 8:
            j = lo + i
            r0 += u[rows[j]]
            r1 += u[rows[j + 1]]
            r2 += u[rows[j + 2]]
            r3 += u[rows[j + 3]]
            r4 += u[rows[j + 4]]
            r5 += u[rows[j + 5]]
            r6 += u[rows[j + 6]]
            r7 += u[rows[j + 7]]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < count:
            total += u[rows[lo + i]]
            i += 1
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(u, rows, lo, half) + _pairwise_sum(u, rows, lo + half, count - half)


@nb.njit(nogil=True, cache=True)
def apply_updates(u, pending, touched, rows, lo, hi, measurements, Z, bound, limit):
    """Update j (in order) rescales the rows ``rows[lo[j]:hi[j]]`` of its query q_j:

        mass = Σ_{x: q_j(x)=1} u(x),  f = exp((a_j − mass/Z)/2),  Z += mass·(f − 1),  u(x) *= f,

    the MW step A(x) ∝ A(x)·exp(q(x)·(a − q(A))/2) on the unnormalised u (Hardt, Ligett &
    McSherry 2012). While ``bound`` (Σ|rows| of tracked updates) ≤ ``limit`` the change of u is
    also added to ``pending`` and its rows marked in ``touched``. Returns (Z, bound).
    """
    for j in range(measurements.size):
        first, last = lo[j], hi[j]
        mass = 0.0 + _pairwise_sum(u, rows, first, last - first)
        factor = math.exp((measurements[j] - mass / Z) / 2.0)
        Z += mass * (factor - 1.0)
        if bound <= limit:
            bound += last - first
            change = factor - 1.0
            for i in range(first, last):
                pending[rows[i]] += u[rows[i]] * change
                touched[rows[i]] = True
        for i in range(first, last):
            u[rows[i]] = u[rows[i]] * factor
    return Z, bound


@nb.njit(nogil=True, cache=True)
def answer_gaps(y, Z, targets, out):
    """out = |y/Z − targets|: the scores |q(A) − q(D̃)| of the present queries, in one pass."""
    for i in range(y.size):
        out[i] = abs(y[i] / Z - targets[i])


@nb.njit(nogil=True, cache=True)
def far_measurements(y, Z, queries, measured, threshold):
    """Positions i with |y[queries[i]]/Z − measured[i]| ≥ threshold, ascending: the past
    measurements the §5.3 replay applies again (``np.flatnonzero`` of the numpy expression)."""
    out = np.empty(queries.size, dtype=np.int64)
    size = 0
    for i in range(queries.size):
        if abs(y[queries[i]] / Z - measured[i]) >= threshold:
            out[size] = i
            size += 1
    return out[:size]
