"""Private-PGM's mirror descent on a junction tree in NumPy, for domains too large for the table.

The parameters are ``mbi``'s: one log-potential θ_C per maximal measured clique C, and the
step θ_C ← θ_C − α·∇_{μ_C}L of :mod:`~pubpriv_core.algorithms.pgm_descent` (the same iterates
as ``mbi.estimation.MirrorDescent``). The marginals μ_C come from exact sum-product on the
junction tree ``mbi.junction_tree.make_junction_tree`` builds for the maximal cliques — the
tree whose size AIM's JT-SIZE measures — with messages in log space (Koller & Friedman 2009,
§10.2–10.3: an upward pass collects ψ_K + Σ incoming messages, a downward pass sends
log b_K(S) − m_{J→K}(S)), so nothing is compiled per clique set. Log space matters: noise-free
public measurements with empty cells drive potentials far below exp's range.

A warm start adds each potential of the previous model onto a new maximal clique containing it
(the measured cliques of AIM, MST and JAM-PGM only grow), so the fit starts from the same
distribution.
"""
from __future__ import annotations

import math

import networkx as nx
import numba
import numpy as np
from mbi import junction_tree

from pubpriv_core.algorithms import pgm_descent

Clique = tuple[str, ...]


# numpy's greedy contraction path with no cap on intermediates: its default cap (the largest
# operand) makes it fall back to one loop over every index of the subtree, 10³–10⁵× slower.
PAIRWISE = ("greedy", 2 ** 40)


class _Scope:
    """Tables with named axes: a table over ``attrs`` broadcasts into any scope holding them,
    and junction-tree cliques keep the domain's attribute order."""

    def __init__(self, domain):
        self.domain = domain
        self.position = {a: i for i, a in enumerate(domain.attributes)}

    def canonical(self, attributes) -> Clique:
        return tuple(sorted(set(attributes), key=self.position.__getitem__))

    def shape(self, attrs) -> list[int]:
        return [self.domain[a] for a in attrs]

    def expand(self, attrs: Clique, table: np.ndarray, scope: Clique) -> np.ndarray:
        """``table`` over ``attrs`` ⊆ ``scope`` as a view that broadcasts into ``scope``."""
        order = sorted(range(len(attrs)), key=lambda i: scope.index(attrs[i]))
        return np.transpose(table, order).reshape(
            [self.domain[a] if a in attrs else 1 for a in scope])

    def cell_map(self, clique: Clique, sub: Clique) -> np.ndarray:
        """For every cell of ``clique`` (C order), its flat cell in ``sub`` ⊆ ``clique``
        (C order over ``sub``'s own attribute order)."""
        strides = np.cumprod([1] + self.shape(sub[::-1]))[:-1][::-1]
        index = np.zeros(self.shape(clique), dtype=np.int32)
        for a, stride in zip(sub, strides):
            index += self.expand((a,), np.arange(self.domain[a], dtype=np.int32) * stride,
                                 clique)
        return index.ravel()

    def project(self, attrs: Clique, table: np.ndarray, keep) -> tuple[Clique, np.ndarray]:
        """(kept attributes, Σ of ``table`` over the others)."""
        kept = tuple(a for a in attrs if a in keep)
        if len(kept) == len(attrs):
            return kept, table
        axes = list(range(len(attrs)))
        return kept, np.einsum(table, axes, [axes[attrs.index(a)] for a in kept])


@numba.njit(cache=True)
def _upward(index, offsets, gather, source, out_column, weights, top, sums):  # pragma: no cover
    """weights = exp(logs − top), logs the sum of the gathered log tables on every cell and top
    their max on every cell of ``out_column`` (one max over all cells if it is < 0);
    sums = weights summed onto ``out_column``'s cells."""
    for i in range(index.shape[0]):
        value = 0.0
        for c in gather:
            value += source[offsets[c] + index[i, c]]
        weights[i] = value
        s = index[i, out_column] if out_column >= 0 else 0
        top[s] = max(top[s], value)
    for i in range(index.shape[0]):
        s = index[i, out_column] if out_column >= 0 else 0
        weight = math.exp(weights[i] - top[s])
        weights[i] = weight
        sums[s] += weight


