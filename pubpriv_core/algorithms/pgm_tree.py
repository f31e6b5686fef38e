"""Private-PGM's mirror descent on a junction tree, for domains too large for the joint table.

The parameters are ``mbi``'s: one log-potential θ_C per maximal measured clique C, and the
step θ_C ← θ_C − α·∇_{μ_C}L of :mod:`~pubpriv_core.algorithms.pgm_descent` (the same iterates
as ``mbi.estimation.MirrorDescent``). The marginals μ_C come from exact sum-product on the
junction tree ``mbi.junction_tree.make_junction_tree`` builds for the maximal cliques — the
tree whose size AIM's JT-SIZE measures — calibrated by the compiled kernels of
:mod:`~pubpriv_core.algorithms.pgm_calibrate` (one plan per tree, reused by every step, exact in
log space), so nothing is compiled per clique set.

A warm start adds each potential of the previous model onto a new maximal clique containing it
(the measured cliques of AIM, MST and JAM-PGM only grow), so the fit starts from the same
distribution.
"""
from __future__ import annotations

import functools

import networkx as nx
import numpy as np
from mbi import junction_tree

from pubpriv_core.algorithms import pgm_calibrate, pgm_descent, pgm_joint

Clique = tuple[str, ...]

# numpy's greedy contraction path with no cap on intermediates: its default cap (the largest
# operand) makes it fall back to one loop over every index of the subtree, 10³–10⁵× slower.
PAIRWISE = ("greedy", 2 ** 40)
PATHS_KEPT = 4096


@functools.lru_cache(maxsize=PATHS_KEPT)
def _path(signature: tuple) -> list:
    """``numpy.einsum_path``'s greedy path for operands of these (subscripts, shape)."""
    arguments = [x for subscripts, shape in signature[:-1]
                 for x in (np.broadcast_to(0.0, shape), list(subscripts))]
    return np.einsum_path(*arguments, list(signature[-1]), optimize=PAIRWISE)[0]


def _contraction(operands: list, output: list) -> list:
    """The contraction path for ``einsum(*operands, output)`` (the path only depends on the
    operands' subscripts and shapes, so queries of one shape share one search)."""
    signature = tuple((tuple(operands[i + 1]), operands[i].shape)
                      for i in range(0, len(operands), 2)) + (tuple(output),)
    return _path(signature)


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

    def project(self, attrs: Clique, table: np.ndarray, keep) -> tuple[Clique, np.ndarray]:
        """(kept attributes, Σ of ``table`` over the others)."""
        kept = tuple(a for a in attrs if a in keep)
        if len(kept) == len(attrs):
            return kept, table
        axes = list(range(len(attrs)))
        return kept, np.einsum(table, axes, [axes[attrs.index(a)] for a in kept])


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
        self.maximal = list(maximal)
        sizes = {a: domain[a] for a in domain.attributes}
        offsets = np.concatenate([[0], np.cumsum([domain.size(c) for c in maximal])])
        self.plan = pgm_calibrate.CalibrationPlan(sizes, self.cliques, self.parent,
                                                  self.preorder, self.children, self.separator,
                                                  self.hosts, self.maximal, offsets)

    def host(self, clique) -> int:
        """The smallest junction-tree clique containing ``clique`` (-1 if none does)."""
        inside = [k for k, c in enumerate(self.cliques) if set(clique) <= set(c)]
        return min(inside, key=lambda k: self.scope.domain.size(self.cliques[k]), default=-1)


class _Potentials:
    """θ, the concatenated log-potentials of the maximal measured cliques, as a
    :class:`~pubpriv_core.algorithms.pgm_descent.Iterate` whose marginals come from
    calibrating the junction tree."""

    def __init__(self, junction: _Junction, objective: pgm_descent.Objective,
                 theta: np.ndarray, total: float):
        self.junction, self.objective, self.total = junction, objective, total
        self.theta, self.candidate = theta, np.empty_like(theta)
        self.mu, self.mu_next = np.empty_like(theta), np.empty_like(theta)

    def tables(self, theta: np.ndarray) -> list[np.ndarray]:
        """θ split into one flat table per maximal clique (C order over the clique)."""
        offsets = self.objective.offsets
        return [theta[offsets[i]:offsets[i + 1]] for i in range(len(self.objective.maximal))]

    def propose(self, direction: np.ndarray, alpha: float) -> np.ndarray:
        np.multiply(direction, -alpha, out=self.candidate)
        self.candidate += self.theta
        return self.junction.plan.calibrate(self.candidate, self.total, self.mu_next)

    def accept(self) -> None:
        self.theta, self.candidate = self.candidate, self.theta
        self.mu, self.mu_next = self.mu_next, self.mu


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
        theta = np.concatenate([np.ravel(t) for t in potentials]) if potentials else np.zeros(0)
        self.beliefs = self.junction.plan.beliefs(theta.astype(float), self.total)
        self._conditionals: dict[tuple[int, int], np.ndarray] = {}
        self._reductions: dict[tuple, tuple[Clique, np.ndarray]] = {}

    def joint(self) -> pgm_joint.JointModel:
        """The same distribution on the joint table: log table Σ_C θ_C."""
        attributes = tuple(self.domain.attributes)
        log_table = np.zeros(self.domain.shape)
        for clique, table in self.potentials.items():
            log_table = log_table + self.junction.scope.expand(clique, table, attributes)
        return pgm_joint.JointModel(self.domain, self.cliques, log_table, self.total)

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
        component root's belief times every other clique's conditional b_K / b_S, each first
        summed over the attributes no other table and no query shares (:meth:`_reduced`, kept
        for the next query), then contracted by ``numpy.einsum`` (variable elimination in the
        order of its greedy path search, kept for the next query of the same shape:
        :func:`_contraction`). Beliefs are counts here: a cell whose count underflows carries
        no mass, and a conditional 0/0 is taken as 0."""
        scope, neighbours = self.junction.scope, self._pruned(query)
        tables, seen = [], set()
        for root in neighbours:
            if root in seen:
                continue
            order, parent = [root], {root: -1}
            for k in order:
                for j in sorted(neighbours[k] - parent.keys()):
                    parent[j] = k
                    order.append(j)
            seen.update(order)
            tables += [(k, parent[k]) for k in order]
        cliques = self.junction.cliques
        operands = []
        for k, p in tables:
            shared = set().union(query, *(cliques[j] for j, _ in tables if j != k))
            attrs, table = self._reduced(k, p, scope.canonical(set(cliques[k]) & shared))
            operands += [table, [scope.position[a] for a in attrs]]
        attrs = scope.canonical(query)
        output = [scope.position[a] for a in attrs]
        table = np.einsum(*operands, output, optimize=_contraction(operands, output))
        return attrs, table * (self.total / table.sum())

    def _reduced(self, k: int, p: int, kept: Clique) -> tuple[Clique, np.ndarray]:
        """Clique k's table (its belief as a fraction if p < 0, else its conditional given the
        separator with p) summed onto ``kept`` (cached)."""
        key = (k, p, kept)
        if key not in self._reductions:
            table = self.beliefs[k] / self.total if p < 0 else self._conditional(k, p)
            self._reductions[key] = self.junction.scope.project(self.junction.cliques[k],
                                                               table, kept)
        return self._reductions[key]

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
