"""Private-PGM's mirror descent on the full joint table, for domains of a few million cells.

Private-PGM (McKenna, Sheldon & Miklau 2019, Alg. 1) minimises
L(μ) = Σ_r ½‖(μ_r − y_r)/σ_r‖² over the marginals μ of p = n·softmax(θ), θ = Σ_C θ_C with one
log-potential θ_C per maximal measured clique C, by the mirror-descent step
θ_C ← θ_C − α·∇_{μ_C}L. Broadcast to the joint domain X that step is θ ← θ − α·Σ_C ∇_{μ_C}L,
so when |X| is small the iteration can run on the table θ itself: every μ_C is a sum of p, and
no program has to be compiled for a new clique set (``mbi`` compiles one per set).

The iterates are ``mbi.estimation.MirrorDescent``'s (the loop of
:mod:`~pubpriv_core.algorithms.pgm_descent`), the total n given or ``mbi``'s minimum-variance
estimate from the measurements, and the warm start the previous model's θ. Only floating-point
rounding differs.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pubpriv_core.algorithms import pgm_descent

Clique = tuple[str, ...]


class JointModel:
    """A fitted model held as its joint log-potential table θ (shape of the domain).

    ``cliques`` are the maximal measured cliques θ's potentials live on (their junction-tree
    size is the model size); ``total`` is the count the model sums to.
    """

    def __init__(self, domain, cliques: list[Clique], log_table: np.ndarray, total: float):
        self.domain = domain
        self.cliques = list(cliques)
        self.log_table = log_table
        self.total = float(total)

    def counts(self) -> np.ndarray:
        """p = total·softmax(θ) on every cell of the domain."""
        weights = np.exp(self.log_table - self.log_table.max())
        return weights * (self.total / weights.sum())

    def marginal(self, clique: Clique, counts: np.ndarray | None = None) -> np.ndarray:
        """The model's counts on ``clique`` (axes in ``clique``'s order), a sum of the table."""
        table = self.counts() if counts is None else counts
        attributes = list(self.domain.attributes)
        hidden = tuple(i for i, a in enumerate(attributes) if a not in clique)
        kept = [a for a in attributes if a in clique]
        return np.transpose(table.sum(axis=hidden), [kept.index(a) for a in clique])


class _Table:
    """The joint table θ as an :class:`~pubpriv_core.algorithms.pgm_descent.Iterate`: the cell
    of each maximal clique for every cell of X (``index``, one row per cell, offsets into the
    concatenated marginals), and buffers for θ, θ' and their marginals."""

    def __init__(self, domain, objective: pgm_descent.Objective, theta: np.ndarray,
                 total: float):
        attributes = list(domain.attributes)
        cells = np.indices(domain.shape).reshape(len(attributes), -1)
        self.index = np.empty((cells.shape[1], len(objective.maximal)), dtype=np.int32)
        for k, clique in enumerate(objective.maximal):
            axes = [attributes.index(a) for a in clique]
            self.index[:, k] = np.ravel_multi_index(cells[axes], domain.project(clique).shape)
        self.offsets, self.total = objective.offsets, total
        self.theta, self.candidate = theta, np.empty_like(theta)
        self.mu, self.mu_next = np.empty(objective.cells), np.empty(objective.cells)

    def propose(self, direction: np.ndarray, alpha: float) -> np.ndarray:
        _step_table(self.theta, direction, alpha, self.index, self.offsets, self.total,
                    self.candidate, self.mu_next)
        return self.mu_next

    def accept(self) -> None:
        self.theta, self.candidate = self.candidate, self.theta
        self.mu, self.mu_next = self.mu_next, self.mu


@numba.njit(cache=True)
def _step_table(theta, direction, alpha, index, offsets, total, out, mu):  # pragma: no cover
    """out = θ − α·(direction gathered to every cell); mu = marginals of total·softmax(out)
    on every maximal clique (concatenated)."""
    cells, cliques = index.shape
    top = -np.inf
    for i in range(cells):
        value = theta[i]
        for k in range(cliques):
            value -= alpha * direction[offsets[k] + index[i, k]]
        out[i] = value
        top = max(top, value)
    mu[:] = 0.0
    norm = 0.0
    for i in range(cells):
        weight = math.exp(out[i] - top)
        norm += weight
        for k in range(cliques):
            mu[offsets[k] + index[i, k]] += weight
    mu *= total / norm


def fit(domain, measurements: list, total: float | None, iters: int,
        warm_start: JointModel | None = None) -> JointModel:
    """Private-PGM estimate by mirror descent on the joint table (see the module docstring);
    ``measurements`` are ``mbi.LinearMeasurement`` of identity queries, ``total`` None means
    ``mbi``'s minimum-variance unbiased total."""
    total = pgm_descent.total_of(measurements, total)
    objective = pgm_descent.Objective(domain, measurements)
    theta = (np.zeros(domain.size()) if warm_start is None
             else warm_start.log_table.ravel().copy())
    table = _Table(domain, objective, theta, total)
    pgm_descent.descend(objective, table, total, iters)
    return JointModel(domain, objective.maximal, table.theta.reshape(domain.shape), total)
