"""DualQuery's data player: an exact best response over the full domain by integer programming.

Gaboardi, Gallego Arias, Hsu, Roth & Wu 2014 (ICML, "Dual Query", §3 and §4): in round t the data
player answers the s sampled queries with one record x_t = argmax_{x∈X} Σ_{sampled q} q(x) over the
whole domain X (spec liu2021_pmwpub.md §3). X is never enumerated (ADULT: |X| ≈ 7.3e11).

The sampled queries are k-way marginal cells φ_{S,y} and negations 1 − φ_{S,y}. Since
Σ_q q(x) = #negations + Σ_cells c_cell·φ_cell(x) with c_cell = (#times drawn) − (#times its negation
was drawn), only cells with c ≠ 0 matter. The integer program (solved by HiGHS through
``scipy.optimize.milp``) has
  - one-hot binaries z_{j,v} per attribute j and value v:  Σ_v z_{j,v} = 1;
  - per cell with c > 0, y ∈ [0, 1] with y ≤ z_{j,y_j} for every j ∈ S   (y = AND of its literals);
  - per cell with c < 0, u ∈ [0, 1] with u ≥ Σ_{j∈S} z_{j,y_j} − (k − 1)  (u = AND of its literals);
  - objective max Σ c·y + Σ c·u.
Values of an attribute that no cell mentions are interchangeable: they share one "other" binary,
and attributes no cell mentions are left out of the program; both are filled uniformly at random
(every such completion is a best response).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from pubpriv_core.queries import MarginalWorkload


def net_cell_weights(sampled: np.ndarray, num_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells and net weights c of a sample from Q ∪ ¬Q (ids ≥ ``num_queries`` are negations).

    Σ_{sampled q} q(x) = #negations + Σ_cells c·φ_cell(x); cells whose weight cancels are dropped.
    """
    sampled = np.asarray(sampled, dtype=np.int64)
    negated = sampled >= num_queries
    cells, inverse = np.unique(np.where(negated, sampled - num_queries, sampled),
                               return_inverse=True)
    weights = np.bincount(inverse, weights=np.where(negated, -1.0, 1.0), minlength=cells.size)
    keep = weights != 0
    return cells[keep], weights[keep]


def sampled_payoff(workload: MarginalWorkload, sampled: np.ndarray,
                   records: np.ndarray) -> np.ndarray:
    """Σ_{sampled q} q(x) for each row x of ``records``, straight from the definition of Q ∪ ¬Q."""
    sampled = np.asarray(sampled, dtype=np.int64)
    ids = workload.cell_ids(records)
    negated = sampled >= workload.num_queries
    cells = np.where(negated, sampled - workload.num_queries, sampled)
    hits = ids[:, workload.marginal_of(cells)] == cells          # (rows, s)
    return np.where(negated, ~hits, hits).sum(axis=1).astype(float)


