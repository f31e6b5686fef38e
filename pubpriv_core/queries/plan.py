"""Which tables a kernel pass fills: the workload's marginals, or super-marginals that cover them.

A pass over the support costs one scatter-add per (row, table) — the |X̂|·W additions that dominate
PMW^Pub at scale. A *super-marginal* S ⊇ w_1 ∪ … ∪ w_r with a small table (Π_{j∈S}|X_j| cells)
is filled with one addition per row, and each member marginal w_i is then read off S's table by
summing its cells (Π_{j∈S}|X_j| additions per member, independent of |X̂|):

    M_w(y) = Σ_{s ∈ cells(S): s|_w = y} M_S(s).

With the full-ACS shape (67 attributes) and W = 4,096 random 3-way marginals, tables of at most
4,096 cells (32 KB, the L1 cache) cover the workload with 696 super-marginals, so a pass makes
5.9× fewer row additions. The cover is greedy best-fit: seed a table with the largest uncovered
marginal, then repeatedly add the uncovered marginal whose union keeps the table smallest, while
it fits the cell budget. The plan depends only on the workload and the budget, never on data.

Grouping changes the order of floating-point additions (answers agree to ~1e-15 relative), so it
is used only where a pass is large enough to matter (:func:`cell_budget`); below that every table
is a marginal and the sums are exactly the row-ordered sums.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from pubpriv_core.queries.kernels import cell_dtype, narrow_int

if TYPE_CHECKING:      # annotations only: queries.workload imports this module at run time
    from pubpriv_core.queries.workload import MarginalWorkload

#: passes of fewer (row, marginal) pairs than this fill the marginals themselves (bitwise
#: the row-ordered sums); ≈ 30 ms per pass on one core of the 2-core benchmark machine
GROUPING_MIN_PAIRS = 2 ** 24
#: largest super-marginal table (4,096 float64 cells = 32 KB: one core's L1 data cache)
MAX_TABLE_CELLS = 4096
#: a table may hold at most |X̂| / TABLE_ROWS_RATIO cells, so reading members off it stays cheap
TABLE_ROWS_RATIO = 8


def cell_budget(rows: int, workload: MarginalWorkload) -> int:
    """Largest super-marginal table for a support of ``rows`` rows (0: no grouping)."""
    if rows * workload.num_marginals < GROUPING_MIN_PAIRS:
        return 0
    return min(MAX_TABLE_CELLS, rows // TABLE_ROWS_RATIO)


@dataclass(frozen=True)
class MarginalPlan:
    """Tables (attribute sets with C-order strides) and where each table cell is added: the
    *pairs* (src = table cell, dst = output index) of table g are ``pair_start[g]`` ..
    ``pair_start[g+1]−1``, member after member. Arrays laid out for the compiled kernels."""

    attrs: np.ndarray        # (G, kmax) attributes of table g, padded with 0
    strides: np.ndarray      # (G, kmax) C-order strides of table g
    ks: np.ndarray           # (G,) number of attributes of table g
    cells: np.ndarray        # (G,) cells of table g
    pair_start: np.ndarray   # (G+1,)
    src: np.ndarray          # table cell of each pair
    dst: np.ndarray          # output index of each pair (global query id unless restricted)

    @property
    def num_tables(self) -> int:
        return int(self.ks.size)

    @cached_property
    def cell_strides(self) -> np.ndarray:
        """``strides`` in the narrowest integer type holding every table's cell ids
        (:func:`~pubpriv_core.queries.kernels.cell_dtype`), the type the kernels compute cells in."""
        return self.strides.astype(cell_dtype(self.cells))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.attrs, self.strides, self.ks, self.cells, self.pair_start, self.src,
                self.dst)

    @classmethod
    def build(cls, workload: MarginalWorkload, budget: int = 0) -> "MarginalPlan":
        """The greedy cover of ``workload`` by tables of at most ``budget`` cells (0: one table
        per marginal); every table cell is added into each member's cell (global query ids)."""
        groups = _cover(workload, budget) if budget > 0 else [[w] for w in
                                                                range(workload.num_marginals)]
        return _layout(workload, groups)

    @property
    def table_start(self) -> np.ndarray:
        """(G+1,) offsets of the tables in the concatenation of all table cells."""
        return np.concatenate([[0], np.cumsum(self.cells)])

    def tables(self) -> "MarginalPlan":
        """The same tables, each cell written to its own slot of the concatenated tables."""
        start = self.table_start
        return replace(self, pair_start=start, src=_local_cells(self.cells, start),
                       dst=np.arange(start[-1], dtype=np.int64))

    @property
    def pair_table(self) -> np.ndarray:
        """The table of every pair."""
        return np.repeat(np.arange(self.num_tables), np.diff(self.pair_start))

    def reached(self, table_counts: np.ndarray) -> np.ndarray:
        """Which pairs read a table cell with a non-zero count (``table_counts`` as filled by a
        pass of :meth:`tables`)."""
        return table_counts[self.table_start[self.pair_table] + self.src] > 0

    def restrict(self, keep: np.ndarray, position: np.ndarray) -> "MarginalPlan":
        """Only the pairs where ``keep`` holds (e.g. :meth:`reached`: other cells hold 0 for every
        weighting of the rows counted), outputs renumbered by ``position`` (global → own); the
        pairs in the narrowest of int16/int32/int64 that holds them (6 bytes per pair instead of
        12 on the full-ACS plan's 11M pairs)."""
        counts = np.bincount(self.pair_table[keep], minlength=self.num_tables)
        return replace(self, pair_start=np.concatenate([[0], np.cumsum(counts)]),
                       src=self.src[keep].astype(narrow_int(int(self.cells.max()))),
                       dst=position[self.dst[keep]].astype(narrow_int(int(position.max()) + 1)))


