"""A first-order start for the best-mixture LP (Liu et al. 2021, Definition 4.1).

The LP's value is at least the floor c (the largest private answer of a cell no support row
satisfies), and on the figures' public sources it usually *equals* c: some μ answers every
present cell within c. Such a μ certifies f = c on its own (lower bound c, upper bound its max
error), and a μ close to one is a good anchor for constraint generation (few cells violated).

:func:`penalty_descent` looks for it by FISTA (Beck & Teboulle 2009, accelerated projected
gradient) on the smooth penalty

    F(μ) = ½ Σ_q max(0, |(Mμ)_q − a_q| − τ)²,   τ = ``TARGET``·c,   μ ∈ Δ(X̂),

whose gradient Mᵀ[sign(r)·max(0, |r| − τ)] (r = Mμ − a) is ‖M‖₂²-Lipschitz; the step is
1/L with L an upper estimate of ‖M‖₂² by power iteration. Aiming below c leaves room, so the
iterates reach max error ≤ c well before F does its minimum. Each step is two sparse products
(|X̂|·W non-zeros) and one projection onto the simplex (sort, O(|X̂| log |X̂|)).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: the penalty's threshold τ as a fraction of the floor c.
TARGET = 0.5
#: steps between checks of the iterate's max error against the goal.
CHECK_EVERY = 10
#: power-iteration steps for ‖M‖₂², and the safety factor on the estimate.
_POWER_STEPS = 10
_POWER_SAFETY = 1.1


def penalty_descent(matrix: sp.csr_matrix, target: np.ndarray, goal: float, start: np.ndarray,
                    steps: int, stop=lambda: False) -> tuple[np.ndarray, bool]:
    """(μ, reached): FISTA from ``start`` on F at τ = TARGET·goal for at most ``steps`` steps,
    stopping at the first checked iterate with max error ≤ ``goal`` (``reached``); else the
    last iterate, also returned as soon as ``stop()`` (asked once per step) is true.
    ``matrix`` is a CSR matrix or an operator with ``@``, ``.T @`` and ``shape``."""
    mu = project_simplex(start)
    if _max_error(matrix, target, mu) <= goal:
        return mu, True
    transpose = matrix.T      # a CSC view: Mᵀ·g without a converted copy
    step = 1.0 / lipschitz(matrix, transpose)
    tau = TARGET * goal
    point, momentum = mu.copy(), 1.0
    for k in range(1, steps + 1):
        if stop():
            return mu, False
        residual = matrix @ point - target
        grad = transpose @ (np.sign(residual) * np.maximum(np.abs(residual) - tau, 0.0))
        new = project_simplex(point - step * grad)
        following = (1.0 + np.sqrt(1.0 + 4.0 * momentum * momentum)) / 2.0
        point = new + (momentum - 1.0) / following * (new - mu)
        mu, momentum = new, following
        if (k % CHECK_EVERY == 0 or k == steps) and _max_error(matrix, target, mu) <= goal:
            return mu, True
    return mu, False


def lipschitz(matrix: sp.csr_matrix, transpose: sp.spmatrix) -> float:
    """An upper estimate of ‖M‖₂² = λ_max(MᵀM): power iteration from the all-ones vector (M ≥ 0,
    so the Perron vector is not orthogonal to it), times a safety factor."""
    x = np.ones(matrix.shape[1]) / np.sqrt(matrix.shape[1])
    value = 1.0
    for _ in range(_POWER_STEPS):
        y = transpose @ (matrix @ x)
        value = float(np.linalg.norm(y))
        if value == 0.0:
            return 1.0
        x = y / value
    return _POWER_SAFETY * value


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {μ ≥ 0, Σμ = 1} (Held, Wolfe & Crowder 1974; sort-based)."""
    u = np.sort(v)[::-1]
    excess = np.cumsum(u) - 1.0
    last = np.flatnonzero(u - excess / np.arange(1, v.size + 1) > 0)[-1]
    return np.maximum(v - excess[last] / (last + 1), 0.0)


def _max_error(matrix: sp.csr_matrix, target: np.ndarray, mu: np.ndarray) -> float:
    return float(np.abs(matrix @ mu - target).max(initial=0.0))