class BestResponse:
    """Exact argmax_{x∈X} Σ_cells c·φ_cell(x) over the full domain of ``workload``."""

    def __init__(self, workload: MarginalWorkload):
        self.workload = workload
        self.shape = np.asarray(workload.domain.shape, dtype=np.int64)
        width = max(len(m) for m in workload.marginals)
        self._attrs = np.full((workload.num_marginals, width), -1, dtype=np.int64)
        self._strides = np.ones((workload.num_marginals, width), dtype=np.int64)
        self._sizes = np.ones((workload.num_marginals, width), dtype=np.int64)
        for w, (attrs, strides) in enumerate(zip(workload.marginals, workload.strides)):
            self._attrs[w, :len(attrs)] = attrs
            self._strides[w, :len(attrs)] = strides
            self._sizes[w, :len(attrs)] = self.shape[list(attrs)]

    def literals(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(attributes, values) of each cell, (len(cells), k_max) arrays padded with −1."""
        cells = np.asarray(cells, dtype=np.int64)
        w = self.workload.marginal_of(cells)
        local = (cells - self.workload.offsets[w])[:, None]
        attrs = self._attrs[w]
        values = np.where(attrs >= 0, local // self._strides[w] % self._sizes[w], -1)
        return attrs, values

    def solve(self, cells: np.ndarray, weights: np.ndarray,
              rng: np.random.Generator) -> np.ndarray:
        """A record x (int64, (d,)) maximising Σ weights·φ_cells(x); ``rng`` fills free values."""
        record = rng.integers(0, self.shape)
        if len(cells) == 0:
            return record
        program = _CellProgram(*self.literals(cells), np.asarray(weights, dtype=float), self.shape)
        chosen = program.solve()
        record[program.var_attr[chosen]] = program.var_value[chosen]
        for attr in program.var_attr[chosen[program.var_value[chosen] < 0]]:
            unmentioned = np.setdiff1d(np.arange(self.shape[attr]), program.mentioned(attr))
            record[attr] = rng.choice(unmentioned)
        return record


class _CellProgram:
    """The integer program of :class:`BestResponse` for one set of weighted cells.

    Variables: one binary per mentioned (attribute, value) pair, one "other" binary per attribute
    with unmentioned values (``var_value`` −1), then one continuous AND variable per cell.
    """

    def __init__(self, attrs: np.ndarray, values: np.ndarray, weights: np.ndarray,
                 shape: np.ndarray):
        mask = attrs >= 0
        lit_cell = np.nonzero(mask)[0]
        keys, lit_var = np.unique(attrs[mask] * int(shape.max()) + values[mask],
                                  return_inverse=True)
        pair_attr, pair_value = keys // int(shape.max()), keys % int(shape.max())
        touched, counts = np.unique(pair_attr, return_counts=True)
        other = touched[counts < shape[touched]]
        self.var_attr = np.concatenate([pair_attr, other])
        self.var_value = np.concatenate([pair_value, np.full(other.size, -1)])
        self.num_binary = self.var_attr.size
        self.weights = weights
        self.touched = touched
        self._lit = (lit_cell, lit_var, mask.sum(axis=1))

    def mentioned(self, attr: int) -> np.ndarray:
        """Values of ``attr`` that some cell names."""
        return self.var_value[(self.var_attr == attr) & (self.var_value >= 0)]

    def constraints(self) -> LinearConstraint:
        """One-hot rows, y ≤ z rows for positive cells, u ≥ Σz − (k−1) rows for negative cells."""
        lit_cell, lit_var, k = self._lit
        nb, nc = self.num_binary, self.weights.size
        onehot = sp.csr_matrix((np.ones(nb), (np.searchsorted(self.touched, self.var_attr),
                                              np.arange(nb))), shape=(self.touched.size, nb + nc))
        pos = self.weights[lit_cell] > 0
        rows = np.arange(pos.sum())
        upper = sp.csr_matrix((np.concatenate([np.ones(rows.size), -np.ones(rows.size)]),
                               (np.concatenate([rows, rows]),
                                np.concatenate([nb + lit_cell[pos], lit_var[pos]]))),
                              shape=(rows.size, nb + nc))
        neg_cells = np.flatnonzero(self.weights < 0)
        row_of = np.searchsorted(neg_cells, lit_cell[~pos])
        lower = sp.csr_matrix((np.concatenate([np.ones(row_of.size), -np.ones(neg_cells.size)]),
                               (np.concatenate([row_of, np.arange(neg_cells.size)]),
                                np.concatenate([lit_var[~pos], nb + neg_cells]))),
                              shape=(neg_cells.size, nb + nc))
        matrix = sp.vstack([onehot, upper, lower], format="csr")
        lb = np.concatenate([np.ones(self.touched.size), np.full(rows.size + neg_cells.size,
                                                                 -np.inf)])
        ub = np.concatenate([np.ones(self.touched.size), np.zeros(rows.size),
                             k[neg_cells] - 1.0])
        return LinearConstraint(matrix, lb, ub)

    def solve(self) -> np.ndarray:
        """Indices of the binaries set to 1 (one per touched attribute) at an optimum."""
        nb = self.num_binary
        cost = np.concatenate([np.zeros(nb), -self.weights])
        integrality = np.concatenate([np.ones(nb), np.zeros(self.weights.size)])
        result = milp(cost, integrality=integrality, bounds=Bounds(0.0, 1.0),
                      constraints=self.constraints(), options={"mip_rel_gap": 0.0})
        if result.status != 0:
            raise RuntimeError(f"HiGHS did not solve the best-response program ({result.message}); "
                               "report this with the sampled query ids")
        return np.flatnonzero(result.x[:nb] > 0.5)
