"""Compiled kernels of the support engine: marginal sums computed from compact codes.

A support X̂ is kept as its codes, one small unsigned integer per (attribute, row), attribute-major
(``codes[j, x]`` is attribute j of row x). Under marginal w = (j_1 < … < j_k) with C-order strides
s_i (:mod:`pubpriv_core.queries.workload`) row x falls in the cell

    cell_w(x) = Σ_i codes[j_i, x] · s_i,

computed on the fly: no |X̂|·W table exists. The kernels add weights into those cells,

    out[offset_w + cell_w(x)] += weight(x)      for every marginal w and every given row x,

with one thread per marginal (``numba.prange``). Each marginal owns a disjoint block of ``out``
and is summed by one thread in increasing row order, so the result is the same for any number of
threads, and the same floating-point sum as a row-ordered ``numpy.bincount`` or a CSR product.
Reading the k code columns of a marginal as 1-d arrays (not through a 2-d index) halves the cost.
"""
from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(nogil=True, cache=True)
def _block_sums(codes, attrs, strides, k, rows, values, lo, hi, block):
    """block[cell(rows[i])] += values[i] for i in [lo, hi); ``rows`` None means rows[i] = i."""
    if k == 3:
        c0, c1, c2, s0, s1 = codes[attrs[0]], codes[attrs[1]], codes[attrs[2]], strides[0], strides[1]
        if rows is None:
            for x in range(lo, hi):
                block[c0[x] * s0 + c1[x] * s1 + c2[x]] += values[x]
        else:
            for i in range(lo, hi):
                x = rows[i]
                block[c0[x] * s0 + c1[x] * s1 + c2[x]] += values[i]
    elif k == 2:
        c0, c1, s0 = codes[attrs[0]], codes[attrs[1]], strides[0]
        if rows is None:
            for x in range(lo, hi):
                block[c0[x] * s0 + c1[x]] += values[x]
        else:
            for i in range(lo, hi):
                x = rows[i]
                block[c0[x] * s0 + c1[x]] += values[i]
    elif rows is None:
        for x in range(lo, hi):
            block[_cell(codes, attrs, strides, k, x)] += values[x]
    else:
        for i in range(lo, hi):
            block[_cell(codes, attrs, strides, k, rows[i])] += values[i]


@nb.njit(nogil=True, cache=True)
def _cell(codes, attrs, strides, k, x):
    cell = 0
    for j in range(k):
        cell += codes[attrs[j], x] * strides[j]
    return cell


@nb.njit(parallel=True, cache=True, nogil=True)
def _add(codes, rows, values, attrs, strides, ks, offsets, chunk, out):
    count = values.size
    for w in nb.prange(attrs.shape[0]):
        base = offsets[w]
        block = np.zeros(offsets[w + 1] - base)
        for lo in range(0, count, chunk):
            _block_sums(codes, attrs[w], strides[w], ks[w], rows, values, lo,
                        min(lo + chunk, count), block)
            for c in range(block.size):
                out[base + c] += block[c]
                block[c] = 0.0


def add_marginals(codes, weights, layout, out, chunk=None):
    """out[offset_w + cell_w(x)] += weights[x] for every marginal w and row x of the support.

    ``layout`` = (attrs, strides, ks, offsets) of :meth:`MarginalWorkload.kernel_layout`. Rows are
    summed in blocks of ``chunk`` rows (None: one block); each block's per-cell sums start from 0
    and are then added to ``out``.
    """
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    _add(codes, None, weights, *layout, chunk or max(weights.size, 1), out)


def add_marginals_of_rows(codes, rows, values, layout, out):
    """out[offset_w + cell_w(rows[i])] += values[i] for every marginal w and every i.

    Per cell the values are summed from 0 in the order of ``rows``, then added to ``out`` (as
    ``out += bincount(cell ids of rows, values)``).
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    _add(codes, rows, values, *layout, max(values.size, 1), out)


@nb.njit(cache=True, nogil=True)
def rows_in_cell(codes, attributes, values):
    """Ascending rows x with codes[attributes[i], x] == values[i] for every i."""
    m = codes.shape[1]
    hits = np.empty(m, dtype=np.int64)
    count = 0
    for x in range(m):
        match = True
        for i in range(attributes.size):
            if codes[attributes[i], x] != values[i]:
                match = False
                break
        if match:
            hits[count] = x
            count += 1
    return hits[:count].copy()


def compact_codes(records: np.ndarray) -> np.ndarray:
    """The (d, m) attribute-major codes of (m, d) records, in the smallest unsigned dtype."""
    records = np.asarray(records)
    top = int(records.max()) if records.size else 0
    dtype = np.uint8 if top < 2 ** 8 else np.uint16 if top < 2 ** 16 else np.uint32
    return np.ascontiguousarray(records.T, dtype=dtype)
