"""The answer engine: all marginal queries on a dataset, on weights over a support, on a histogram.

A linear query on a distribution A over a support X̂ is q(A) = Σ_{x∈X̂} A(x) q(x) (Liu et al. 2021,
§2). For marginals, row x of X̂ contributes to exactly one cell of each marginal, so the answer vector
is a scatter-add of the weights into the cells of every marginal. The engine keeps the support as
compact codes (|X̂| × d small integers) and computes each row's cell under each marginal on the fly
in compiled kernels (:mod:`pubpriv_core.queries.kernels`): time and memory follow |X̂|·d codes and
the |X̂|·W additions, never a |Q|×|X̂| matrix, and an |X̂|·W table of row query ids only on small
supports (``ID_TABLE_MAX_ENTRIES``), where reading it beats recomputing cells; on large supports
the rows' cells in the G ≪ W super-marginal tables of the plan (``TABLE_CELLS_MAX_ENTRIES``,
2 bytes each) are kept for the same reason. The whole domain
(MWEM) has its own engine, :class:`~pubpriv_core.queries.full_domain.DomainAnswerer`.
"""
from __future__ import annotations

import bisect

import numpy as np
import scipy.sparse as sp

from pubpriv_core.data.domain import Dataset
from pubpriv_core.queries import kernels
from pubpriv_core.queries.plan import MarginalPlan, cell_budget
from pubpriv_core.queries.workload import MarginalWorkload

#: rows per partial sum of :func:`answer_records` (each block's sums are added to the total)
_CHUNK_ROWS = 65_536
#: supports with |X̂|·W at most this (and one table per marginal) keep every row's query ids,
#: (|X̂|, W) 16-bit offsets from their block's first id (32 MiB; 32-bit only if one marginal
#: alone has more than 2^16 kept cells), for answers and sparse changes;
#: larger ones compute cells from the codes (no |X̂|·W table at scale). Same sums either way; on the
#: acs_full preset per iteration 0.019 s against 0.034 s (4K rows × W = 4,096), 0.014 s against
#: 0.044 s (16K × 1,024), 0.021 s against 0.057 s (64K × 256), load 5.7–6.4
ID_TABLE_MAX_ENTRIES = 2 ** 24
#: supports whose plan groups marginals into super-marginals keep every row's cell in every table
#: ((G, |X̂|) 16-bit ids, ≤ 256 MiB; full ACS: 696 × 130,000, 173 MiB) when there are at most this
#: many: a pass then reads 2 bytes per (row, table) instead of computing the cell from k code
#: bytes (same sums; CPU time per pass 0.10 s against 0.18 s, one core, load 5)
TABLE_CELLS_MAX_ENTRIES = 2 ** 27
#: marginals per block of the id table (:func:`~pubpriv_core.queries.kernels.block_ids`); at
#: ADULT's 3,916 × 256 blocks of 16 to 64 answered in 0.38–0.45 ms against 0.58–0.60 ms row by
#: row (the same sums; 2-core machine, load 4)
ID_BLOCK_MARGINALS = 32


def answer_dataset(workload: MarginalWorkload, data: Dataset) -> np.ndarray:
    """q(D) = (1/|D|) Σ_{x∈D} q(x) for every query: the normalised counts of every cell."""
    if len(data) == 0:
        raise ValueError("cannot answer queries on an empty dataset; check the data source")
    if data.domain != workload.domain:
        raise ValueError("dataset and workload are over different domains; "
                         "build the workload from the dataset's domain")
    weights = np.full(len(data), 1.0 / len(data))
    return answer_records(workload, data.records, weights)


def answer_records(workload: MarginalWorkload, records: np.ndarray,
                   weights: np.ndarray) -> np.ndarray:
    """Σ_x weights[x]·q(x) for every query: one kernel pass over the records' codes, summed in
    blocks of 65,536 rows."""
    out = np.zeros(workload.num_queries)
    if len(records):
        kernels.add_marginals(kernels.compact_codes(records), weights, workload.singleton_plan,
                              out, chunk=_CHUNK_ROWS)
    return out


def answer_histogram(workload: MarginalWorkload, histogram: np.ndarray) -> np.ndarray:
    """All queries on a full-domain histogram (shape ``domain.shape`` or flat, C order)."""
    hist = np.asarray(histogram, dtype=float).reshape(workload.domain.shape)
    d = len(workload.domain)
    parts = [hist.sum(axis=tuple(j for j in range(d) if j not in m)).ravel()
             for m in workload.marginals]
    return np.concatenate(parts)


