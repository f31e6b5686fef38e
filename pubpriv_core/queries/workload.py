"""k-way marginal workloads (Liu et al. 2021, §2 and §5.1).

A k-way marginal query is φ_{S,y}(x) = 1[x_j = y_j for all j ∈ S] with |S| = k. One *marginal*
(attribute set S) contributes all Π_{j∈S}|X_j| cells; the paper's workload size W counts attribute
sets, drawn uniformly without replacement from the C(d, k) sets with a seed.

Queries are numbered globally: the cells of marginal w occupy ids ``offsets[w] .. offsets[w+1]−1``,
cell y of S = (j_1 < … < j_k) having local id Σ_i y_i · stride_i (C order over S).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from pubpriv_core.data.domain import Domain


def unrank_combination(rank: int, d: int, k: int) -> tuple[int, ...]:
    """The ``rank``-th k-subset of range(d) in lexicographic order (combinatorial number system)."""
    combo, start = [], 0
    for slots in range(k, 0, -1):
        for j in range(start, d):
            block = math.comb(d - j - 1, slots - 1)
            if rank < block:
                combo.append(j)
                start = j + 1
                break
            rank -= block
    return tuple(combo)


def choose_marginals(d: int, k: int, size: int | None, seed: int) -> list[tuple[int, ...]]:
    """All C(d, k) attribute sets (``size`` None) or ``size`` of them drawn without replacement."""
    if not 1 <= k <= d:
        raise ValueError(f"workload k={k} must lie in 1..{d} (the number of attributes); "
                         "choose a smaller k")
    total = math.comb(d, k)
    if size is None or size == total:
        ranks = range(total)
    elif 1 <= size < total:
        ranks = sorted(np.random.default_rng(seed).choice(total, size=size, replace=False).tolist())
    else:
        raise ValueError(f"workload size W={size} must lie in 1..C({d},{k})={total}; "
                         "use a smaller W or omit it for all marginals")
    return [unrank_combination(int(r), d, k) for r in ranks]


@dataclass(frozen=True)
class MarginalWorkload:
    """The cells of a list of marginals over ``domain``; never a dense |Q|×|X| matrix."""

    domain: Domain
    marginals: tuple[tuple[int, ...], ...]
    offsets: np.ndarray = field(init=False, repr=False)
    strides: tuple[np.ndarray, ...] = field(init=False, repr=False)

    def __post_init__(self):
        shape = np.asarray(self.domain.shape, dtype=np.int64)
        sizes = [int(np.prod(shape[list(m)])) for m in self.marginals]
        strides = tuple(_c_strides(shape[list(m)]) for m in self.marginals)
        object.__setattr__(self, "offsets", np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
        object.__setattr__(self, "strides", strides)
        if self.num_queries >= 2 ** 31:
            raise ValueError(f"workload has {self.num_queries} cells, more than 2^31; "
                             "use fewer or lower-order marginals")

    @classmethod
    def random(cls, domain: Domain, k: int, size: int | None = None, seed: int = 0):
        """W = ``size`` k-way marginals drawn with ``seed`` (all of them if ``size`` is None)."""
        return cls(domain, tuple(choose_marginals(len(domain), k, size, seed)))

    @property
    def num_marginals(self) -> int:
        return len(self.marginals)

    @property
    def num_queries(self) -> int:
        return int(self.offsets[-1])

    @property
    def marginal_sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def attribute_names(self, w: int) -> tuple[str, ...]:
        return tuple(self.domain.attributes[j] for j in self.marginals[w])

    def cell_ids(self, records: np.ndarray) -> np.ndarray:
        """(n, W) int32 global query ids of the cell each record falls in, one per marginal."""
        records = np.asarray(records)
        out = np.empty((records.shape[0], self.num_marginals), dtype=np.int32)
        for w, (attrs, stride) in enumerate(zip(self.marginals, self.strides)):
            out[:, w] = records[:, attrs].astype(np.int64) @ stride + self.offsets[w]
        return out

    @cached_property
    def singleton_plan(self):
        """The :class:`~pubpriv_core.queries.plan.MarginalPlan` with one table per marginal."""
        from pubpriv_core.queries.plan import MarginalPlan
        return MarginalPlan.build(self)

    def marginal_of(self, qids: np.ndarray | int) -> np.ndarray:
        """Index of the marginal each global query id belongs to."""
        return np.searchsorted(self.offsets, qids, side="right") - 1

    def decode(self, qid: int) -> dict[str, int]:
        """The cell {attribute: value} that query ``qid`` counts."""
        w = int(self.marginal_of(qid))
        local = int(qid - self.offsets[w])
        values = []
        for s in self.strides[w]:
            values.append(local // int(s))
            local %= int(s)
        return dict(zip(self.attribute_names(w), values))

    def indicator(self, qid: int, records: np.ndarray) -> np.ndarray:
        """Boolean φ_q(x) for each row of ``records`` (no |Q|×|X| matrix)."""
        w = int(self.marginal_of(qid))
        cols = np.asarray(records)[:, self.marginals[w]].astype(np.int64)
        return cols @ self.strides[w] == qid - self.offsets[w]

    def describe(self) -> str:
        k = sorted({len(m) for m in self.marginals})
        return f"{self.num_marginals} marginals (k={k}), {self.num_queries} queries"


def _c_strides(sizes: np.ndarray) -> np.ndarray:
    """C-order strides for a block of the given sizes."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)


def marginal_workload(domain: Domain, k: int, size: int | None = None, seed: int = 0):
    """Shorthand for :meth:`MarginalWorkload.random`."""
    return MarginalWorkload.random(domain, k, size, seed)

