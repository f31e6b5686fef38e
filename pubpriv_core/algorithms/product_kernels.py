"""Marginals of a mixture of product distributions, and their gradients, in compiled kernels.

GEM and RAP^softmax (Liu, Vietri & Wu 2021, §4; Aydore et al. 2021) hold K rows of per-attribute
probability vectors: row r gives attribute j the distribution p_{r,j}. The mixture's answer to
the k-way marginal cell (y_1..y_k) of attributes (a_1..a_k) is

    q(P) = (1/K) Σ_r Π_i p_{r,a_i}(y_i).

``Pt`` is the (D, K) transpose of the rows (D = Σ_j |X_j|, attribute j's values at rows
``starts[j] .. starts[j] + |X_j| − 1``), so one value's K probabilities are contiguous. For each
prefix cell (y_1..y_{k−1}) of a marginal the kernels keep the running product t = Π_{i<k} p_{a_i}
(a vector over rows) and take k-th attribute cells as dot products with t: the cost is
K·(cells + prefix cells) multiply-adds per marginal, with no |cells|×K gather.

Rows are split into ``CHUNKS`` fixed blocks processed in parallel (``numba.prange``): each block
writes its own partial answers (summed afterwards, in block order) and its own rows of the
gradient, so results do not depend on the number of threads.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from pubpriv_core.queries.kernels import _PARALLEL_LOCK
from pubpriv_core.queries.workload import MarginalWorkload

#: fixed row blocks of the kernels (results are independent of the thread count)
CHUNKS = 4
#: :func:`cell_answers` answers every cell and indexes them while the full pass multiplies at
#: most this many times the vectors of the listed cells' own products (the break-even measured
#: by ``scripts/bench.py product_kernels`` on NIST reduced 3- and 5-way and full 3-way plans)
FULL_PASS_RATIO = 1.25


class ProductPlan:
    """The kernels' view of a list of marginals: attributes (padded with −1), their value
    offsets in ``Pt`` and sizes, and each marginal's first cell in the output vector."""

    def __init__(self, workload: MarginalWorkload, marginals: np.ndarray | None = None):
        shape = np.asarray(workload.domain.shape, dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(shape)[:-1]]).astype(np.int64)
        self.dim = int(shape.sum())
        chosen = np.arange(workload.num_marginals) if marginals is None else np.asarray(marginals)
        self.marginals = chosen.astype(np.int64)
        k = max(len(workload.marginals[w]) for w in self.marginals) if len(chosen) else 1
        self.attrs = np.full((len(chosen), k), -1, dtype=np.int64)
        for i, w in enumerate(self.marginals):
            self.attrs[i, :len(workload.marginals[w])] = workload.marginals[w]
        self.sizes = workload.marginal_sizes[self.marginals].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.shape = shape
        self.orders = (self.attrs >= 0).sum(axis=1)
        last = self.attrs[np.arange(len(chosen)), self.orders - 1]
        #: vectors of K rows the full pass multiplies: a product of k − 1 rows per prefix cell
        #: and one dot product per cell
        self.pass_vectors = int((self.sizes + (self.orders - 1) * (self.sizes // shape[last]))
                                .sum())

    @property
    def cells(self) -> int:
        return int(self.offsets[-1])


@nb.njit(cache=True, nogil=True)
def _order(attrs, m):
    """k, the number of attributes of marginal m (its row of ``attrs`` is padded with −1)."""
    k = 0
    while k < attrs.shape[1] and attrs[m, k] >= 0:
        k += 1
    return k


@nb.njit(cache=True, nogil=True)
def _prefix_rows(starts, shape, attrs, m, k, cell, rows):
    """rows[i] = the row of ``Pt`` holding attribute i's value in prefix ``cell`` (C order over
    the first k − 1 attributes), i < k − 1."""
    rest = cell
    for i in range(k - 2, -1, -1):
        a = attrs[m, i]
        rows[i] = starts[a] + rest % shape[a]
        rest //= shape[a]


@nb.njit(cache=True, fastmath=True, nogil=True)
def _product(Pt, rows, count, skip, lo, hi, out):
    """out[:] = Π_{i < count, i ≠ skip} Pt[rows[i], lo:hi] (``out`` holds hi − lo entries)."""
    out[:] = 1.0
    for i in range(count):
        if i != skip:
            row = Pt[rows[i], lo:hi]
            for r in range(hi - lo):
                out[r] *= row[r]


@nb.njit(cache=True, fastmath=True, nogil=True)
def _dot(a, b):
    """Σ_r a[r]·b[r], accumulated in float64."""
    acc = 0.0
    for r in range(a.shape[0]):
        acc += a[r] * b[r]
    return acc


@nb.njit(cache=True, fastmath=True, nogil=True)
def _axpy(g, x, y):
    """y[:] += g·x."""
    for r in range(x.shape[0]):
        y[r] += g * x[r]


@nb.njit(parallel=True, cache=True, fastmath=True, nogil=True)
def _forward(Pt, starts, shape, attrs, offsets, partial):
    """partial[c, cell] = Σ_{r in block c} Π_i Pt[a_i(cell), r] for every cell of the plan.

    Inner loops run over contiguous 1-D views of a block (they vectorise; 2-D indexing in the
    loop does not)."""
    K = Pt.shape[1]
    step = (K + CHUNKS - 1) // CHUNKS
    for c in nb.prange(CHUNKS):
        lo, hi = c * step, min(K, (c + 1) * step)
        t = np.empty(hi - lo, dtype=Pt.dtype)
        rows = np.empty(attrs.shape[1], dtype=np.int64)
        for m in range(attrs.shape[0]):
            k = _order(attrs, m)
            last = attrs[m, k - 1]
            width = shape[last]
            for p in range((offsets[m + 1] - offsets[m]) // width):
                _prefix_rows(starts, shape, attrs, m, k, p, rows)
                _product(Pt, rows, k - 1, -1, lo, hi, t)
                base = offsets[m] + p * width
                for v in range(width):
                    partial[c, base + v] = _dot(t, Pt[starts[last] + v, lo:hi])


@nb.njit(parallel=True, cache=True, fastmath=True, nogil=True)
def _backward(Pt, starts, shape, attrs, offsets, coef, grad):
    """grad[j, r] += Σ_cells coef[cell]·∂(Π_i Pt[a_i(cell), r])/∂Pt[j, r]; prefixes whose
    coefficients are all 0 are skipped."""
    K = Pt.shape[1]
    step = (K + CHUNKS - 1) // CHUNKS
    for c in nb.prange(CHUNKS):
        lo, hi = c * step, min(K, (c + 1) * step)
        t = np.empty(hi - lo, dtype=Pt.dtype)
        dt = np.empty(hi - lo, dtype=Pt.dtype)
        others = np.empty(hi - lo, dtype=Pt.dtype)
        rows = np.empty(attrs.shape[1], dtype=np.int64)
        for m in range(attrs.shape[0]):
            k = _order(attrs, m)
            last = attrs[m, k - 1]
            width = shape[last]
            for p in range((offsets[m + 1] - offsets[m]) // width):
                base = offsets[m] + p * width
                nonzero = False
                for v in range(width):
                    if coef[base + v] != 0.0:
                        nonzero = True
                if not nonzero:
                    continue
                _prefix_rows(starts, shape, attrs, m, k, p, rows)
                _product(Pt, rows, k - 1, -1, lo, hi, t)
                dt[:] = 0.0
                for v in range(width):
                    g = coef[base + v]
                    if g != 0.0:
                        row = starts[last] + v
                        _axpy(g, t, grad[row, lo:hi])
                        _axpy(g, Pt[row, lo:hi], dt)
                for i in range(k - 1):
                    if k == 3:      # the product of the other rows is the other row (1·x = x)
                        factor = Pt[rows[1 - i], lo:hi]
                    else:
                        _product(Pt, rows, k - 1, i, lo, hi, others)
                        factor = others
                    target = grad[rows[i], lo:hi]
                    for r in range(hi - lo):
                        target[r] += dt[r] * factor[r]


def answers(Pt: np.ndarray, plan: ProductPlan) -> np.ndarray:
    """Every cell of ``plan`` on the mixture ``Pt`` (D, K): float64, in plan order."""
    partial = np.zeros((CHUNKS, plan.cells), dtype=Pt.dtype)
    with _PARALLEL_LOCK:
        _forward(Pt, plan.starts, plan.shape, plan.attrs, plan.offsets, partial)
    return partial.astype(np.float64).sum(axis=0) / Pt.shape[1]


def gradient(Pt: np.ndarray, plan: ProductPlan, coef: np.ndarray) -> np.ndarray:
    """∂/∂Pt of Σ_cells coef[cell]·q_cell(Pt), (D, K) in Pt's dtype."""
    grad = np.zeros_like(Pt)
    scaled = (np.asarray(coef, dtype=np.float64) / Pt.shape[1]).astype(Pt.dtype)
    with _PARALLEL_LOCK:
        _backward(Pt, plan.starts, plan.shape, plan.attrs, plan.offsets, scaled, grad)
    return grad


@nb.njit(parallel=True, cache=True, fastmath=True, nogil=True)
def _cells(Pt, starts, shape, attrs, offsets, marginal, local, partial):
    """partial[c, i] = Σ_{r in block c} Π_j Pt[row_j(i), r] for listed cells (marginal, local
    cell id in C order)."""
    K = Pt.shape[1]
    step = (K + CHUNKS - 1) // CHUNKS
    for c in nb.prange(CHUNKS):
        lo, hi = c * step, min(K, (c + 1) * step)
        t = np.empty(hi - lo, dtype=Pt.dtype)
        rows = np.empty(attrs.shape[1], dtype=np.int64)
        for i in range(marginal.shape[0]):
            m = marginal[i]
            k = _order(attrs, m)
            rest = local[i]
            for j in range(k - 1, -1, -1):
                a = attrs[m, j]
                rows[j] = starts[a] + rest % shape[a]
                rest //= shape[a]
            _product(Pt, rows, k - 1, -1, lo, hi, t)
            partial[c, i] = _dot(t, Pt[rows[k - 1], lo:hi])


def cell_answers(Pt: np.ndarray, plan: ProductPlan, cells: np.ndarray) -> np.ndarray:
    """The answers of the listed flat cells of ``plan`` (float64).

    Each listed cell costs its own k-row product, while the full pass (:func:`answers`) shares
    a prefix cell's product among its cells; the full pass, then indexed, is taken whenever it
    multiplies at most :data:`FULL_PASS_RATIO` times as many vectors. Both compute a cell by the
    same products and sums, so the choice does not change a bit of the answers."""
    cells = np.asarray(cells, dtype=np.int64)
    marginal = np.searchsorted(plan.offsets, cells, side="right") - 1
    if plan.pass_vectors <= FULL_PASS_RATIO * plan.orders[marginal].sum():
        return answers(Pt, plan)[cells]
    partial = np.zeros((CHUNKS, cells.size), dtype=Pt.dtype)
    with _PARALLEL_LOCK:
        _cells(Pt, plan.starts, plan.shape, plan.attrs, plan.offsets, marginal,
               cells - plan.offsets[marginal], partial)
    return partial.astype(np.float64).sum(axis=0) / Pt.shape[1]
