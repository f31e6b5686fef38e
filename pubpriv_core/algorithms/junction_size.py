"""JT-SIZE of AIM (McKenna, Mullins, Sheldon & Miklau 2022, Alg. 2 line 13), exact and fast.

JT-SIZE(C) is the size, in MB of float64 tables, of the junction tree Private-PGM builds for the
clique set C: ``mbi.junction_tree.hypothetical_model_size``. AIM and JAM-PGM evaluate it for
C ∪ {r} for every candidate r in every round. This module returns the same float as ``mbi``,
computed on attribute bitsets in a numba kernel instead of ``mbi``'s networkx graphs:

* the interaction graph of C over all attributes (an edge per pair inside a clique);
* if that graph has edges and is a spanning tree, ``mbi`` eliminates in DFS post-order, which
  adds no fill-in: the maximal cliques are the edges;
* otherwise ``mbi``'s greedy order: repeatedly eliminate the attribute a of least cost, the
  first in domain order on ties, where the cost is the number of cells of a's closed
  neighbourhood; eliminating a joins its neighbours into one clique (``mbi`` costs an
  attribute in no clique 1, not its size: such an attribute has no neighbours, so the step at
  which it goes changes no other cost and no clique, and the junction tree is the same);
* the cliques of the triangulated graph are {a} ∪ (a's neighbours when eliminated); the maximal
  ones (not inside another) are the junction tree's nodes, and JT-SIZE = 8·Σ cells / 2²⁰.

Costs and cell counts are int64: the fast path runs when the bitsets fit (≤ 62 attributes) and
d·|X| < 2⁶² (so no product or sum overflows); any other domain calls ``mbi`` itself.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

if TYPE_CHECKING:   # mbi is imported by pgm, after the JAX settings it checks on import
    import mbi

INT64_SAFE = 2 ** 62
MAX_ATTRIBUTES = 62


@nb.njit(cache=True)
def _is_spanning_tree(adj: np.ndarray) -> bool:
    """The graph of neighbour bitsets ``adj`` has edges, d − 1 of them, and is connected."""
    d = adj.size
    degrees = 0
    for a in range(d):
        x = adj[a]
        while x:
            x &= x - 1
            degrees += 1
    if degrees == 0 or degrees != 2 * (d - 1):
        return False
    seen = np.int64(1)
    frontier = np.int64(1)
    while frontier:
        reach = np.int64(0)
        for a in range(d):
            if frontier >> a & 1:
                reach |= adj[a]
        frontier = reach & ~seen
        seen |= frontier
    return seen == (np.int64(1) << d) - 1


@nb.njit(cache=True)
def _cells(bits: np.int64, sizes: np.ndarray) -> np.int64:
    """Cells of the attribute set ``bits``: the product of its attributes' sizes."""
    total = np.int64(1)
    for a in range(sizes.size):
        if bits >> a & 1:
            total *= sizes[a]
    return total


@nb.njit(cache=True)
def _tree_cells(adj: np.ndarray, sizes: np.ndarray) -> np.int64:
    """Σ cells of the maximal cliques of the junction tree of the graph ``adj``."""
    d = sizes.size
    if _is_spanning_tree(adj):
        edges = np.int64(0)
        for a in range(d):
            for b in range(a + 1, d):
                if adj[a] >> b & 1:
                    edges += sizes[a] * sizes[b]
        return edges
    adj = adj.copy()
    cliques = np.zeros(d, dtype=np.int64)
    for _ in range(d):
        best, best_cost = -1, np.int64(0)
        for a in range(d):
            if cliques[a] != 0:
                continue
            cost = _cells(adj[a] | np.int64(1) << a, sizes)
            if best < 0 or cost < best_cost:
                best, best_cost = a, cost
        bit = np.int64(1) << best
        cliques[best] = adj[best] | bit
        for b in range(d):
            if adj[best] >> b & 1:
                adj[b] = (adj[b] | adj[best]) & ~(bit | np.int64(1) << b)
        adj[best] = 0
    cells = np.int64(0)
    for v in range(d):
        maximal = True
        for u in range(d):
            if u != v and cliques[v] & ~cliques[u] == 0:
                maximal = False
                break
        if maximal:
            cells += _cells(cliques[v], sizes)
    return cells


