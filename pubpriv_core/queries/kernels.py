"""Compiled kernels of the support engine: marginal sums computed from compact codes.

A support X̂ is kept as its codes, one small unsigned integer per (attribute, row), attribute-major
(``codes[j, x]`` is attribute j of row x). Under marginal w = (j_1 < … < j_k) with C-order strides
s_i (:mod:`pubpriv_core.queries.workload`) row x falls in the cell

    cell_w(x) = Σ_i codes[j_i, x] · s_i,

computed on the fly: the table kernels keep no |X̂|·W array (the ``*_by_ids`` kernels read one
that the engine caches on small supports). The kernels add weights into those cells,

    out[offset_w + cell_w(x)] += weight(x)      for every marginal w and every given row x,

with one thread per table of a :class:`~pubpriv_core.queries.plan.MarginalPlan` (``numba.prange``):
a table (a marginal, or a super-marginal covering several) is filled in increasing row order and
its cells are then added into its members' cells. Tables write disjoint parts of ``out``, so the
result is the same for any number of threads; with one table per marginal it is the same
floating-point sum as a row-ordered ``numpy.bincount`` or a CSR product. Reading the k code
columns of a table as 1-d arrays (not through a 2-d index) halves the cost. Tables of k > 3
attributes compute the cells of a sweep of rows in the narrowest integer type that holds the
largest table's cell ids (:func:`cell_dtype`): every partial sum Σ_{i≤j} codes·s_i is at most the
row's cell id, so the ids are exact, and 16-bit lanes compute them ≈ 6× faster than 64-bit ones
(full-ACS plan, 696 tables of ≤ 4,096 cells, 130K rows: 0.04 s against 0.24 s per pass, one
core; AVX2 has no 64-bit vector multiply).
"""
from __future__ import annotations

import threading

import numba as nb
import numpy as np

# Thread pool of the parallel kernels: "workqueue" survives fork() (GNU OpenMP's does not, and the
# runner's worker processes and tests fork), but must not be entered by two Python threads at
# once, so parallel passes are serialised by _PARALLEL_LOCK. A layer chosen by the user (env
# NUMBA_THREADING_LAYER) is kept.
if nb.config.THREADING_LAYER == "default":
    nb.config.THREADING_LAYER = "workqueue"
_PARALLEL_LOCK = threading.Lock()


#: rows whose cells the general (k > 3) path computes per sweep of the k code columns
_SWEEP = 1024
#: passes of at least this many (row, table) additions run on all cores
PARALLEL_MIN_PAIRS = 2 ** 22
#: id-table passes (:func:`add_weights_by_ids`) of at least this many (row, marginal) pairs run
#: on all cores
PARALLEL_MIN_ID_PAIRS = 2 ** 23


def narrow_int(top: int) -> type:
    """The narrowest signed integer type (16, 32 or 64 bits) holding 0..top−1."""
    return np.int16 if top <= 2 ** 15 else np.int32 if top <= 2 ** 31 else np.int64


def cell_dtype(cells: np.ndarray) -> type:
    """The narrowest signed integer type holding every cell id of tables of ``cells`` cells."""
    return narrow_int(int(cells.max()) if cells.size else 1)


@nb.njit(nogil=True, cache=True)
def _block_sums(codes, attrs, strides, k, values, lo, hi, block, ids):
    """block[cell(x)] += values[x] for rows x in [lo, hi), in order. The code columns are read
    as 1-d arrays; k > 3 first accumulates the cells of ``_SWEEP`` rows column by column into
    ``ids`` (of the strides' integer type, :func:`cell_dtype`), then adds."""
    if k == 3:
        c0, c1, c2, s0, s1 = codes[attrs[0]], codes[attrs[1]], codes[attrs[2]], strides[0], strides[1]
        for x in range(lo, hi):
            block[c0[x] * s0 + c1[x] * s1 + c2[x]] += values[x]
    elif k == 2:
        c0, c1, s0 = codes[attrs[0]], codes[attrs[1]], strides[0]
        for x in range(lo, hi):
            block[c0[x] * s0 + c1[x]] += values[x]
    elif k == 1:
        c0 = codes[attrs[0]]
        for x in range(lo, hi):
            block[c0[x]] += values[x]
    else:
        for start in range(lo, hi, _SWEEP):
            stop = min(start + _SWEEP, hi)
            ids[:stop - start] = 0
            for j in range(k):
                column, stride = codes[attrs[j]], strides[j]
                for x in range(start, stop):
                    ids[x - start] += column[x] * stride
            for x in range(start, stop):
                block[ids[x - start]] += values[x]