@numba.njit(cache=True)
def _downward(index, offsets, in_column, scale, weights, scatter, sums):  # pragma: no cover
    """weights ×= scale on ``in_column``'s cells (if ≥ 0); sums (concatenated per column) +=
    weights on every column of ``scatter``. Returns Σ weights."""
    total = 0.0
    for i in range(index.shape[0]):
        weight = weights[i]
        if in_column >= 0:
            weight *= scale[index[i, in_column]]
            weights[i] = weight
        total += weight
        for c in scatter:
            sums[offsets[c] + index[i, c]] += weight
    return total


class _Clique:
    """One junction-tree clique's columns: the maximal measured cliques it hosts, the
    separators towards its children and towards its parent, each with the cell map from the
    clique's cells (``index``) and its offset in the concatenated column vectors."""

    def __init__(self, scope: _Scope, attrs: Clique, hosted: list[int], maximal: list[Clique],
                 children: list[int], separators: list[Clique], k: int, parent: int):
        self.attrs, self.hosted, self.children = attrs, hosted, children
        columns = ([maximal[i] for i in hosted] + [separators[j] for j in children]
                   + ([separators[k]] if parent >= 0 else []))
        sizes = [scope.domain.size(c) for c in columns]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        narrow = max(sizes, default=1) <= 2 ** 16   # half the memory traffic per cell
        self.index = np.empty((scope.domain.size(attrs), len(columns)),
                              dtype=np.uint16 if narrow else np.int32)
        for c, column in enumerate(columns):
            self.index[:, c] = scope.cell_map(attrs, column)
        self.parent_column = len(columns) - 1 if parent >= 0 else -1
        self.gather = np.arange(len(hosted) + len(children), dtype=np.int64)
        self.weights = np.empty(len(self.index))

    def column(self, vector: np.ndarray, c: int) -> np.ndarray:
        return vector[self.offsets[c]:self.offsets[c + 1]]


class _Junction:
    """The junction tree (a forest when the cliques fall apart) that ``mbi`` builds for a set
    of maximal cliques, rooted per component, and the clique each potential lives on."""

    def __init__(self, domain, maximal: list[Clique]):
        self.scope = _Scope(domain)
        tree, _ = junction_tree.make_junction_tree(domain, maximal)
        self.cliques = [tuple(c) for c in junction_tree.maximal_cliques(tree)]
        number = {c: k for k, c in enumerate(self.cliques)}
        self.parent = [-1] * len(self.cliques)
        for child, parent in nx.dfs_predecessors(tree).items():
            self.parent[number[tuple(child)]] = number[tuple(parent)]
        self.preorder = [number[tuple(c)] for c in nx.dfs_preorder_nodes(tree)]
        self.children: list[list[int]] = [[] for _ in self.cliques]
        for k in self.preorder:
            if self.parent[k] >= 0:
                self.children[self.parent[k]].append(k)
        self.separator = [self.scope.canonical(set(c) & set(self.cliques[p])) if p >= 0 else ()
                          for c, p in zip(self.cliques, self.parent)]
        self.hosts = [self.host(c) for c in maximal]
        self.layout = [_Clique(self.scope, c, [i for i, h in enumerate(self.hosts) if h == k],
                               maximal, self.children[k], self.separator, k, self.parent[k])
                       for k, c in enumerate(self.cliques)]

    def host(self, clique) -> int:
        """The smallest junction-tree clique containing ``clique`` (-1 if none does)."""
        inside = [k for k, c in enumerate(self.cliques) if set(clique) <= set(c)]
        return min(inside, key=lambda k: self.scope.domain.size(self.cliques[k]), default=-1)

    def calibrate(self, tables: list[np.ndarray], total: float):
        """Sum-product in log space from the log-potentials of the maximal cliques (flat, in
        their order). Upward, m_{K→P} = log Σ_{K∖S} exp(ψ_K + Σ_J m_{J→K}), exponentiated
        after subtracting the max of each separator cell, so no slice underflows; downward,
        b_K is the upward table rescaled per separator cell by exp(m_{P→K}), and
        m_{K→J} = log b_K(S) − m_{J→K} (a separator cell whose belief underflows has no mass:
        −∞). Returns the marginals (counts summing to ``total``) of the maximal cliques and,
        per junction-tree clique, its weights ∝ b_K (buffers reused by the next call) and
        their sum."""
        up, down, upward_sums, tops = {}, {}, {}, {}
        for k in reversed(self.preorder):
            layout, parent = self.layout[k], self.parent[k]
            source = np.empty(int(layout.offsets[-1]))
            for c, i in enumerate(layout.hosted):
                layout.column(source, c)[:] = tables[i]
            for c, j in enumerate(layout.children, len(layout.hosted)):
                layout.column(source, c)[:] = up[j]
            cells = layout.column(source, layout.parent_column).size if parent >= 0 else 1
            tops[k], upward_sums[k] = np.full(cells, -np.inf), np.zeros(cells)
            _upward(layout.index, layout.offsets, layout.gather, source, layout.parent_column,
                    layout.weights, tops[k], upward_sums[k])
            if parent >= 0:
                up[k] = np.log(upward_sums[k]) + tops[k]
        marginals, mass = [None] * len(self.hosts), [0.0] * len(self.cliques)
        for k in self.preorder:
            layout, parent, scale, shift = self.layout[k], self.parent[k], np.ones(1), tops[k][0]
            if parent >= 0:
                log_mass = np.log(upward_sums[k]) + tops[k] + down[k]
                shift = log_mass.max()
                scale = np.exp(tops[k] + down[k] - shift)
            sums = np.zeros(int(layout.offsets[-1]))
            scatter = np.arange(layout.parent_column if parent >= 0 else layout.index.shape[1])
            mass[k] = _downward(layout.index, layout.offsets, layout.parent_column, scale,
                                layout.weights, scatter, sums)
            for c, i in enumerate(layout.hosted):
                marginals[i] = layout.column(sums, c) * (total / mass[k])
            with np.errstate(divide="ignore"):
                for c, j in enumerate(layout.children, len(layout.hosted)):
                    down[j] = np.log(layout.column(sums, c)) + shift - up[j]
        return marginals, [layout.weights for layout in self.layout], mass


