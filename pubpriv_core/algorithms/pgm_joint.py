"""Private-PGM's mirror descent on the full joint table, for domains of a few million cells.

Private-PGM (McKenna, Sheldon & Miklau 2019, Alg. 1) minimises
L(μ) = Σ_r ½‖(μ_r − y_r)/σ_r‖² over the marginals μ of p = n·softmax(θ), θ = Σ_C θ_C with one
log-potential θ_C per maximal measured clique C, by the mirror-descent step
θ_C ← θ_C − α·∇_{μ_C}L. Broadcast to the joint domain X that step is θ ← θ − α·Σ_C ∇_{μ_C}L,
so when |X| is small the iteration can run on the table θ itself: every μ_C is a sum of p, and
no program has to be compiled for a new clique set (``mbi`` compiles one per set).

The iterates are ``mbi.estimation.MirrorDescent``'s (mbi v2): the same loss (σ clipped at
1e-12), the same Armijo rule — a step is kept when
L(μ) − L(μ') ≥ ½α·⟨∇L(μ), μ − μ'⟩, then α ← 1.01·α, else α ← α/2 and θ stays — started at
α₀ = 2/(L_∇·n) with L_∇ ``mbi``'s Lipschitz constant of ∇L, ⌈iters/50⌉·50 steps, the total n
given or ``mbi``'s minimum-variance estimate from the measurements, and the warm start the
previous model's θ. Only floating-point rounding differs.
"""
from __future__ import annotations

import math

import numba
import numpy as np
import scipy.sparse
from mbi import clique_utils, estimation, marginal_loss

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


class _Layout:
    """Index maps of one clique set: cell of X → cell of each maximal clique (``index``, one
    row per cell, offsets into the concatenated marginals), and the 0/1 matrix taking the
    concatenated maximal marginals to the concatenated measured ones."""

    def __init__(self, domain, measurements: list):
        attributes = list(domain.attributes)
        self.maximal = clique_utils.maximal_subset([m.clique for m in measurements])
        sizes = [domain.size(c) for c in self.maximal]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        cells = np.indices(domain.shape).reshape(len(attributes), -1)
        self.index = np.empty((cells.shape[1], len(self.maximal)), dtype=np.int32)
        for k, clique in enumerate(self.maximal):
            axes = [attributes.index(a) for a in clique]
            self.index[:, k] = np.ravel_multi_index(cells[axes], domain.project(clique).shape)
        self.project = self._projection(domain, measurements)
        self.values = np.concatenate([np.ravel(m.noisy_measurement) for m in measurements])
        self.precision = np.concatenate([np.full(np.size(m.noisy_measurement),
                                                 max(float(m.stddev), 1e-12) ** -2)
                                         for m in measurements])

    def _projection(self, domain, measurements: list) -> scipy.sparse.csr_matrix:
        rows, cols, start = [], [], 0
        for m in measurements:
            k = next(k for k, c in enumerate(self.maximal) if set(m.clique) <= set(c))
            parent = self.maximal[k]
            shape = domain.project(parent).shape
            cells = np.indices(shape).reshape(len(parent), -1)
            axes = [parent.index(a) for a in m.clique]
            target = np.ravel_multi_index(cells[axes], domain.project(m.clique).shape)
            rows.append(start + target)
            cols.append(self.offsets[k] + np.arange(cells.shape[1]))
            start += domain.size(m.clique)
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        return scipy.sparse.csr_matrix((np.ones(rows.size), (rows, cols)),
                                       shape=(start, int(self.offsets[-1])))

    def loss_and_gradient(self, mu: np.ndarray) -> tuple[float, np.ndarray]:
        """L(μ) and ∇_{μ_C}L for every maximal C (concatenated), from maximal marginals μ."""
        residual = self.project @ mu - self.values
        weighted = residual * self.precision
        return 0.5 * float(residual @ weighted), self.project.T @ weighted


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
    if total is None:
        total = estimation.minimum_variance_unbiased_total(measurements)
    layout = _Layout(domain, measurements)
    theta = (np.zeros(domain.size()) if warm_start is None
             else warm_start.log_table.ravel().copy())
    candidate = np.empty_like(theta)
    mu, mu_next = np.empty(int(layout.offsets[-1])), np.empty(int(layout.offsets[-1]))
    _step_table(theta, np.zeros_like(mu), 0.0, layout.index, layout.offsets, float(total), candidate, mu)
    theta, candidate = candidate, theta
    lipschitz = marginal_loss.calculate_l2_lipschitz_from_metadata(domain, measurements)
    alpha = 2.0 / (lipschitz * total)
    loss, gradient = layout.loss_and_gradient(mu)
    block = estimation.CALLBACK_EVERY
    for _ in range(block * math.ceil(iters / block)):
        _step_table(theta, gradient, alpha, layout.index, layout.offsets, float(total),
                    candidate, mu_next)
        loss_next, gradient_next = layout.loss_and_gradient(mu_next)
        if loss - loss_next >= 0.5 * alpha * float(gradient @ (mu - mu_next)):
            theta, candidate = candidate, theta
            mu, mu_next = mu_next, mu
            loss, gradient = loss_next, gradient_next
            alpha *= 1.01
        else:
            alpha *= 0.5
    return JointModel(domain, layout.maximal, theta.reshape(domain.shape), total)