class SupportAnswerer:
    """Answers queries on weight vectors over a fixed support X̂ (rows of ``records``).

    ``answer(w)`` is one kernel pass (|X̂| additions per table of ``plan``: W tables, or fewer
    super-marginals on large supports, :mod:`pubpriv_core.queries.plan`; on small supports one
    read of the cached row ids); ``add_changes(y, rows,
    values)`` adds the answers of a sparse change of the weights (|rows| additions per table);
    ``rows_of(q)`` lists the support rows with q(x) = 1 (one scan of q's k code columns). Memory:
    the (d, |X̂|) codes and the plan's table-to-member maps (≈ |Q| to 10·|Q| integers), plus the
    rows' query ids on small supports (|X̂|·W ≤ ``ID_TABLE_MAX_ENTRIES``) or, with
    super-marginals, the rows' cells in each of the G tables (|X̂|·G ≤ ``TABLE_CELLS_MAX_ENTRIES``).

    With ``present_only`` the answerer keeps only the queries some support row satisfies — every
    other query answers 0 on any distribution over X̂ — numbered 0..|P|−1 in increasing global id;
    ``queries`` maps that numbering to global ids and :meth:`expand` restores a full vector.
    """

    selects_views = False    # ``grid(u)[selector(q)]`` is a copy (an index array)

    def __init__(self, workload: MarginalWorkload, records: np.ndarray,
                 present_only: bool = False):
        self.workload = workload
        self.records = np.asarray(records)
        self.size = len(self.records)
        self.codes = kernels.compact_codes(self.records)
        # marginal attributes and query-id offsets as rows_of reads them (one call per query)
        self._attributes = [np.asarray(m, dtype=np.int64) for m in workload.marginals]
        self._offsets = workload.offsets.tolist()
        budget = cell_budget(self.size, workload)
        plan = MarginalPlan.build(workload, budget)
        counts = np.zeros(int(plan.table_start[-1]))
        kernels.add_marginals(self.codes, np.ones(self.size), plan.tables(), counts)
        reached = plan.reached(counts)
        self._present_ids = np.unique(plan.dst[reached])
        self.queries = self._present_ids if present_only else None
        position = np.arange(workload.num_queries)
        if present_only:
            position = np.full(workload.num_queries, -1, dtype=np.int64)
            position[self.queries] = np.arange(self.queries.size)
        # cells no support row falls in hold 0 for every weighting: their pairs are dropped
        self.plan = plan.restrict(reached, position)
        # small supports keep every row's query ids (answers and changes read them); larger
        # ones with one table per marginal map cells to own ids for add_changes
        self._ids = self._id_bounds = self._id_spans = self._position = None
        if not budget and self.size * workload.num_marginals <= ID_TABLE_MAX_ENTRIES:
            self._ids, self._id_bounds, self._id_spans = kernels.block_ids(
                self.cell_ids(np.arange(self.size)), ID_BLOCK_MARGINALS)
            # zeroed sums of add_changes, kept between calls (one answerer serves one thread)
            self._scratch = np.zeros(self.num_queries)
        elif not budget:
            self._position = position.astype(np.int32)
        self._table_cells = None
        if budget and self.size * self.plan.num_tables <= TABLE_CELLS_MAX_ENTRIES:
            self._table_cells = kernels.table_cells(self.codes, self.plan)
        # past this many touched rows a round recomputes every answer. On the id table, adding
        # changes costs ≈ 0.88 ns per (row, marginal) + 0.4 ns per kept query against 0.52 ns
        # per (row, marginal) for a full pass (ADULT), a crossover at ≈ 0.57·|X̂|; but the limit
        # decides which floating-point sums a run makes, and through them which queries a
        # seeded run selects, so it stays |X̂|/4 on every path
        self.incremental_limit = self.size // 4

    @property
    def num_queries(self) -> int:
        return self.workload.num_queries if self.queries is None else int(self.queries.size)

    def answer(self, weights: np.ndarray) -> np.ndarray:
        """Σ_{x∈X̂} weights[x]·q(x) for every kept query q (weights need not be normalised).

        The same sums (bit for bit) from the cached row ids on small supports, read in blocks
        of ``ID_BLOCK_MARGINALS`` marginals (:func:`~pubpriv_core.queries.kernels.block_ids`)."""
        out = np.zeros(self.num_queries)
        if self._ids is not None:
            kernels.add_weights_by_ids(self._ids, self._id_bounds, self._id_spans,
                                       np.ascontiguousarray(weights, dtype=np.float64), out)
        elif self._table_cells is not None:
            kernels.add_marginals_by_cells(self._table_cells, weights, self.plan, out)
        else:
            kernels.add_marginals(self.codes, weights, self.plan, out)
        return out

    def row_sums(self, values: np.ndarray) -> np.ndarray:
        """Σ_q values[q]·q(x) for every support row x (kept queries, own numbering): the
        transpose of :meth:`answer`, one pass over the plan's tables (from the kept table cells
        where there are, else from the codes)."""
        out = np.zeros(self.size)
        kernels.gather_marginals(self.codes, values, self.plan, out, self._table_cells)
        return out

    def pass_index(self) -> tuple[str, np.ndarray, int]:
        """What one :meth:`answer` pass reads row by row and how many additions it makes:
        ("id table", the rows' query ids, |X̂|·W), ("table cells", the rows' kept cells in the
        plan's tables, |X̂|·G) or ("codes", the rows' codes, |X̂|·G, the cells computed)."""
        if self._ids is not None:
            return "id table", self._ids, self.size * self.workload.num_marginals
        if self._table_cells is not None:
            return "table cells", self._table_cells, self.size * self.plan.num_tables
        return "codes", self.codes, self.size * self.plan.num_tables

    def pass_bytes(self) -> int:
        """Bytes one :meth:`answer` pass must read: the id table and each block's read of the
        8-byte weights on small supports; the rows' table cells and the weights once per two
        tables where the cells are kept (filled two per sweep of the rows); else each table's k
        code columns (one byte per row each) and the weights."""
        if self._ids is not None:
            return int(self._ids.nbytes + 8 * self.size * (self._id_bounds.size - 1))
        if self._table_cells is not None:
            sweeps = (self.plan.num_tables + 1) // 2
            return int(self._table_cells.nbytes + 8 * self.size * sweeps)
        return int(((self.plan.ks + 8) * self.size).sum())

    def add_changes(self, y: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
        """y += Σ_i values[i]·q(rows[i]) for every kept query (rows ascending), in place.

        Small supports (|X̂|·W ≤ ``ID_TABLE_MAX_ENTRIES``) read the rows' cached query ids;
        larger ones with one table per marginal compute the rows' cells from the codes; both write
        only the touched queries (|rows|·W additions). Super-marginal tables are filled by the
        rows and read off through all their pairs.
        """
        if self._ids is not None:
            kernels.add_rows_by_ids(self._ids, self._id_bounds, self._id_spans, self.size,
                                    np.asarray(rows, dtype=np.int64),
                                    np.ascontiguousarray(values, dtype=np.float64), y,
                                    self._scratch)
            return
        if self._position is not None:
            kernels.add_rows_in_place(self.codes, rows, values, self.plan, self.workload.offsets,
                                      self._position, y)
            return
        change = np.zeros(self.num_queries)
        kernels.add_marginals_of_rows(self.codes, rows, values, self.plan, change)
        y += change

    def expand(self, answers: np.ndarray) -> np.ndarray:
        """A full-length answer vector (zeros for the queries this answerer does not keep)."""
        if self.queries is None:
            return answers
        out = np.zeros(self.workload.num_queries)
        out[self.queries] = answers
        return out

    def cell_ids(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), W) query ids (own numbering) of the given support rows: global ids
        renumbered through one lookup table over the workload's queries (every cell a support
        row reaches is kept)."""
        ids = self.workload.cell_ids(self.records[rows])
        if self.queries is None:
            return ids
        own = np.full(self.workload.num_queries, -1, dtype=np.int32)
        own[self.queries] = np.arange(self.queries.size, dtype=np.int32)
        return own[ids]

    def incidence(self, queries: np.ndarray) -> sp.csr_matrix:
        """Sparse 0/1 matrix [q(x)] for the given sorted (own-numbering) query ids × support rows
        (|X̂|·W non-zeros at most: for the exact LPs on moderate supports)."""
        ids = self.cell_ids(np.arange(self.size))
        position = np.full(self.num_queries, -1, dtype=np.int64)
        position[queries] = np.arange(len(queries))
        rows = position[ids.ravel()]
        cols = np.repeat(np.arange(self.size, dtype=np.int32), ids.shape[1])
        keep = rows >= 0
        return sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])),
                             shape=(len(queries), self.size))

    def grid(self, weights: np.ndarray) -> np.ndarray:
        """The array :meth:`selector` indexes: the weight vector itself."""
        return weights

    def rows_of(self, qid: int) -> np.ndarray:
        """Support rows x with q(x) = 1 (``qid`` in own numbering), ascending."""
        global_id = qid if self.queries is None else int(self.queries[qid])
        w = bisect.bisect_right(self._offsets, global_id) - 1
        return kernels.rows_in_cell(self.codes, self._attributes[w], self.workload.strides[w],
                                    global_id - self._offsets[w])

    selector = rows_of      # the MW loop indexes grid(u) with it (a view on a domain tensor)

    def present_queries(self) -> np.ndarray:
        """Sorted global ids of the queries some support row satisfies (others answer 0 on X̂)."""
        return self._present_ids
