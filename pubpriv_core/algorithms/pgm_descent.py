"""Private-PGM's loss and its mirror-descent loop, shared by the joint-table and tree estimators.

Private-PGM (McKenna, Sheldon & Miklau 2019, Alg. 1) minimises
L(μ) = Σ_r ½‖(μ_r − y_r)/σ_r‖² over the marginals μ of a model with one log-potential θ_C per
maximal measured clique C, by the mirror-descent step θ_C ← θ_C − α·∇_{μ_C}L. The iterates
are ``mbi.estimation.MirrorDescent``'s (mbi v2): σ clipped at 1e-12; the Armijo rule — a step
is kept when L(μ) − L(μ') ≥ ½α·⟨∇L(μ), μ − μ'⟩, then α ← 1.01·α, else α ← α/2 and θ stays —
started at α₀ = 2/(L_∇·n) with L_∇ ``mbi``'s Lipschitz constant of ∇L; ⌈iters/50⌉·50 steps.
An estimator supplies only how θ moves and how the maximal marginals μ follow from it.
"""
from __future__ import annotations

import math
from typing import Protocol

import numba
import numpy as np
import scipy.sparse
from mbi import clique_utils, estimation, marginal_loss

Clique = tuple[str, ...]


class Objective:
    """L and ∇L on the concatenated marginals of the maximal measured cliques.

    ``maximal`` are the maximal measured cliques (``mbi``'s order), ``offsets`` where each one's
    cells start in the concatenated vector; ``project`` the 0/1 matrix taking the concatenated
    maximal marginals to the concatenated measured ones, ``values`` the noisy measurements and
    ``precision`` their 1/σ²."""

    def __init__(self, domain, measurements: list):
        self.maximal = clique_utils.maximal_subset([m.clique for m in measurements])
        sizes = [domain.size(c) for c in self.maximal]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.project = self._projection(domain, measurements)
        self.values = np.concatenate([np.ravel(m.noisy_measurement) for m in measurements])
        self.precision = np.concatenate([np.full(np.size(m.noisy_measurement),
                                                 max(float(m.stddev), 1e-12) ** -2)
                                         for m in measurements])
        self.lipschitz = marginal_loss.calculate_l2_lipschitz_from_metadata(domain, measurements)

    @property
    def cells(self) -> int:
        """Length of the concatenated maximal marginals."""
        return int(self.offsets[-1])

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
                                       shape=(start, self.cells))

    def loss_and_gradient(self, mu: np.ndarray) -> tuple[float, np.ndarray]:
        """L(μ) and ∇_{μ_C}L for every maximal C (concatenated), from maximal marginals μ: the
        sparse products of ``project @ mu`` and ``project.T @ weighted`` in one compiled call,
        adding in scipy's order (so the same floats) without its per-call overhead."""
        residual, weighted = np.empty(self.values.size), np.empty(self.values.size)
        gradient = np.zeros(self.cells)
        _residual_and_gradient(self.project.indptr, self.project.indices, mu, self.values,
                               self.precision, residual, weighted, gradient)
        return 0.5 * float(residual @ weighted), gradient


@numba.njit(cache=True)
def _residual_and_gradient(indptr, indices, mu, values, precision, residual, weighted,
                           gradient):  # pragma: no cover
    """residual = P·μ − y, weighted = residual·precision, gradient += Pᵀ·weighted for the 0/1
    matrix P in CSR form: scipy's ``csr_matvec`` and ``csc_matvec`` loops."""
    for i in range(indptr.size - 1):
        total = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            total += mu[indices[jj]]
        residual[i] = total - values[i]
        weighted[i] = residual[i] * precision[i]
    for i in range(indptr.size - 1):
        for jj in range(indptr[i], indptr[i + 1]):
            gradient[indices[jj]] += weighted[i]


class Iterate(Protocol):
    """An estimator's parameters θ: ``propose`` forms θ' = θ − α·(direction on the maximal
    cliques) and returns the maximal marginals of θ'; ``accept`` makes θ' the current θ."""

    def propose(self, direction: np.ndarray, alpha: float) -> np.ndarray: ...

    def accept(self) -> None: ...


def total_of(measurements: list, total: float | None) -> float:
    """``total``, or ``mbi``'s minimum-variance unbiased total of the measurements if None."""
    if total is None:
        return estimation.minimum_variance_unbiased_total(measurements)
    return float(total)


def descend(objective: Objective, iterate: Iterate, total: float, iters: int) -> None:
    """Run the Armijo mirror descent (module docstring) on ``iterate``, left at the last
    accepted θ."""
    mu = iterate.propose(np.zeros(objective.cells), 0.0)
    iterate.accept()
    alpha = 2.0 / (objective.lipschitz * total)
    loss, gradient = objective.loss_and_gradient(mu)
    block = estimation.CALLBACK_EVERY
    for _ in range(block * math.ceil(iters / block)):
        mu_next = iterate.propose(gradient, alpha)
        loss_next, gradient_next = objective.loss_and_gradient(mu_next)
        if loss - loss_next >= 0.5 * alpha * float(gradient @ (mu - mu_next)):
            iterate.accept()
            mu, loss, gradient = mu_next, loss_next, gradient_next
            alpha *= 1.01
        else:
            alpha *= 0.5