@nb.njit(nogil=True, cache=True)
def _fill_table(g, codes, values, attrs, strides, ks, cells, pair_start, src, dst, chunk,
                out, block, ids):
    """Table g: its cells summed over the rows (in blocks of ``chunk``), then each of its pairs
    adds block[src] into out[dst]. ``block`` comes in zeroed and is left zeroed: rows fall only in
    cells that have pairs, and those are reset (a pass costs no O(table) work beyond its pairs)."""
    count = values.size
    table = block[:cells[g]]
    if chunk >= count:      # one block: kept apart, LLVM compiles this loop twice as fast
        _block_sums(codes, attrs[g], strides[g], ks[g], values, 0, count, table, ids)
        _flush(table, pair_start[g], pair_start[g + 1], src, dst, out)
        return
    for lo in range(0, count, chunk):
        _block_sums(codes, attrs[g], strides[g], ks[g], values, lo, min(lo + chunk, count),
                    table, ids)
        _flush(table, pair_start[g], pair_start[g + 1], src, dst, out)


@nb.njit(nogil=True, cache=True)
def _flush(table, first, last, src, dst, out):
    """out[dst[j]] += table[src[j]] for the pairs first..last−1, then those cells reset to 0
    (the whole table in one sweep when it has fewer cells than pairs)."""
    for j in range(first, last):
        out[dst[j]] += table[src[j]]
    if table.size <= last - first:
        table[:] = 0.0
        return
    for j in range(first, last):
        table[src[j]] = 0.0


@nb.njit(parallel=True, cache=True, nogil=True)
def _add_parallel(codes, values, attrs, strides, ks, cells, pair_start, src, dst, chunk,
                  out):
    for g in nb.prange(ks.size):
        _fill_table(g, codes, values, attrs, strides, ks, cells, pair_start, src, dst,
                    chunk, out, np.zeros(cells[g]), np.empty(_SWEEP, dtype=strides.dtype))


@nb.njit(cache=True, nogil=True)
def _add_serial(codes, values, attrs, strides, ks, cells, pair_start, src, dst, chunk,
                out):
    block, ids = np.zeros(cells.max()), np.empty(_SWEEP, dtype=strides.dtype)
    for g in range(ks.size):
        _fill_table(g, codes, values, attrs, strides, ks, cells, pair_start, src, dst,
                    chunk, out, block, ids)


def _one_or_all_cores(serial, parallel, pairs: int, least: int, *args) -> None:
    """``serial(*args)`` for passes of fewer than ``least`` additions (waking threads costs more
    than it saves), else ``parallel(*args)`` on all cores, one parallel pass at a time."""
    if pairs < least:
        serial(*args)
        return
    with _PARALLEL_LOCK:
        parallel(*args)


def _add(codes, values, plan, chunk, out):
    """One thread for small passes, all cores else. Cells are computed in :func:`cell_dtype` of
    the plan's tables."""
    attrs, _, *rest = plan.arrays()
    _one_or_all_cores(_add_serial, _add_parallel, values.size * plan.num_tables,
                      PARALLEL_MIN_PAIRS, codes, values, attrs, plan.cell_strides, *rest, chunk,
                      out)


@nb.njit(parallel=True, cache=True, nogil=True)
def _table_cells(codes, attrs, strides, ks, out):
    for g in nb.prange(ks.size):
        _cells_of_table(codes, attrs[g], strides[g], ks[g], out[g])


