"""PEP and PEP^Pub: private entropy projection (Liu, Vietri & Wu 2021, §4.1 and §6;
arXiv 2106.07153).

The rounds are :mod:`~pubpriv_core.algorithms.adaptive_measurements` (exponential-mechanism
selection of a whole marginal, Gaussian measurement of all its cells). The distribution A is a
histogram over a fixed set of rows: the whole domain X for PEP (uniform start; refused above
``max_domain_size`` cells, like MWEM), the public support X̂ for PEP^Pub (start: the public
distribution, as PMW^Pub; ``init=uniform`` the ablation). After each measurement A is projected
towards *all* past measurements by ``max_iters`` steps of iterative entropy projection: each step
takes the measured cell i with the largest |q_i(A) − a_i|, clips a = a_i and b = q_i(A) to
[10⁻⁶, 1 − 10⁻⁶], and sets

    A(x) ← A(x)·exp(q_i(x)·λ) / Z,   λ = log(a(1 − b) / ((1 − a)·b)),

which makes q_i(A) = a exactly (the KL projection onto {A : q_i(A) = a_i}). The release is the
last A (the paper's output, and what its reference code's scripts report).

Speed: every row's cell under every measured marginal is kept ((measured, rows) int32), the
rows of each cell sorted per marginal, and the measured cells' answers y = Σ u·q kept up to date:
a step rescales the rows of one cell and adds their change to y through those tables
(|rows of the cell| × measured additions), all steps of a round in one compiled call. The
search for the largest gap keeps each 64-cell block's largest gap between steps and rescans a
block only when a step changed it or its bound could beat the best (the same cell as a full
scan; on ADULT's 3-way workload the projection takes ≈ 5× less time per round).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from pubpriv_core.algorithms.adaptive_measurements import (Measurements, check_successor,
                                                             run_rounds)
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.select_measure import parse_options
from pubpriv_core.algorithms.settings import PEPOptions, PEPPubOptions
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.queries.full_domain import full_domain_records

#: clip of the measurement and the answer inside the projection's log-ratio
CLIP = 1e-6


#: cells per block of :func:`_largest_gap`'s branch-free scan
GAP_BLOCK = 8


@nb.njit(cache=True, nogil=True)
def _largest_gap(y, scale, measured):
    """The first i of largest |scale·y_i − measured_i|. The scan takes blocks of
    :data:`GAP_BLOCK` cells: a block's maximum without branches, and only a block whose maximum
    beats the best so far is searched for the first cell equal to it: the same index as a plain
    first-maximum scan, whose compare-and-branch on every cell the compiler cannot vectorise."""
    n = y.shape[0]
    worst, gap = 0, -1.0
    start = 0
    while start + GAP_BLOCK <= n:
        top = 0.0
        for i in range(start, start + GAP_BLOCK):
            top = max(top, abs(scale * y[i] - measured[i]))
        if top > gap:
            for i in range(start, start + GAP_BLOCK):
                if abs(scale * y[i] - measured[i]) == top:
                    worst, gap = i, top
                    break
        start += GAP_BLOCK
    for i in range(start, n):
        g = abs(scale * y[i] - measured[i])
        if g > gap:
            worst, gap = i, g
    return worst


#: cells per block of :func:`_bounded_largest_gap`: 2**GAP_SHIFT (cell i is in block i >> 6)
GAP_SHIFT = 6
#: relative slack on a block's bound (covers the rounding of the bound and of the gaps)
BOUND_SLACK = 1.0 + 1e-12


@nb.njit(cache=True, nogil=True)
def _bounded_largest_gap(y, scale, measured, top_gap, top_at, at_scale, top_y, stale):
    """:func:`_largest_gap` (the same index) from per-block state kept across the steps of a
    projection: block b's largest gap ``top_gap[b]`` at cell ``top_at[b]``, computed at scale
    ``at_scale[b]``, and its largest y ``top_y[b]``. A block is rescanned when a step changed
    one of its y (``stale[b]``) or when its bound

        top_gap[b] + |scale − at_scale[b]|·top_y[b] ≥ |scale·y_i − measured_i| for all its i

    (the gap moves by at most |Δscale|·y_i) could beat the best gap found so far; otherwise no
    cell of it can be a strictly larger gap, and the first maximum lies elsewhere."""
    n = y.shape[0]
    worst, gap = 0, -1.0
    for b in range(stale.shape[0]):
        if not stale[b]:
            bound = top_gap[b] + abs(scale - at_scale[b]) * top_y[b]
            if bound * BOUND_SLACK <= gap:
                continue
        if stale[b] or at_scale[b] != scale:
            lo = b << GAP_SHIFT
            hi = min(lo + (1 << GAP_SHIFT), n)
            i = lo + _largest_gap(y[lo:hi], scale, measured[lo:hi])
            top_gap[b], top_at[b], at_scale[b] = abs(scale * y[i] - measured[i]), i, scale
            top_y[b] = y[lo:hi].max()
            stale[b] = False
        if top_gap[b] > gap:
            worst, gap = top_at[b], top_gap[b]
    return worst


@nb.njit(cache=True, nogil=True)
def _rescale(u, y, cells, rows, offsets, factor, total, stale, mark):
    """u[x] ← factor·u[x] for the given rows, their change added to the measured cells' y and
    to ``total`` (row by row; returns the new total); with ``mark`` the blocks of the changed y
    are marked ``stale``."""
    for x in rows:
        change = u[x] * (factor - 1.0)
        total += change
        u[x] += change
        for j in range(offsets.shape[0] - 1):
            cell = offsets[j] + cells[j, x]
            y[cell] += change
            if mark:
                stale[cell >> GAP_SHIFT] = True
    return total


@nb.njit(cache=True, nogil=True)
def project(u, y, measured, cells, order, starts, offsets, steps, clip):
    """``steps`` entropy-projection steps on the normalised weights ``u`` (one per row) and the
    measured cells' answers ``y`` (flat: measured marginal j's cells at offsets[j]:offsets[j+1]),
    in place. ``cells[j, x]`` is row x's cell under measured marginal j; the rows of flat cell i
    are ``order[starts[i]:starts[i + 1]]``. Each step projects onto the first cell of largest
    gap (:func:`_bounded_largest_gap`: a step rescans only the blocks of cells it changed and
    those whose bound could beat the best). Within the call u and y are kept unnormalised with
    their total Z (one division at the end)."""
    count = offsets.shape[0] - 1
    blocks = (y.shape[0] + (1 << GAP_SHIFT) - 1) >> GAP_SHIFT
    top_gap, top_y, at_scale = np.empty(blocks), np.empty(blocks), np.empty(blocks)
    top_at = np.empty(blocks, dtype=np.int64)
    stale = np.ones(blocks, dtype=np.bool_)
    total = 1.0
    for _ in range(steps):
        scale = 1.0 / total
        worst = _bounded_largest_gap(y, scale, measured, top_gap, top_at, at_scale, top_y, stale)
        a = min(max(measured[worst], clip), 1.0 - clip)
        b = min(max(scale * y[worst], clip), 1.0 - clip)
        factor = a * (1.0 - b) / ((1.0 - a) * b)       # exp(λ)
        rows = order[starts[worst]:starts[worst + 1]]
        by_cell = rows.shape[0] * count < y.shape[0]
        if not by_cell:         # most blocks change: mark them all rather than cell by cell
            stale[:] = True
        total = _rescale(u, y, cells, rows, offsets, factor, total, stale, by_cell)
    u /= total
    y /= total


class Histogram:
    """A over ``records`` (support rows or the whole domain) with the measured marginals'
    tables; :meth:`update` runs PEP's projection over all measurements."""

    def __init__(self, problem: PublicProblem, records: np.ndarray, init: np.ndarray,
                 answer, max_iters: int, capacity: int):
        self.workload = problem.workload
        self.records = records
        self.u = np.array(init, dtype=np.float64)
        self.answer = answer            # weights -> every workload cell
        self.max_iters = max_iters
        rows = len(records)
        self.cells = np.empty((capacity, rows), dtype=np.int32)
        self.order = np.empty(capacity * rows, dtype=np.int32)   # rows sorted by cell, per marginal
        self.starts = np.zeros(1, dtype=np.int64)
        self.sizes = self.workload.marginal_sizes
        self.y = np.empty(0)     # q(A) of the measured cells, kept up to date by the projection
        self.known = 0

    def answers(self) -> np.ndarray:
        return self.answer(self.u)

    def _add_marginal(self, marginal: int) -> None:
        """Row cells, rows sorted by cell and the cells' first positions of a new marginal."""
        attrs, strides = self.workload.marginals[marginal], self.workload.strides[marginal]
        local = self.records[:, attrs].astype(np.int64) @ strides
        rows, j = len(self.records), self.known
        self.cells[j] = local
        self.order[j * rows:(j + 1) * rows] = np.argsort(local, kind="stable")
        size = int(self.sizes[marginal])
        counts = np.bincount(local, minlength=size)
        self.starts = np.concatenate([self.starts, j * rows + np.cumsum(counts)])
        self.y = np.concatenate([self.y, np.bincount(local, self.u, minlength=size)])
        self.known += 1

    def update(self, measurements: Measurements) -> int:
        for marginal in measurements.marginals[self.known:]:
            self._add_marginal(marginal)
        offsets = np.concatenate([[0], np.cumsum(self.sizes[measurements.marginals])])
        project(self.u, self.y, measurements.flat(), self.cells[:self.known], self.order,
                self.starts, offsets.astype(np.int64), self.max_iters, CLIP)
        return self.max_iters

    def release(self) -> tuple[np.ndarray, dict]:
        return self.answer(self.u), {"weights": self.u.copy()}