@nb.njit(cache=True)
def _cells_with_each(adj: np.ndarray, sizes: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Σ cells of the junction tree of the base graph plus each candidate clique (bitsets)."""
    out = np.empty(candidates.size, dtype=np.int64)
    for i in range(candidates.size):
        r = candidates[i]
        with_r = adj.copy()
        for a in range(sizes.size):
            if r >> a & 1:
                with_r[a] |= r & ~(np.int64(1) << a)
        out[i] = _tree_cells(with_r, sizes)
    return out


def bitset(domain: mbi.Domain, clique) -> int:
    """The attributes of ``clique`` as bits at their positions in ``domain``."""
    return _bitsets(domain, [clique])[0]


def _bitsets(domain: mbi.Domain, cliques) -> list[int]:
    position = {a: i for i, a in enumerate(domain.attributes)}
    return [sum(1 << position[a] for a in set(clique)) for clique in cliques]


def _graph(domain: mbi.Domain, cliques) -> np.ndarray:
    """Neighbour bitsets of the interaction graph of ``cliques``."""
    adj = np.zeros(len(domain.attributes), dtype=np.int64)
    position = {a: i for i, a in enumerate(domain.attributes)}
    for clique, bits in zip(cliques, _bitsets(domain, cliques)):
        for a in set(clique):
            adj[position[a]] |= bits & ~(1 << position[a])
    return adj


def _fast(domain: mbi.Domain) -> bool:
    d = len(domain.attributes)
    return d <= MAX_ATTRIBUTES and d * math.prod(int(n) for n in domain.shape) < INT64_SAFE


def sizes_with_each(domain: mbi.Domain, cliques, candidates) -> np.ndarray:
    """JT-SIZE(``cliques`` ∪ {r}) in MB for each r in ``candidates`` (AIM Alg. 2 line 13's size
    filter), each exactly ``mbi.junction_tree.hypothetical_model_size([*cliques, r])``."""
    cliques, candidates = list(cliques), list(candidates)
    if not _fast(domain):
        from mbi import junction_tree
        return np.array([junction_tree.hypothetical_model_size(domain, [*cliques, r])
                         for r in candidates], dtype=float)
    adj = _graph(domain, cliques)
    masks = np.array(_bitsets(domain, candidates), dtype=np.int64)
    sizes = np.array(domain.shape, dtype=np.int64)
    cells = _cells_with_each(adj, sizes, masks)
    return np.array([int(c) * 8 / 2 ** 20 for c in cells], dtype=float)


def model_size_mb(domain: mbi.Domain, cliques) -> float:
    """JT-SIZE(``cliques``) in MB, exactly ``mbi.junction_tree.hypothetical_model_size``."""
    return float(sizes_with_each(domain, cliques, [()])[0])


def inside_any(domain: mbi.Domain, cliques, candidates) -> np.ndarray:
    """For each candidate, whether it lies inside one of ``cliques`` (then JT-SIZE is
    unchanged by adding it)."""
    masks, bits = _bitsets(domain, cliques), _bitsets(domain, candidates)
    if len(domain.attributes) > MAX_ATTRIBUTES:     # beyond int64 bitsets
        return np.array([any(r & ~m == 0 for m in masks) for r in bits], dtype=bool)
    return _inside(np.array(masks, dtype=np.int64), np.array(bits, dtype=np.int64))


@nb.njit(cache=True)
def _inside(masks: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each candidate bitset, whether one of ``masks`` holds all its bits."""
    out = np.zeros(candidates.size, dtype=np.bool_)
    for i in range(candidates.size):
        for m in masks:
            if candidates[i] & ~m == 0:
                out[i] = True
                break
    return out


def within_limit(domain: mbi.Domain, cliques, candidates, limit_mb: float) -> np.ndarray:
    """AIM Alg. 2 line 13's filter: for each candidate r, whether it lies inside one of
    ``cliques`` or JT-SIZE(``cliques`` ∪ {r}) ≤ ``limit_mb`` (sizes only for the others)."""
    cliques, candidates = list(cliques), list(candidates)
    keep = inside_any(domain, cliques, candidates)
    outside = np.flatnonzero(~keep)
    keep[outside] = sizes_with_each(domain, cliques, [candidates[i] for i in outside]) <= limit_mb
    return keep