@nb.njit(nogil=True, cache=True)
def _cells_of_table(codes, attrs, strides, k, row):
    for j in range(k):
        column = codes[attrs[j]]
        stride = strides[j]
        for x in range(row.size):
            row[x] += column[x] * stride


def table_cells(codes, plan) -> np.ndarray:
    """(G, m): the cell of every support row in every table of ``plan`` (G tables, m rows), in
    :func:`cell_dtype` of its tables (2 bytes per (table, row) for super-marginals of at most
    2^15 cells); read by :func:`add_marginals_by_cells`. Filled on all cores."""
    out = np.zeros((plan.num_tables, codes.shape[1]), dtype=plan.cell_strides.dtype)
    with _PARALLEL_LOCK:
        _table_cells(codes, plan.attrs, plan.cell_strides, plan.ks, out)
    return out


@nb.njit(nogil=True, cache=True)
def _fill_by_cells(g, cells_of, values, cells, pair_start, src, dst, out, block):
    """Table g filled by values[x] at cells_of[g, x], rows in increasing order, then flushed to
    its pairs (``block`` zeroed on entry and exit, as in :func:`_fill_table`)."""
    table, ids = block[:cells[g]], cells_of[g]
    for x in range(values.size):
        table[ids[x]] += values[x]
    _flush(table, pair_start[g], pair_start[g + 1], src, dst, out)


@nb.njit(nogil=True, cache=True)
def _fill_two_by_cells(g, cells_of, values, cells, pair_start, src, dst, out, first, second):
    """Tables g and g + 1 filled in one sweep of the rows, each as :func:`_fill_by_cells` fills
    it (its cells summed in increasing row order, so the same sums): each weight is read once
    for two tables, and the two tables' additions do not wait on each other."""
    one, two = first[:cells[g]], second[:cells[g + 1]]
    ids_one, ids_two = cells_of[g], cells_of[g + 1]
    for x in range(values.size):
        value = values[x]
        one[ids_one[x]] += value
        two[ids_two[x]] += value
    _flush(one, pair_start[g], pair_start[g + 1], src, dst, out)
    _flush(two, pair_start[g + 1], pair_start[g + 2], src, dst, out)


