"""Marginal queries over the whole domain X = X_1 × … × X_d (MWEM's support), by a reduction tree.

A distribution u over X is a tensor of shape (|X_1|, …, |X_d|) (C order). The answers of marginal S
are u summed over the attributes outside S, so all W marginals can share partial sums: summing out
attribute a once serves every marginal without a,

    M_S(u) = M_S(Σ_{x_a} u)   for a ∉ S,

and the tree below applies that recursively — at each node it sums out the largest attribute that
some remaining marginals do not need (for them), and keeps it (for the others). Where the cost
model says so, a node's marginals are instead read off its tensor by one sparse 0/1 product (a
leaf). On the NIST reduced domain (|X| = 97,200, all 84 3-way marginals) this takes ≈ 0.7 ms,
against ≈ 14 ms for an |X|·W-non-zero incidence product (``scripts/bench.py release`` times it
against :class:`~pubpriv_core.queries.engine.SupportAnswerer` on all |X| records). Rows of X
are numbered in C order, as by :func:`full_domain_records`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pubpriv_core.queries.workload import MarginalWorkload

#: see DomainAnswerer.incremental_limit
INCREMENTAL_FRACTION = 64

# Cost model of the plan, in seconds, measured on this project's 2-core machine (numpy 2, scipy
# CSR). Summing an axis of k values whose inner runs have length r (the product of the later axis
# sizes) costs per cell, by method and r: numpy's reduce ≈ 0.6 ns for r ≥ 128 but 1.5 ns for
# r ≥ 32, 4 ns for r ≥ 16 and 10 ns below; a dense product with a (k·r, r) 0/1 matrix ≈ 1 ns for
# 2 ≤ r < 32 (2 ns at r = 1); k slice additions ≈ 0.9 ns for r = 1 or r ≥ 32 (3 ns otherwise) plus
# a call each. A sparse product costs ≈ 1.4 ns per non-zero, and every numpy call ≈ 5 µs in the
# loop — what stops the tree from going all the way down.
_CALL_S = 5e-6
_SLICE_CALL_S = 1.5e-6
_NONZERO_S = 1.4e-9
SUM_METHODS = ("reduce", "product", "slices")


def _cell_seconds(method: str, inner: int) -> float:
    """Seconds per cell of summing an axis whose inner runs have length ``inner``."""
    if method == "reduce":
        return 0.6e-9 if inner >= 128 else 1.5e-9 if inner >= 32 else 4e-9 if inner >= 16 else 10e-9
    if method == "product":
        return 1e-9 if 2 <= inner < 32 else 2e-9 if inner == 1 else math.inf
    return 0.9e-9 if inner == 1 or inner >= 32 else 3e-9


def full_domain_records(shape: tuple[int, ...]) -> np.ndarray:
    """Every element of X = X_1 × … × X_d as rows of codes, in C order (for MWEM)."""
    grids = np.indices(shape, dtype=np.int16 if max(shape) < 2 ** 15 else np.int64)
    return grids.reshape(len(shape), -1).T


@dataclass(frozen=True)
class AxisSum:
    """slots[target] = slots[source] summed over ``axis``, by the cheapest method for its shape."""

    source: int
    target: int
    shape: tuple[int, ...]
    axis: int
    method: str = field(init=False)
    cost: float = field(init=False)

    def __post_init__(self):
        costs = {method: self.seconds(method) for method in SUM_METHODS}
        method = min(costs, key=costs.get)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "cost", costs[method])

    @property
    def inner(self) -> int:
        return math.prod(self.shape[self.axis + 1:])

    def seconds(self, method: str) -> float:
        """Estimated cost of this sum by ``method`` (cost model above)."""
        calls = self.shape[self.axis] if method == "slices" else 1
        return (_CALL_S + (calls - 1) * _SLICE_CALL_S
                + math.prod(self.shape) * _cell_seconds(method, self.inner))

    def summing_matrix(self) -> np.ndarray:
        """(k·inner, inner) 0/1 matrix adding the k blocks of a row (the "product" method)."""
        return np.tile(np.eye(self.inner), (self.shape[self.axis], 1))

    def apply(self, tensor: np.ndarray, method: str | None = None,
              summing: np.ndarray | None = None) -> np.ndarray:
        """``tensor.sum(axis)`` by ``method`` (default: the planned one); ``summing`` caches
        :meth:`summing_matrix` for the product method."""
        method = method or self.method
        if method == "reduce":
            return np.add.reduce(tensor, axis=self.axis)
        if method == "product":
            summing = self.summing_matrix() if summing is None else summing
            out_shape = self.shape[:self.axis] + self.shape[self.axis + 1:]
            return (tensor.reshape(-1, summing.shape[0]) @ summing).reshape(out_shape)
        index = [slice(None)] * tensor.ndim
        index[self.axis] = 0
        out = tensor[tuple(index)].copy()
        for value in range(1, tensor.shape[self.axis]):
            index[self.axis] = value
            out += tensor[tuple(index)]
        return out


class MarginalTree:
    """A fixed plan of axis sums and leaf products giving every marginal of a workload.

    The plan is chosen by dynamic programming over the cost model above: at each node, either the
    node's marginals are read off its tensor by a sparse product (a leaf), or the largest
    attribute some marginal of the node does not contain is summed out for those marginals and
    kept for the others (each branch planned the same way).
    """

    def __init__(self, workload: MarginalWorkload):
        self.shape = tuple(workload.domain.shape)
        self.num_queries = workload.num_queries
        self.steps: list[AxisSum] = []
        self._leaves: list[tuple[int, tuple[int, ...], list[int]]] = []
        self._slots = 1
        marginals = [(w, frozenset(m)) for w, m in enumerate(workload.marginals)]
        axes = tuple(range(len(self.shape)))
        _, node = self._plan(axes, frozenset(), marginals)
        self._emit(node, 0, axes)
        self._summing = {step.target: step.summing_matrix() for step in self.steps
                         if step.method == "product"}
        self.leaf_slots = [slot for slot, _, _ in self._leaves]
        self.matrix = self._leaf_matrix(workload)

    def _plan(self, axes: tuple[int, ...], kept: frozenset, marginals: list) -> tuple[float, tuple]:
        """(estimated seconds, plan node) for the marginals (w, attribute set) of a tensor."""
        size = math.prod(self.shape[a] for a in axes)
        leaf = (_CALL_S + size * (1 + len(marginals)) * _NONZERO_S,
                ("leaf", [w for w, _ in marginals]))
        free = [a for a in axes if a not in kept]
        if not free:
            return leaf
        drop = max(free, key=lambda a: (self.shape[a], -a))
        without = [(w, m) for w, m in marginals if drop not in m]
        within = [(w, m) for w, m in marginals if drop in m]
        cost, children = 0.0, [None, None]
        if without:
            step = AxisSum(0, 0, tuple(self.shape[a] for a in axes), axes.index(drop))
            child_cost, children[0] = self._plan(tuple(a for a in axes if a != drop), kept,
                                                 without)
            cost += step.cost + child_cost
        if within:
            child_cost, children[1] = self._plan(axes, kept | {drop}, within)
            cost += child_cost
        return min(leaf, (cost, ("split", drop, *children)), key=lambda option: option[0])

    def _emit(self, node: tuple, slot: int, axes: tuple[int, ...]) -> None:
        """Append the steps and leaves of a plan node whose tensor is in ``slot``."""
        if node[0] == "leaf":
            self._leaves.append((slot, axes, node[1]))
            return
        _, drop, summed, kept = node
        if summed is not None:
            target = self._slots
            self._slots += 1
            self.steps.append(AxisSum(slot, target, tuple(self.shape[a] for a in axes),
                                      axes.index(drop)))
            self._emit(summed, target, tuple(a for a in axes if a != drop))
        if kept is not None:
            self._emit(kept, slot, axes)

    def _leaf_matrix(self, workload: MarginalWorkload) -> sp.csr_matrix:
        """0/1 matrix from the concatenated leaf tensors to the global query ids."""
        rows, cols, offset = [], [], 0
        for _, axes, ws in self._leaves:
            codes = np.indices([self.shape[a] for a in axes]).reshape(len(axes), -1)
            cells = np.arange(offset, offset + codes.shape[1])
            for w in ws:
                position = [axes.index(a) for a in workload.marginals[w]]
                rows.append(workload.strides[w] @ codes[position] + workload.offsets[w])
                cols.append(cells)
            offset += codes.shape[1]
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(self.num_queries, offset))

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        """Σ_x weights[x]·q(x) for every query of the workload (global order)."""
        slots = [None] * self._slots
        slots[0] = np.asarray(weights, dtype=float).reshape(self.shape)
        for step in self.steps:
            slots[step.target] = step.apply(slots[step.source],
                                            summing=self._summing.get(step.target))
        return self.matrix @ np.concatenate([slots[s].ravel() for s in self.leaf_slots])

class DomainAnswerer:
    """Answers queries on weight vectors over all of X (C order), the interface of
    :class:`~pubpriv_core.queries.engine.SupportAnswerer` without its |X|·W tables.

    ``answer`` runs the :class:`MarginalTree`; the rows of a query are a slab of the domain tensor,
    addressed by a basic index (a view, no index array) on ``grid(u)``; ``cell_ids`` is computed
    from the C-order strides. Every query is present on X, so ``queries`` is None.
    """

    queries = None
    selects_views = True     # ``grid(u)[selector(q)]`` is a view of u

    def __init__(self, workload: MarginalWorkload):
        self.workload = workload
        self.shape = tuple(workload.domain.shape)
        self.size = math.prod(self.shape)
        self.num_queries = workload.num_queries
        self.tree = MarginalTree(workload)
        # an incremental update scatters |rows|·W cell ids computed on the fly; past
        # |X|/INCREMENTAL_FRACTION touched rows one tree pass is cheaper (measured, NIST reduced)
        self.incremental_limit = self.size // INCREMENTAL_FRACTION

    def answer(self, weights: np.ndarray) -> np.ndarray:
        return self.tree(weights)

    def expand(self, answers: np.ndarray) -> np.ndarray:
        return answers

    def grid(self, weights: np.ndarray) -> np.ndarray:
        """The weights as a domain tensor (a view), the array :meth:`selector` indexes."""
        return weights.reshape(self.shape)

    def selector(self, qid: int) -> tuple:
        """Basic index of the slab {x ∈ X : q(x) = 1} of ``grid(u)``."""
        index: list = [slice(None)] * len(self.shape)
        for attribute, value in zip(self.workload.marginals[int(self.workload.marginal_of(qid))],
                                    self.workload.decode(qid).values()):
            index[attribute] = value
        return tuple(index)

    def cell_ids(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), W) query ids of the given elements of X (C-order indices)."""
        records = np.column_stack(np.unravel_index(np.asarray(rows), self.shape))
        return self.workload.cell_ids(records)

    def add_changes(self, y: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
        """y += Σ_i values[i]·q(rows[i]) for every query (rows ascending), in place."""
        ids = self.cell_ids(rows)
        y += np.bincount(ids.ravel(), np.repeat(values, ids.shape[1]), minlength=y.size)

    def present_queries(self) -> np.ndarray:
        return np.arange(self.num_queries)
