"""The answer engine: all marginal queries on a dataset, on weights over a support, on a histogram.

A linear query on a distribution A over a support X̂ is q(A) = Σ_{x∈X̂} A(x) q(x) (Liu et al. 2021,
§2). For marginals, row x of X̂ contributes to exactly one cell of each marginal, so the answer vector
is a scatter-add of the weights through the (|X̂|, W) cell-id table. The engine stores that table
(|X̂|·W int32 entries) and a sparse |Q|×|X̂| incidence matrix with |X̂|·W non-zeros: it never forms
the dense |Q|×|X̂| matrix. Supports too large to cache are answered marginal by marginal from the
records, in bounded memory. The whole domain (MWEM) has its own engine,
:class:`~pubpriv_core.queries.full_domain.DomainAnswerer`.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pubpriv_core.data.domain import Dataset
from pubpriv_core.queries.workload import MarginalWorkload

#: largest |X̂|·W for which the cell-id table and the incidence matrix are cached (≈ 1.2 GB).
MAX_CACHED_ENTRIES = 100_000_000
_CHUNK_ROWS = 65_536


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
    """Σ_x weights[x]·q(x) for every query, computed marginal by marginal in row chunks."""
    out = np.zeros(workload.num_queries)
    for lo in range(0, len(records), _CHUNK_ROWS):
        ids = workload.cell_ids(records[lo:lo + _CHUNK_ROWS])
        out += np.bincount(ids.ravel(), np.repeat(weights[lo:lo + _CHUNK_ROWS], ids.shape[1]),
                           minlength=workload.num_queries)
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

    ``answer(w)`` costs one sparse mat-vec with |X̂|·W non-zeros; ``rows_of(q)`` lists the support
    rows with q(x) = 1; ``cell_ids(rows)`` gives those rows' query ids in every marginal (used by
    the incremental multiplicative-weights update).

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
        self.cached = self.size * workload.num_marginals <= MAX_CACHED_ENTRIES
        ids = workload.cell_ids(self.records) if self.cached else None
        self.queries = self._present(ids) if present_only else None
        self._position = None
        if self.queries is not None:
            self._position = np.full(workload.num_queries, -1, dtype=np.int32)
            self._position[self.queries] = np.arange(self.queries.size, dtype=np.int32)
        self._ids = self._local(ids) if self.cached else None
        self._matrix = self.incidence(np.arange(self.num_queries)) if self.cached else None
        # past this many touched rows, recomputing every answer beats scattering their changes
        self.incremental_limit = self.size // 4

    @property
    def num_queries(self) -> int:
        return self.workload.num_queries if self.queries is None else int(self.queries.size)

    def _present(self, ids: np.ndarray | None) -> np.ndarray:
        if ids is not None:
            return np.unique(ids)
        return np.flatnonzero(answer_records(self.workload, self.records, np.ones(self.size)))

    def _local(self, ids: np.ndarray) -> np.ndarray:
        return ids if self._position is None else self._position[ids]

    def incidence(self, queries: np.ndarray) -> sp.csr_matrix:
        """Sparse 0/1 matrix [q(x)] for the given sorted (own-numbering) query ids × support rows."""
        ids = self.cell_ids(np.arange(self.size))
        position = np.full(self.num_queries, -1, dtype=np.int64)
        position[queries] = np.arange(len(queries))
        rows = position[ids.ravel()]
        cols = np.repeat(np.arange(self.size, dtype=np.int32), ids.shape[1])
        keep = rows >= 0
        return sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])),
                             shape=(len(queries), self.size))

    def answer(self, weights: np.ndarray) -> np.ndarray:
        """Σ_{x∈X̂} weights[x]·q(x) for every kept query q (weights need not be normalised)."""
        weights = np.asarray(weights, dtype=float)
        if self.cached:
            return self._matrix @ weights
        full = answer_records(self.workload, self.records, weights)
        return full if self.queries is None else full[self.queries]

    def expand(self, answers: np.ndarray) -> np.ndarray:
        """A full-length answer vector (zeros for the queries this answerer does not keep)."""
        if self.queries is None:
            return answers
        out = np.zeros(self.workload.num_queries)
        out[self.queries] = answers
        return out

    def cell_ids(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), W) query ids (own numbering) of the given support rows."""
        if self.cached:
            return self._ids[rows]
        return self._local(self.workload.cell_ids(self.records[rows]))

    def grid(self, weights: np.ndarray) -> np.ndarray:
        """The array :meth:`selector` indexes: the weight vector itself."""
        return weights

    def rows_of(self, qid: int) -> np.ndarray:
        """Support rows x with q(x) = 1 (``qid`` in own numbering)."""
        global_id = qid if self.queries is None else int(self.queries[qid])
        w = int(self.workload.marginal_of(global_id))
        if self.cached:
            return np.flatnonzero(self._ids[:, w] == qid)
        return np.flatnonzero(self.workload.indicator(global_id, self.records))

    selector = rows_of      # the MW loop indexes grid(u) with it (a view on a domain tensor)

    def present_queries(self) -> np.ndarray:
        """Sorted global ids of the queries some support row satisfies (others answer 0 on X̂)."""
        if self.queries is not None:
            return self.queries
        return self._present(self._ids)