class _Potentials:
    """θ, the concatenated log-potentials of the maximal measured cliques, as a
    :class:`~pubpriv_core.algorithms.pgm_descent.Iterate` whose marginals come from
    calibrating the junction tree."""

    def __init__(self, junction: _Junction, objective: pgm_descent.Objective,
                 theta: np.ndarray, total: float):
        self.junction, self.objective, self.total = junction, objective, total
        self.theta = self.candidate = theta

    def tables(self, theta: np.ndarray) -> list[np.ndarray]:
        """θ split into one flat table per maximal clique (C order over the clique)."""
        offsets = self.objective.offsets
        return [theta[offsets[i]:offsets[i + 1]] for i in range(len(self.objective.maximal))]

    def propose(self, direction: np.ndarray, alpha: float) -> np.ndarray:
        self.candidate = self.theta - alpha * direction
        marginals, _, _ = self.junction.calibrate(self.tables(self.candidate), self.total)
        return np.concatenate(marginals)

    def accept(self) -> None:
        self.theta = self.candidate


class TreeModel:
    """A fitted model: the potentials θ_C on the maximal measured cliques ``cliques``, the total
    it sums to, and its calibrated junction tree (beliefs in counts per junction-tree clique).
    """

    def __init__(self, domain, cliques: list[Clique], potentials: list[np.ndarray],
                 total: float, junction: _Junction | None = None):
        self.domain = domain
        self.cliques = list(cliques)
        self.potentials = {c: np.reshape(t, domain.project(c).shape)
                           for c, t in zip(self.cliques, potentials)}
        self.total = float(total)
        self.junction = junction or _Junction(domain, self.cliques)
        _, weights, mass = self.junction.calibrate([t.ravel() for t in potentials], self.total)
        scope = self.junction.scope
        self.beliefs = [(w * (self.total / m)).reshape(scope.shape(c))
                        for w, m, c in zip(weights, mass, self.junction.cliques)]
        self._conditionals: dict[tuple[int, int], np.ndarray] = {}

    def marginal(self, clique) -> np.ndarray:
        """The model's counts on ``clique`` (axes in ``clique``'s order): a sum of the belief
        of the smallest junction-tree clique containing it, or else exact elimination on the
        smallest subtree covering it (:meth:`_outside`)."""
        k = self.junction.host(clique)
        if k >= 0:
            attrs, table = self.junction.scope.project(self.junction.cliques[k],
                                                       self.beliefs[k], clique)
        else:
            attrs, table = self._outside(set(clique))
        return np.transpose(table, [attrs.index(a) for a in clique])

    def _outside(self, query: set) -> tuple[Clique, np.ndarray]:
        """Counts on ``query`` from the subtree left when leaves adding no query attribute
        beyond their separator are pruned: there p = Π_K b_K / Π_S b_S, written as each
        component root's belief times every other clique's conditional b_K / b_S, and summed
        over the other attributes by ``numpy.einsum`` (variable elimination in the order its
        greedy path search picks). Beliefs are counts here: a cell whose count underflows
        carries no mass, and a conditional 0/0 is taken as 0."""
        scope, neighbours = self.junction.scope, self._pruned(query)
        operands, seen = [], set()
        for root in neighbours:
            if root in seen:
                continue
            order, parent = [root], {root: -1}
            for k in order:
                for j in sorted(neighbours[k] - parent.keys()):
                    parent[j] = k
                    order.append(j)
            seen.update(order)
            for k in order:
                table = (self.beliefs[k] / self.total if parent[k] < 0
                         else self._conditional(k, parent[k]))
                operands += [table, [scope.position[a] for a in self.junction.cliques[k]]]
        attrs = scope.canonical(query)
        table = np.einsum(*operands, [scope.position[a] for a in attrs], optimize=PAIRWISE)
        return attrs, table * (self.total / table.sum())

    def _conditional(self, k: int, p: int) -> np.ndarray:
        """b_K / b_S on clique k's cells, S its separator with neighbour p (cached)."""
        if (k, p) not in self._conditionals:
            attrs, scope = self.junction.cliques[k], self.junction.scope
            sep, table = scope.project(attrs, self.beliefs[k], set(self.junction.cliques[p]))
            table = scope.expand(sep, table, attrs)
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = np.where(table > 0, self.beliefs[k] / table, 0.0)
            self._conditionals[(k, p)] = ratio
        return self._conditionals[(k, p)]

    def _pruned(self, query: set) -> dict[int, set[int]]:
        """Adjacency of the junction forest after removing, while any is left, a leaf whose
        query attributes all lie in its neighbour (or an isolated clique holding none)."""
        junction = self.junction
        neighbours = {k: set(junction.children[k]) for k in range(len(junction.cliques))}
        for k, p in enumerate(junction.parent):
            if p >= 0:
                neighbours[k].add(p)
        removable = True
        while removable:
            removable = False
            for k in list(neighbours):
                own, near = query & set(junction.cliques[k]), neighbours[k]
                if len(near) > 1 or (near and not own <= set(junction.cliques[min(near)])) \
                        or (own and not near):
                    continue
                for j in near:
                    neighbours[j].discard(k)
                del neighbours[k]
                removable = True
        return neighbours