@nb.njit(parallel=True, cache=True, nogil=True)
def _add_by_cells_parallel(cells_of, values, cells, pair_start, src, dst, out):
    for p in nb.prange(cells.size // 2):
        g = 2 * p
        _fill_two_by_cells(g, cells_of, values, cells, pair_start, src, dst, out,
                           np.zeros(cells[g]), np.zeros(cells[g + 1]))
    if cells.size % 2:
        last = cells.size - 1
        _fill_by_cells(last, cells_of, values, cells, pair_start, src, dst, out,
                       np.zeros(cells[last]))


@nb.njit(cache=True, nogil=True)
def _add_by_cells_serial(cells_of, values, cells, pair_start, src, dst, out):
    first, second = np.zeros(cells.max()), np.zeros(cells.max())
    for g in range(0, cells.size - 1, 2):
        _fill_two_by_cells(g, cells_of, values, cells, pair_start, src, dst, out, first, second)
    if cells.size % 2:
        _fill_by_cells(cells.size - 1, cells_of, values, cells, pair_start, src, dst, out, first)


def add_marginals_by_cells(cells_of, weights, plan, out):
    """:func:`add_marginals` (one block of rows) reading each row's table cells from
    ``cells_of = table_cells(codes, plan)`` instead of computing them from the codes: the same
    tables filled in the same row order, so the same floating-point sums, at 2 bytes read per
    (row, table) instead of k code bytes and k multiply-adds. Tables are filled two per sweep
    of the rows (:func:`_fill_two_by_cells`, each weight read once for two tables: 1.20× per
    PMW^Pub round at 130,000 rows × 4,096 marginals, ``scripts/bench.py engine_ab``)."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    _one_or_all_cores(_add_by_cells_serial, _add_by_cells_parallel,
                      weights.size * plan.num_tables, PARALLEL_MIN_PAIRS, cells_of, weights,
                      plan.cells, plan.pair_start, plan.src, plan.dst, out)


def add_marginals(codes, weights, plan, out, chunk=None):
    """out[dst] += table[src] for every pair of the plan, each table filled with Σ_x weights[x]
    over the rows of the support (for :meth:`MarginalPlan.build`: out[q] += Σ_x weights[x]·q(x)
    for every query q of the workload, global ids).

    ``plan`` is a :class:`~pubpriv_core.queries.plan.MarginalPlan`. Rows are summed in blocks of
    ``chunk`` rows (None: one block); each block's per-cell sums start from 0 and are then added
    to ``out``.
    """
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    _add(codes, weights, plan, chunk or max(weights.size, 1), out)


def add_marginals_of_rows(codes, rows, values, plan, out):
    """As :func:`add_marginals` with the tables filled by values[i] at rows[i] only: the rows'
    codes are gathered into contiguous columns first (d·|rows| bytes), so the pass reads them as
    fast as a full one.

    Per cell the values are summed from 0 in the order of ``rows``, then added to ``out`` (as
    ``out += bincount(cell ids of rows, values)`` for a plan of one table per marginal).
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    _add(np.ascontiguousarray(codes[:, rows]), values, plan, max(values.size, 1), out)


@nb.njit(nogil=True, cache=True)
def _add_gathered_in_place(codes, values, attrs, strides, ks, cells, offsets, position, y):
    """y[position[offsets[w] + cell_w(i)]] += Σ values over the gathered rows i in that cell, for
    every table w of one marginal; per cell summed from 0 in row order, then added once."""
    count = values.size
    scratch, ids = np.zeros(cells.max()), np.empty(count, dtype=np.int64)
    for w in range(ks.size):
        ids[:] = 0
        for j in range(ks[w]):
            column, stride = codes[attrs[w, j]], strides[w, j]
            for i in range(count):
                ids[i] += column[i] * stride
        for i in range(count):
            scratch[ids[i]] += values[i]
        base = offsets[w]
        for i in range(count):
            cell = ids[i]
            if scratch[cell] != 0.0:
                y[position[base + cell]] += scratch[cell]
                scratch[cell] = 0.0


def add_rows_in_place(codes, rows, values, plan, offsets, position, y):
    """y[position[offsets[w] + cell_w(x)]] += Σ values[i] over the rows x = rows[i] in that cell,
    for every marginal w of ``plan`` (a plan of one table per marginal), in place.

    Per cell the values are summed from 0 in the order of ``rows``, then added to y once: the
    same floating-point result as ``y += bincount(cell ids of rows, values)``. Cost O(W·|rows|)
    after gathering the rows' codes: nothing of size |Q| is read or written.
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.size:
        _add_gathered_in_place(np.ascontiguousarray(codes[:, rows]), values, plan.attrs,
                               plan.strides, plan.ks, plan.cells, offsets, position, y)


#: query ids a block of the id table may span to be stored as 16-bit offsets from its first id
BLOCK_SPAN_16 = 2 ** 16


def block_ids(ids: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An (m, W) query-id table laid out for the ``*_by_ids`` kernels: the columns cut into
    blocks of at most ``width`` marginals, each block stored row-major, one after the other
    (flat), as offsets from the block's first id; with the blocks' first columns (B+1 bounds, the
    last = W) and the (B, 2) range [lo, hi) of the query ids each block holds (an empty block:
    lo = hi = 0). A block also ends before it would span more than ``BLOCK_SPAN_16`` ids, so the
    offsets are 16-bit whenever every marginal alone fits (2 bytes read per (row, marginal)
    however many queries there are; else 32-bit). Columns hold increasing id ranges (marginal
    after marginal), as the engine's own numbering does."""
    m, W = ids.shape
    low = ids.min(axis=0).astype(np.int64) if m else np.zeros(W, dtype=np.int64)
    high = ids.max(axis=0).astype(np.int64) + 1 if m else np.zeros(W, dtype=np.int64)
    bounds = [0]
    for w in range(1, W):
        if w - bounds[-1] >= width or high[w] - low[bounds[-1]] > BLOCK_SPAN_16:
            bounds.append(w)
    bounds.append(W)
    bounds = np.asarray(bounds[:1] if W == 0 else bounds, dtype=np.int64)
    spans = np.array([(low[a], high[b - 1]) if m else (0, 0)
                      for a, b in zip(bounds[:-1], bounds[1:])], dtype=np.int64).reshape(-1, 2)
    narrow = np.uint16 if (spans[:, 1] - spans[:, 0]).max(initial=0) <= BLOCK_SPAN_16 \
        else np.int32
    blocks = [(ids[:, a:b].astype(np.int64) - lo).astype(narrow)
              for (a, b), lo in zip(zip(bounds[:-1], bounds[1:]), spans[:, 0])]
    flat = np.concatenate([b.ravel() for b in blocks]) if blocks else ids.ravel().astype(narrow)
    return flat, bounds, spans


@nb.njit(nogil=True, cache=True)
def _add_block_by_ids(b, ids, bounds, spans, weights, out):
    """Block b of :func:`add_weights_by_ids`: its marginals' sums, rows in increasing order."""
    m = weights.size
    width = bounds[b + 1] - bounds[b]
    block = ids[bounds[b] * m:bounds[b + 1] * m].reshape((m, width))
    part = out[spans[b, 0]:]
    for x in range(m):
        value = weights[x]
        for q in block[x]:
            part[q] += value


@nb.njit(nogil=True, cache=True)
def _add_weights_by_ids_serial(ids, bounds, spans, weights, out):
    for b in range(bounds.size - 1):
        _add_block_by_ids(b, ids, bounds, spans, weights, out)


@nb.njit(parallel=True, cache=True, nogil=True)
def _add_weights_by_ids_parallel(ids, bounds, spans, weights, out):
    for b in nb.prange(bounds.size - 1):
        _add_block_by_ids(b, ids, bounds, spans, weights, out)


def add_weights_by_ids(ids, bounds, spans, weights, out):
    """out[q] += Σ_x weights[x] over the support rows x with q among x's query ids (``ids``,
    ``bounds`` and ``spans`` from :func:`block_ids`: a block's ids are offsets from its first
    query), rows in increasing order: into a zeroed ``out``, the same floating-point sums as
    the per-table kernels with one table per marginal.

    One block of marginals at a time: its part of ``out`` stays in the L1/L2 cache, and a row's
    additions go to different marginals (independent), while consecutive rows of a sorted support
    often share a cell of one marginal (a chain of dependent additions if a marginal were done
    alone). Blocks write disjoint ranges of ``out``, so passes of at least
    ``PARALLEL_MIN_ID_PAIRS`` (row, marginal) pairs run one block per thread on all cores with
    the same sums as one thread.
    """
    _one_or_all_cores(_add_weights_by_ids_serial, _add_weights_by_ids_parallel, ids.size,
                      PARALLEL_MIN_ID_PAIRS, ids, bounds, spans, weights, out)


@nb.njit(nogil=True, cache=True)
def add_rows_by_ids(ids, bounds, spans, m, rows, values, y, scratch):
    """y[q] += Σ values[i] over the rows x = rows[i] with q among x's query ids (``ids``,
    ``bounds``, ``spans`` from :func:`block_ids` of an (m, W) table), in place; per query summed
    from 0 in the order of ``rows``, then added (the floating-point result of
    ``y += bincount(ids[rows], values)``).

    ``scratch`` (one float per query) comes in zeroed and is left zeroed. Per block of marginals,
    one pass sums the values into ``scratch``; the sums are then added to y and reset, either
    through the rows' ids again or, when that is more work, over the block's whole id range (a
    contiguous sweep). Queries no given row reaches get + 0.0, which leaves y unchanged (for
    y ≠ −0.0); no data-dependent branch. O(W·|rows|) plus at most |Q|; no allocation.
    """
    for b in range(bounds.size - 1):
        width = bounds[b + 1] - bounds[b]
        base = bounds[b] * m
        lo, hi = spans[b, 0], spans[b, 1]
        part, sums = y[lo:], scratch[lo:]
        for i in range(rows.size):
            value = values[i]
            start = base + rows[i] * width
            for j in range(start, start + width):
                sums[ids[j]] += value
        if rows.size * width >= hi - lo:
            for q in range(lo, hi):
                y[q] += scratch[q]
                scratch[q] = 0.0
            continue
        for i in range(rows.size):
            start = base + rows[i] * width
            for j in range(start, start + width):
                q = ids[j]
                part[q] += sums[q]
                sums[q] = 0.0


@nb.njit(cache=True, nogil=True)
def rows_in_cell(codes, attributes, strides, local):
    """Ascending rows x in cell ``local`` (its C-order index) of the marginal over
    ``attributes`` with ``strides``: codes[attributes[i], x] equals the cell's digit i for every
    i, the digits decoded here."""
    k = attributes.size
    values = np.empty(k, dtype=np.int64)
    for i in range(k):
        values[i] = local // strides[i]
        local %= strides[i]
    m = codes.shape[1]
    hits = np.empty(m, dtype=np.int64)
    count = 0
    for x in range(m):
        match = True
        for i in range(k):
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


@nb.njit(nogil=True, cache=True)
def _gather_table(g, codes, values, attrs, strides, ks, cells, pair_start, src, dst, out, table,
                  ids):
    """out[x] += Σ_{pairs of table g} values[dst]·[cell_g(x) = src] for every row x: the table's
    cells first collect their members' values, then each row reads its cell."""
    cell_table = table[:cells[g]]
    cell_table[:] = 0.0
    for j in range(pair_start[g], pair_start[g + 1]):
        cell_table[src[j]] += values[dst[j]]
    m = out.size
    for lo in range(0, m, _SWEEP):
        hi = min(lo + _SWEEP, m)
        ids[:hi - lo] = 0
        for j in range(ks[g]):
            column, stride = codes[attrs[g, j]], strides[g, j]
            for x in range(lo, hi):
                ids[x - lo] += column[x] * stride
        for x in range(lo, hi):
            out[x] += cell_table[ids[x - lo]]


@nb.njit(nogil=True, cache=True)
def _gather_serial(codes, values, attrs, strides, ks, cells, pair_start, src, dst, out):
    table, ids = np.zeros(cells.max()), np.empty(_SWEEP, dtype=strides.dtype)
    for g in range(ks.size):
        _gather_table(g, codes, values, attrs, strides, ks, cells, pair_start, src, dst, out,
                      table, ids)


@nb.njit(nogil=True, cache=True)
def _gather_by_cells(cells_of, values, cells, pair_start, src, dst, out):
    table = np.zeros(cells.max())
    for g in range(cells.size):
        cell_table = table[:cells[g]]
        cell_table[:] = 0.0
        for j in range(pair_start[g], pair_start[g + 1]):
            cell_table[src[j]] += values[dst[j]]
        row = cells_of[g]
        for x in range(out.size):
            out[x] += cell_table[row[x]]


def gather_marginals(codes, values, plan, out, cells_of=None):
    """The adjoint of :func:`add_marginals`: out[x] += Σ_q values[q]·q(x) for every row x (the
    queries q reached through the plan's pairs), from the codes or from the rows' kept table
    cells ``cells_of`` (:func:`table_cells`). One thread; per row the tables are read in order."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if cells_of is not None:
        _gather_by_cells(cells_of, values, plan.cells, plan.pair_start, plan.src, plan.dst, out)
        return
    _gather_serial(codes, values, plan.attrs, plan.cell_strides, plan.ks, plan.cells,
                   plan.pair_start, plan.src, plan.dst, out)
