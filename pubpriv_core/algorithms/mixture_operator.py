"""The incidence matrix M = [q(x)] of the best-mixture LP (Liu et al. 2021, Def. 4.1) as an
operator on the support engine, for supports where M itself does not fit in memory.

M has |X̂|·W non-zeros (one cell per marginal per row): 532M at the paper's full-ACS point
(|X̂| = 130,000, W = 4,096), ≈ 6 GB as a CSR matrix and more while it is built. The LP's
first-order start and its constraint generation need only Mμ (the engine's answer pass,
:meth:`~pubpriv_core.queries.SupportAnswerer.answer`), Mᵀg (its transpose,
:meth:`~pubpriv_core.queries.SupportAnswerer.row_sums`) and the rows of the cells that join the
working set (each cell's support rows, :meth:`~pubpriv_core.queries.SupportAnswerer.rows_of`):
memory stays that of the engine plus the working rows.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class SupportIncidence:
    """M over the answerer's kept (present) queries × support rows: ``M @ μ``, ``M.T @ g``,
    ``M[cells]`` (a CSR matrix of those rows) and ``shape``, as a ``scipy.sparse`` matrix has."""

    def __init__(self, answerer):
        self.answerer = answerer
        self.shape = (answerer.num_queries, answerer.size)

    def __matmul__(self, mu: np.ndarray) -> np.ndarray:
        return self.answerer.answer(np.ascontiguousarray(mu, dtype=float))

    @property
    def T(self) -> "_Transpose":
        return _Transpose(self)

    def __getitem__(self, cells) -> sp.csr_matrix:
        rows = [self.answerer.rows_of(int(q)) for q in np.asarray(cells).ravel()]
        indptr = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
        indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        return sp.csr_matrix((np.ones(indices.size), indices, indptr),
                             shape=(len(rows), self.shape[1]))


class _Transpose:
    """Mᵀ: ``Mᵀ @ g`` = Σ_q g[q]·q(x) for every row x."""

    def __init__(self, incidence: SupportIncidence):
        self.incidence = incidence
        self.shape = incidence.shape[::-1]

    def __matmul__(self, values: np.ndarray) -> np.ndarray:
        return self.incidence.answerer.row_sums(values)