def _warm_theta(objective: pgm_descent.Objective, scope: _Scope,
                warm_start: TreeModel | None) -> np.ndarray:
    """θ for the new maximal cliques: zero, plus each previous potential added onto the first
    new maximal clique containing it."""
    theta = np.zeros(objective.cells)
    if warm_start is None:
        return theta
    offsets = objective.offsets
    for old, table in warm_start.potentials.items():
        i = next((i for i, c in enumerate(objective.maximal) if set(old) <= set(c)), None)
        if i is None:
            raise ValueError(f"cannot warm-start: the previous model's clique {old} lies in no "
                             "measured clique; fit without warm_start")
        clique = objective.maximal[i]
        target = theta[offsets[i]:offsets[i + 1]].reshape(scope.domain.project(clique).shape)
        target += scope.expand(old, table, clique)
    return theta


def fit(domain, measurements: list, total: float | None, iters: int,
        warm_start: TreeModel | None = None) -> TreeModel:
    """Private-PGM estimate by mirror descent on the junction tree (module docstring);
    ``measurements`` are ``mbi.LinearMeasurement`` of identity queries, ``total`` None means
    ``mbi``'s minimum-variance unbiased total."""
    total = pgm_descent.total_of(measurements, total)
    objective = pgm_descent.Objective(domain, measurements)
    junction = _Junction(domain, objective.maximal)
    potentials = _Potentials(junction, objective,
                             _warm_theta(objective, junction.scope, warm_start), total)
    pgm_descent.descend(objective, potentials, total, iters)
    return TreeModel(domain, objective.maximal, potentials.tables(potentials.theta), total,
                     junction)