def _local_cells(cells: np.ndarray, start: np.ndarray) -> np.ndarray:
    """0..cells[g]−1 for every table g, concatenated (``start``: the tables' offsets)."""
    return (np.arange(start[-1]) - np.repeat(start[:-1], cells)).astype(np.int32)


def _cover(workload: MarginalWorkload, budget: int) -> list[list[int]]:
    """Greedy best-fit groups of marginal indices whose attribute unions fit ``budget`` cells."""
    shape = np.asarray(workload.domain.shape, dtype=np.int64)
    logs = np.log(shape.astype(float))
    member = np.zeros((workload.num_marginals, shape.size), dtype=bool)
    for w, attributes in enumerate(workload.marginals):
        member[w, list(attributes)] = True
    open_ = np.ones(workload.num_marginals, dtype=bool)
    limit = np.log(budget) + 1e-9
    groups = []
    for seed in np.argsort(-workload.marginal_sizes, kind="stable"):
        if not open_[seed]:
            continue
        open_[seed], table, group = False, member[seed].copy(), [int(seed)]
        while True:
            candidates = np.flatnonzero(open_)
            if candidates.size == 0:
                break
            union = logs[table].sum() + (member[candidates] & ~table) @ logs
            best = int(np.argmin(union))
            if union[best] > limit:
                break
            chosen = int(candidates[best])
            open_[chosen] = False
            table |= member[chosen]
            group.append(chosen)
        groups.append(group)
    return groups


def _layout(workload: MarginalWorkload, groups: list[list[int]]) -> MarginalPlan:
    shape = np.asarray(workload.domain.shape, dtype=np.int64)
    tables = [sorted(set().union(*(workload.marginals[w] for w in group))) for group in groups]
    kmax = max(len(t) for t in tables)
    attrs = np.zeros((len(tables), kmax), dtype=np.int64)
    strides = np.zeros_like(attrs)
    src, dst, pairs = [], [], [0]
    for g, (table, group) in enumerate(zip(tables, groups)):
        sizes = shape[table]
        attrs[g, :len(table)] = table
        strides[g, :len(table)] = np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]])
        digits = np.indices(tuple(sizes)).reshape(len(table), -1)
        for w in group:
            positions = [table.index(j) for j in workload.marginals[w]]
            src.append(np.arange(digits.shape[1], dtype=np.int32))
            dst.append(workload.offsets[w] + workload.strides[w] @ digits[positions])
        pairs.append(pairs[-1] + digits.shape[1] * len(group))
    return MarginalPlan(attrs, strides, np.array([len(t) for t in tables], dtype=np.int64),
                        np.array([int(np.prod(shape[t])) for t in tables], dtype=np.int64),
                        np.array(pairs, dtype=np.int64), np.concatenate(src),
                        np.concatenate(dst).astype(np.int64))
