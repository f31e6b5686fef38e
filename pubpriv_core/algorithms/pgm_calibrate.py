"""Junction-tree calibration for Private-PGM as compiled kernels over the tree's cliques.

Sum-product on a junction tree (Koller & Friedman 2009, §10.2–10.3): an upward pass sends
m_{K→P}(S) = log Σ_{K∖S} exp(ψ_K + Σ_J m_{J→K}), a downward pass forms the beliefs
b_K ∝ exp(ψ_K + Σ_J m_{J→K} + m_{P→K}) and sends m_{K→J} = log b_K(S_J) − m_{J→K}. Messages
stay in log space. One :class:`CalibrationPlan` per tree holds everything that does not change
between mirror-descent steps — cell maps, loop orders, buffers — and one compiled call
(:func:`_calibrate`) calibrates the whole tree, so a step costs no Python work per clique.

Every clique K is swept in *runs*: its cells in a loop order whose innermost attributes R (the
run, chosen per clique by a cost model, :func:`_run_attributes`) vary fastest. Each table that
enters K (ψ of a hosted measured clique, a child's message, the parent's message) is copied once
per calibration into K's loop order; one that holds some but not all of R is also copied out
along the rest of R, so along a run every table is read or written contiguously, or is constant,
and a run costs vectorised products and sums (no cell-by-cell index). ``exp`` is taken once per
table cell, against the table's own maximum on each cell of its overlap with the parent
separator S, so a clique cell costs products, not an ``exp`` (the per-cell ``exp`` is most of
the cost of sum-product in log space). The shifts add up to an
upper bound U(s) on the log-weights of S's cell s, and m_{K→P}(s) = U(s) + log Σ (products).
That sum is exact unless the factors' maxima sit on disjoint cells so far apart that every
product of slice s falls below 10⁻²⁵⁰; then K is swept again in log space with one ``exp`` per
cell against the exact maximum of each slice (the clique's *log mode* for this calibration),
which keeps every marginal exact when potentials lie thousands of nats apart (empty cells of
noise-free public measurements drive them there).
"""
from __future__ import annotations

import itertools
import math

import numba
import numpy as np

#: a slice whose summed products fall below this is recomputed in log space
TINY = 1e-250
#: cost model of a sweep (ns, measured on the kernels below): per run and table, per cell and
#: table met by the run, per cell of a table copied out along the run (in and out)
RUN_COST, CELL_COST, COPY_COST = 6.0, 0.3, 2.0
#: runs of at most this many attributes are considered
MAX_RUN_ATTRIBUTES = 3

HOSTED, CHILD, PARENT = 0, 1, 2
NONE, ALL, SOME = 0, 1, 2       # a table holds none, all or some of the run's attributes


def _strides(attrs, sizes: dict) -> dict:
    """C-order strides of a table over ``attrs`` (in that order), by attribute."""
    strides, step = {}, 1
    for a in reversed(attrs):
        strides[a] = step
        step *= sizes[a]
    return strides


def _flat_index(shape: list[int], strides: list[int]) -> np.ndarray:
    """For every cell of ``shape`` (C order), Σ digit·stride."""
    index = np.zeros(shape, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides)):
        if stride:
            view = [1] * len(shape)
            view[axis] = size
            index += (np.arange(size, dtype=np.int64) * stride).reshape(view)
    return index.ravel()


def _index(attrs, onto, sizes: dict) -> np.ndarray:
    """For every cell of the table over ``attrs`` (C order), its cell in the table over
    ``onto`` (C order in ``onto``'s order; attributes of ``attrs`` not in ``onto`` ignored)."""
    strides = _strides(onto, sizes)
    return _flat_index([sizes[a] for a in attrs], [strides.get(a, 0) for a in attrs])


def _cells(attrs, sizes: dict) -> int:
    return math.prod(sizes[a] for a in attrs)