def _public_model(problem: PublicProblem, opts: PEPPubOptions, T: int) -> Histogram:
    answerer = problem.public_answerer
    init = (problem.public_weights if opts.init == "public"
            else np.full(answerer.size, 1.0 / answerer.size))
    return Histogram(problem, answerer.records, init,
                     lambda u: answerer.expand(answerer.answer(u)), opts.max_iters, T)


def check_domain(problem: PublicProblem, max_domain_size: int) -> None:
    """PEP keeps a weight (and a cell per measured marginal) for every element of X."""
    size = problem.domain.size()
    if size > max_domain_size:
        raise ValueError(f"PEP needs a weight per domain element and |X| = {size:.3g} exceeds "
                         f"algo.max_domain_size = {max_domain_size:.3g}; use "
                         "algo=pep_pub (public support) or algo=gem")


def _domain_model(problem: PublicProblem, opts: PEPOptions, T: int) -> Histogram:
    domain = problem.domain
    check_domain(problem, opts.max_domain_size)
    size = domain.size()
    answerer = problem.domain_answerer
    return Histogram(problem, full_domain_records(tuple(domain.shape)),
                     np.full(size, 1.0 / size), answerer.answer, opts.max_iters, T)


def check_pep(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_pep`, without running: |X| within the cap, options and
    the rounds' budget."""
    check_domain(problem, parse_options(PEPOptions, options).max_domain_size)
    check_successor("pep", PEPOptions, problem, eps=eps, delta=delta, T=T, options=options)


def check_pep_pub(problem: PublicProblem, *, eps: float, delta: float, T: int,
                  **options) -> None:
    """The input checks of :func:`run_pep_pub`, without running (options, a public source,
    the rounds' budget)."""
    check_successor("pep_pub", PEPPubOptions, problem, eps=eps, delta=delta, T=T,
                    options=options, needs_public=True)


def run_pep(problem: PublicProblem, private: PrivateData, *, T: int,
            rng: np.random.Generator, **options) -> Release:
    """PEP over the whole domain spending the private data's budget over T rounds."""
    opts = parse_options(PEPOptions, options)
    return run_rounds("pep", problem, private, _domain_model(problem, opts, T), T=T,
                      alpha=opts.alpha)


def run_pep_pub(problem: PublicProblem, private: PrivateData, *, T: int,
                rng: np.random.Generator, **options) -> Release:
    """PEP^Pub over the public support X̂ spending the private data's budget over T rounds."""
    opts = parse_options(PEPPubOptions, options)
    release = run_rounds("pep_pub", problem, private, _public_model(problem, opts, T), T=T,
                         alpha=opts.alpha)
    release.support = problem.public_support
    return release