def _run_attributes(attrs, tables, sizes: dict) -> tuple:
    """The run R ⊆ ``attrs`` of least modelled sweep cost for a clique whose tables are over
    ``tables``: per run a fixed cost per table, per cell a cost per table meeting R, and the
    copies of tables holding part of R (:data:`RUN_COST`, :data:`CELL_COST`,
    :data:`COPY_COST`); ties go to the earlier candidate (fewer attributes, domain order)."""
    cells = _cells(attrs, sizes)
    best, best_cost = tuple(attrs), math.inf
    sizes_of = [(set(t), _cells(t, sizes)) for t in tables]
    for r in range(1, min(len(attrs), MAX_RUN_ATTRIBUTES) + 1):
        for run in itertools.combinations(attrs, r):
            run_cells, members = _cells(run, sizes), set(run)
            cost = cells / run_cells * len(tables) * RUN_COST
            for table, size in sizes_of:
                meet = table & members
                if meet:
                    cost += cells * CELL_COST
                if meet and meet != members:
                    cost += size // _cells(meet, sizes) * run_cells * COPY_COST
            if cost < best_cost:
                best, best_cost = run, cost
    return best


class CalibrationPlan:
    """The compiled calibration of one junction tree.

    ``cliques``/``parent``/``preorder``/``children``/``separator`` describe the tree (forest;
    separators with attributes in domain order), ``hosts[i]`` the clique holding measured
    clique ``maximal[i]``, whose log-potential is the slice ``offsets[i]:offsets[i + 1]`` of θ
    (C order over ``maximal[i]``) and whose marginal is returned at the same place."""

    def __init__(self, sizes: dict, cliques, parent, preorder, children, separator, hosts,
                 maximal, offsets):
        self.sizes, self.cliques = sizes, [tuple(c) for c in cliques]
        self.maximal = [tuple(m) for m in maximal]
        n = len(self.cliques)
        self.preorder = np.asarray(preorder, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        separator = [tuple(s) for s in separator]
        seps = [_cells(separator[k], sizes) for k in range(n)]
        self.sep_offset = np.concatenate([[0], np.cumsum(seps)]).astype(np.int64)
        self.loop_order, self.run = [], []
        columns = []    # per clique: [(kind, source offset, attrs)], inputs then the parent
        for k, attrs in enumerate(self.cliques):
            cols = ([(HOSTED, int(offsets[i]), tuple(maximal[i]))
                     for i, h in enumerate(hosts) if h == k]
                    + [(CHILD, int(self.sep_offset[j]), separator[j]) for j in children[k]]
                    + [(PARENT, int(self.sep_offset[k]), separator[k])])
            run = _run_attributes(attrs, [c[2] for c in cols], sizes)
            self.run.append(run)
            # outer attributes of the largest tables slowest: consecutive runs reuse their rows
            weight = {a: sum(_cells(c[2], sizes) for c in cols if a in c[2]) for a in attrs}
            outer = sorted((a for a in attrs if a not in run), key=lambda a: -weight[a])
            self.loop_order.append(tuple(outer) + run)
            columns.append(cols)
        self._layout(columns, separator)

    def _layout(self, columns, separator) -> None:
        sizes = self.sizes
        clique = {name: [] for name in ("nin", "run", "outer", "opos", "cells")}
        column = {name: [] for name in ("kind", "src", "size", "cls", "psize", "xsize")}
        perms, pmaps, smaps, xmaps, oposs = [], [], [], [], []
        for k, cols in enumerate(columns):
            order, run = self.loop_order[k], self.run[k]
            outer = order[:len(order) - len(run)]
            clique["nin"].append(len(cols) - 1)
            clique["run"].append(_cells(run, sizes))
            clique["outer"].append(_cells(outer, sizes))
            clique["cells"].append(_cells(order, sizes))
            opos = np.empty((clique["outer"][-1], len(cols)), dtype=np.int64)
            for c, (kind, src, attrs) in enumerate(cols):
                local = tuple(a for a in order if a in attrs)    # the table in loop order
                meet = [a for a in run if a in attrs]
                cls = NONE if not meet else ALL if len(meet) == len(run) else SOME
                # a run starts at (outer part) × |R| in the run-long copy, else in the table
                span = {NONE: 1, ALL: _cells(run, sizes), SOME: _cells(run, sizes)}[cls]
                own = tuple(a for a in outer if a in attrs)
                strides = _strides(own, sizes)
                opos[:, c] = span * _flat_index([sizes[a] for a in outer],
                                                [strides.get(a, 0) for a in outer])
                overlap = tuple(a for a in separator[k] if a in attrs)
                column["kind"].append(kind)
                column["src"].append(src)
                column["size"].append(_cells(attrs, sizes))
                column["cls"].append(cls)
                column["psize"].append(_cells(overlap, sizes))
                perms.append(_index(local, attrs, sizes))
                pmaps.append(_index(local, overlap, sizes))
                smaps.append(_index(separator[k], overlap, sizes))
                xmaps.append(_index(own + run, local, sizes) if cls == SOME
                             else np.zeros(0, dtype=np.int64))
                column["xsize"].append(xmaps[-1].size)
            clique["opos"].append(opos.size)
            oposs.append(opos.ravel())
        ints = lambda values: np.asarray(values, dtype=np.int64)   # noqa: E731
        starts = lambda values: np.concatenate([[0], np.cumsum(values)]).astype(np.int64)  # noqa
        flat = lambda parts: (np.concatenate(parts) if parts   # noqa: E731
                              else np.zeros(0, dtype=np.int64))
        self.k_nin, self.k_run = ints(clique["nin"]), ints(clique["run"])
        self.k_outer = ints(clique["outer"])
        self.k_col0 = starts(self.k_nin + 1)
        self.k_opos, self.k_cell0 = starts(clique["opos"]), starts(clique["cells"])
        self.col_kind, self.col_src = ints(column["kind"]), ints(column["src"])
        self.col_size, self.col_cls = ints(column["size"]), ints(column["cls"])
        self.col_e, self.col_sh = starts(self.col_size), starts(column["psize"])
        self.col_x = starts(column["xsize"])
        self.col_smap = starts([len(m) for m in smaps])
        self.perm, self.pmap, self.smap = flat(perms), flat(pmaps), flat(smaps)
        self.xmap, self.opos = flat(xmaps), flat(oposs)
        cells, seps = int(self.col_e[-1]), int(self.sep_offset[-1])
        self.factors, self.logs, self.local = np.empty(cells), np.empty(cells), np.empty(cells)
        self.copies, self.sinks = np.empty(int(self.col_x[-1])), np.empty(int(self.col_x[-1]))
        self.shifts = np.empty(int(self.col_sh[-1]))
        self.bound, self.sums = np.empty(seps), np.empty(seps)
        self.scale, self.child_sums = np.empty(seps), np.empty(seps)
        self.store = np.empty(int(self.k_cell0[-1]))
        self.log_mode = np.zeros(len(self.cliques), dtype=np.bool_)
        self.mass = np.zeros(len(self.cliques))
        self.log_calibrations = 0

    @property
    def cells(self) -> int:
        """Cells swept per pass: Σ over the tree's cliques."""
        return int(self.k_cell0[-1])

    def calibrate(self, theta: np.ndarray, total: float, out: np.ndarray) -> np.ndarray:
        """The marginals (counts summing to ``total``) of the measured cliques at potentials θ,
        written into ``out`` (same layout as θ)."""
        self.log_calibrations += _calibrate(theta, total, out, *self._arrays())
        return out

    def beliefs(self, theta: np.ndarray, total: float) -> list[np.ndarray]:
        """Every clique's belief at potentials θ (counts summing to ``total``), axes in the
        clique's attribute order."""
        self.calibrate(theta, total, np.empty_like(theta))
        beliefs = []
        for k, attrs in enumerate(self.cliques):
            order = self.loop_order[k]
            table = np.empty(int(self.k_cell0[k + 1] - self.k_cell0[k]))
            _fill(k, table, *self._arrays())
            table = (table * (total / self.mass[k])).reshape([self.sizes[a] for a in order])
            beliefs.append(np.ascontiguousarray(
                np.transpose(table, [order.index(a) for a in attrs])))
        return beliefs

    def _arrays(self) -> tuple:
        return (self.preorder, self.parent, self.sep_offset, self.k_nin, self.k_run,
                self.k_outer, self.k_col0, self.k_opos, self.k_cell0, self.col_kind,
                self.col_src, self.col_size, self.col_cls, self.col_e, self.col_sh,
                self.col_smap, self.col_x, self.perm, self.pmap, self.smap, self.xmap,
                self.opos, self.factors, self.logs, self.local, self.copies, self.shifts,
                self.bound, self.sums, self.scale, self.child_sums, self.store, self.log_mode,
                self.mass, self.sinks)


# The kernels take the plan's arrays in the order of ``CalibrationPlan._arrays``. Clique k's
# columns are c = k_col0[k] … k_col0[k] + k_nin[k] (hosted potentials, child messages, and last
# its parent separator); column c's table (col_size[c] cells) is held in k's loop order at
# col_e[c] of ``factors``, ``logs`` and ``local`` (moved from its source, θ or a message in
# domain order, by ``perm``), and if it holds SOME of the run's attributes, also copied out
# along the whole run at col_x[c] of ``copies`` (cell i of the copy is cell xmap[i] of the
# table). Per outer cell o of k, opos[k_opos[k] + o·(k_nin[k] + 1) + q] is where column q's run
# starts (in the table for NONE and ALL, in the copy for SOME). k's cells' weights live in
# store[k_cell0[k]:k_cell0[k + 1]], runs of k_run[k] cells.


@numba.njit(cache=True)
def _calibrate(theta, total, out, preorder, parent, sep_offset, k_nin, k_run, k_outer, k_col0,
               k_opos, k_cell0, col_kind, col_src, col_size, col_cls, col_e, col_sh, col_smap,
               col_x, perm, pmap, smap, xmap, opos, factors, logs, local, copies, shifts, bound,
               sums, scale, child_sums, store, log_mode, mass, sinks):  # pragma: no cover
    """Upward then downward pass over every clique; the measured cliques' marginals into
    ``out``, every clique's belief weights into ``store``. Returns how many cliques were swept
    in log mode."""
    modes = 0
    for t in range(preorder.size - 1, -1, -1):
        k = preorder[t]
        _factors(k, theta, sep_offset, k_nin, k_col0, col_kind, col_src, col_size, col_cls,
                 col_e, col_sh, col_smap, col_x, perm, pmap, smap, xmap, factors, copies, shifts,
                 bound, sums)
        _up(k, 0, k_nin, k_run, k_outer, k_col0, k_opos, k_cell0, col_cls, col_e, col_x, xmap,
            opos, factors, logs, local, copies, store)
        p = k_col0[k] + k_nin[k]
        s0, s1 = sep_offset[k], sep_offset[k + 1]
        log_mode[k] = False
        for i in range(s1 - s0):
            s = s0 + perm[col_e[p] + i]
            sums[s] = local[col_e[p] + i]
            log_mode[k] |= sums[s] < TINY and bound[s] > -np.inf
        if log_mode[k]:
            modes += 1
            _log_tables(k, theta, k_nin, k_col0, col_kind, col_src, col_size, col_e, perm,
                        logs, bound, sums)
            for sweep in (1, 2):
                _up(k, sweep, k_nin, k_run, k_outer, k_col0, k_opos, k_cell0, col_cls, col_e,
                    col_x, xmap, opos, factors, logs, local, copies, store)
            for i in range(s1 - s0):
                bound[s0 + perm[col_e[p] + i]] = logs[col_e[p] + i]
                sums[s0 + perm[col_e[p] + i]] = local[col_e[p] + i]
    for t in range(preorder.size):
        k = preorder[t]
        for s in range(sep_offset[k], sep_offset[k + 1]):
            # Hugin's update: b_K = (upward product)·b_P(s)/m_{K→P}(s), the bound cancelling
            scale[s] = (child_sums[s] / sums[s] if parent[k] >= 0 and sums[s] > 0.0
                        else 1.0 if parent[k] < 0 else 0.0)
        _down(k, out, total, sep_offset, k_nin, k_run, k_outer, k_col0, k_opos, k_cell0,
              col_kind, col_src, col_size, col_cls, col_e, col_x, perm, xmap, opos, factors,
              local, copies, scale, child_sums, store, mass, sinks)
    return modes


@numba.njit(cache=True)
def _factors(k, theta, sep_offset, k_nin, k_col0, col_kind, col_src, col_size, col_cls, col_e,
             col_sh, col_smap, col_x, perm, pmap, smap, xmap, factors, copies, shifts, bound,
             sums):  # pragma: no cover
    """Clique k's input tables in loop order as factors exp(log − shift), the shift being the
    table's max on each cell of its overlap with k's separator (copied out along the run where
    needed); bound(s) = Σ of the shifts on separator cell s. A child's message is
    sums(s)·exp(bound(s)) (its upward pass), shifted by the max of its bound, so its factor
    costs one ``exp`` and no ``log``."""
    for c in range(k_col0[k], k_col0[k] + k_nin[k]):
        src, sh, e, hosted = col_src[c], col_sh[c], col_e[c], col_kind[c] == HOSTED
        for p in range(sh, col_sh[c + 1]):
            shifts[p] = -np.inf
        for i in range(col_size[c]):
            at = src + perm[e + i]
            value = theta[at] if hosted else bound[at] if sums[at] > 0.0 else -np.inf
            p = sh + pmap[e + i]
            if value > shifts[p]:
                shifts[p] = value
        for i in range(col_size[c]):
            at, top = src + perm[e + i], shifts[sh + pmap[e + i]]
            if top == -np.inf:
                factors[e + i] = 0.0
            elif hosted:
                factors[e + i] = math.exp(theta[at] - top)
            else:
                factors[e + i] = sums[at] * math.exp(bound[at] - top) if sums[at] > 0.0 else 0.0
        if col_cls[c] == SOME:
            for i in range(col_x[c], col_x[c + 1]):
                copies[i] = factors[e + xmap[i]]
    s0 = sep_offset[k]
    for s in range(sep_offset[k + 1] - s0):
        total = 0.0
        for c in range(k_col0[k], k_col0[k] + k_nin[k]):
            total += shifts[col_sh[c] + smap[col_smap[c] + s]]
        bound[s0 + s] = total


@numba.njit(cache=True)
def _log_tables(k, theta, k_nin, k_col0, col_kind, col_src, col_size, col_e, perm, logs, bound,
                sums):  # pragma: no cover
    """Clique k's input tables in loop order as logs (log mode)."""
    for c in range(k_col0[k], k_col0[k] + k_nin[k]):
        src, e = col_src[c], col_e[c]
        for i in range(col_size[c]):
            at = src + perm[e + i]
            if col_kind[c] == HOSTED:
                logs[e + i] = theta[at]
            else:
                logs[e + i] = math.log(sums[at]) + bound[at] if sums[at] > 0.0 else -np.inf


@numba.njit(cache=True)
def _up(k, sweep, k_nin, k_run, k_outer, k_col0, k_opos, k_cell0, col_cls, col_e, col_x, xmap,
        opos, factors, logs, local, copies, store):  # pragma: no cover
    """Upward sweep of clique k, the parent separator's table in loop order at its column's
    place. ``sweep`` 0: store = Π factors, local = its sums. Log mode, 1: store = Σ logs, logs =
    its max (the exact bound); 2: store = exp(store − bound), local = its sums."""
    n, size, c0 = k_nin[k], k_run[k], k_col0[k]
    p = c0 + n
    e, cls = col_e[p], col_cls[p]
    for i in range(e, e + col_e[p + 1] - col_e[p]):
        if sweep == 1:
            logs[i] = -np.inf
        else:
            local[i] = 0.0
    for o in range(k_outer[k]):
        row = k_opos[k] + o * (n + 1)
        cell = k_cell0[k] + o * size
        weights = store[cell:cell + size]
        if sweep == 0:
            _product(n, c0, row, size, col_cls, col_e, col_x, opos, factors, copies, weights)
        elif sweep == 1:
            _log_sum(n, c0, row, size, col_cls, col_e, col_x, xmap, opos, logs, weights)
        at = opos[row + n]
        if sweep == 1:
            if cls == NONE:
                logs[e + at] = max(logs[e + at], weights.max())
            else:
                for j in range(size):
                    t = e + (at + j if cls == ALL else xmap[col_x[p] + at + j])
                    logs[t] = max(logs[t], weights[j])
            continue
        if sweep == 2:
            for j in range(size):
                t = e + (at if cls == NONE else at + j if cls == ALL else
                         xmap[col_x[p] + at + j])
                weights[j] = math.exp(weights[j] - logs[t]) if logs[t] > -np.inf else 0.0
        if cls == NONE:
            local[e + at] += weights.sum()
        elif cls == ALL:
            target = local[e + at:e + at + size]
            for j in range(size):
                target[j] += weights[j]
        else:
            for j in range(size):
                local[e + xmap[col_x[p] + at + j]] += weights[j]


@numba.njit(cache=True)
def _product(n, c0, row, size, col_cls, col_e, col_x, opos, factors, copies,
             weights):  # pragma: no cover
    """weights = the product of the n input tables over one run."""
    value = 1.0
    for q in range(n):
        if col_cls[c0 + q] == NONE:
            value *= factors[col_e[c0 + q] + opos[row + q]]
    weights[:] = value
    for q in range(n):
        c = c0 + q
        if col_cls[c] != NONE:
            at = opos[row + q]
            table = (factors[col_e[c] + at:col_e[c] + at + size] if col_cls[c] == ALL
                     else copies[col_x[c] + at:col_x[c] + at + size])
            for j in range(size):
                weights[j] *= table[j]


@numba.njit(cache=True)
def _log_sum(n, c0, row, size, col_cls, col_e, col_x, xmap, opos, logs,
             weights):  # pragma: no cover
    """weights = the sum of the n input log tables over one run (log mode)."""
    weights[:] = 0.0
    for q in range(n):
        c = c0 + q
        at, e = opos[row + q], col_e[c]
        for j in range(size):
            weights[j] += logs[e + (at if col_cls[c] == NONE else at + j if col_cls[c] == ALL
                                    else xmap[col_x[c] + at + j])]


@numba.njit(cache=True)
def _down(k, out, total, sep_offset, k_nin, k_run, k_outer, k_col0, k_opos, k_cell0, col_kind,
          col_src, col_size, col_cls, col_e, col_x, perm, xmap, opos, factors, local, copies,
          scale, child_sums, store, mass, sinks):  # pragma: no cover
    """Clique k's belief (store ← store·scale) summed onto its hosted cliques (marginals in
    counts, into ``out``) and its children's separators (``child_sums``: b_K(S_J), in the
    root's units)."""
    n, size, c0 = k_nin[k], k_run[k], k_col0[k]
    p = c0 + n
    for i in range(col_size[p]):        # the scale in loop order (copied out along the run)
        factors[col_e[p] + i] = scale[sep_offset[k] + perm[col_e[p] + i]]
    if col_cls[p] == SOME:
        for i in range(col_x[p], col_x[p + 1]):
            copies[i] = factors[col_e[p] + xmap[i]]
    for c in range(c0, p):
        local[col_e[c]:col_e[c + 1]] = 0.0
        sinks[col_x[c]:col_x[c + 1]] = 0.0
    weight = 0.0
    for o in range(k_outer[k]):
        row = k_opos[k] + o * (n + 1)
        weights = store[k_cell0[k] + o * size:k_cell0[k] + (o + 1) * size]
        at = opos[row + n]
        if col_cls[p] == NONE:
            value = factors[col_e[p] + at]
            for j in range(size):
                weights[j] *= value
        else:
            table = (factors[col_e[p] + at:col_e[p] + at + size] if col_cls[p] == ALL
                     else copies[col_x[p] + at:col_x[p] + at + size])
            for j in range(size):
                weights[j] *= table[j]
        acc = weights.sum()
        weight += acc
        for q in range(n):
            c = c0 + q
            at = opos[row + q]
            if col_cls[c] == NONE:
                local[col_e[c] + at] += acc
            else:
                target = (local[col_e[c] + at:col_e[c] + at + size] if col_cls[c] == ALL
                          else sinks[col_x[c] + at:col_x[c] + at + size])
                for j in range(size):
                    target[j] += weights[j]
    mass[k] = weight
    for c in range(c0, p):
        src, e = col_src[c], col_e[c]
        for i in range(col_x[c], col_x[c + 1]):
            local[e + xmap[i]] += sinks[i]
        if col_kind[c] == HOSTED:
            for i in range(col_size[c]):
                out[src + perm[e + i]] = local[e + i] * (total / weight)
        else:
            for i in range(col_size[c]):
                child_sums[src + perm[e + i]] = local[e + i]


@numba.njit(cache=True)
def _fill(k, table, preorder, parent, sep_offset, k_nin, k_run, k_outer, k_col0, k_opos,
          k_cell0, col_kind, col_src, col_size, col_cls, col_e, col_sh, col_smap, col_x, perm,
          pmap, smap, xmap, opos, factors, logs, local, copies, shifts, bound, sums, scale,
          child_sums, store, log_mode, mass, sinks):  # pragma: no cover
    """Clique k's belief weights on every cell (its loop order) after a calibration."""
    table[:] = store[k_cell0[k]:k_cell0[k + 1]]
