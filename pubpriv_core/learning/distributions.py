"""Known marginal distributions on the instance space, with exact masses.

The theory experiments measure the *true* error of a learned hypothesis, so every distribution here
answers mass queries exactly instead of by sampling:

* :class:`FiniteDistribution` — finitely many support points (codes on a grid ``[N]``, rows of a
  ``{±1}^p`` cube, points of a 2-D grid or of R^k) with probabilities.  Any error is the exact sum
  ``Σ_x D(x)·1[h(x) ≠ c(x)]`` over the support (Beimel et al. 2014, §2: error_D(c,h)).
* :class:`Mixture01` — a distribution on [0,1] made of Beta components and atoms, with an exact
  strict CDF ``P[X < t]``; this is the ``R``-limit that Alon–Bassily–Moran 2019 (Thm 4.1) need for
  their Ω(1/α) public lower bound, where ``dis(1[x<t], 1[x<t']) = |F(t) − F(t')|`` is analytic.
* :class:`ProductSigns` — independent coordinates on ``{±1}^p`` with means ``μ_i``; exact
  ``P[x_i ≠ x_j] = (1 − μ_i μ_j)/2`` (decision stumps, Bassily et al. 2020, Def 12).

Every sampler takes an explicit ``numpy.random.Generator``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special


def _check_probs(probs: np.ndarray) -> np.ndarray:
    probs = np.asarray(probs, dtype=float)
    if probs.ndim != 1 or probs.size == 0 or np.any(probs < 0):
        raise ValueError("probabilities must be a non-empty 1-D array of non-negative numbers; fix the weights")
    total = probs.sum()
    if not np.isclose(total, 1.0, rtol=0, atol=1e-9):
        raise ValueError(f"probabilities must sum to 1, got {total:.12g}; normalise the weights")
    return probs / total


class FiniteDistribution:
    """D = Σ_k probs[k]·δ_{points[k]}; points are scalars (1-D codes) or rows (vectors).

    >>> D = FiniteDistribution([0, 3], [0.9, 0.1])
    >>> D.prob_below(3), D.mass(np.array([False, True]))
    (0.9, 0.1)
    """

    def __init__(self, points, probs):
        points = np.asarray(points)
        probs = _check_probs(probs)
        if len(points) != len(probs):
            raise ValueError(f"got {len(points)} points and {len(probs)} probabilities; pass one probability per point")
        self.points, self.probs = points, probs
        self._sorted = None
        self._cdf = None

    @classmethod
    def uniform(cls, points) -> "FiniteDistribution":
        points = np.asarray(points)
        return cls(points, np.full(len(points), 1.0 / len(points)))

    def __len__(self) -> int:
        return len(self.probs)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n i.i.d. points (rows of ``points``) by inverse CDF: the draws of
        ``rng.choice(len, size=n, p=probs)``, with the CDF computed once per distribution."""
        if self._cdf is None:
            cdf = np.cumsum(self.probs)
            self._cdf = cdf / cdf[-1]
        return self.points[np.searchsorted(self._cdf, rng.random(int(n)), side="right")]

    def mass(self, mask: np.ndarray) -> float | np.ndarray:
        """D(A) for a boolean mask over the support, or a (k, |support|) stack of masks."""
        return np.asarray(mask, dtype=float) @ self.probs

    def prob_below(self, t) -> np.ndarray | float:
        """Strict CDF P[X < t] for 1-D points (vectorised in t)."""
        if self.points.ndim != 1:
            raise ValueError("prob_below needs 1-D support points; use mass() for vector points")
        if self._sorted is None:
            order = np.argsort(self.points, kind="stable")
            self._sorted = (self.points[order], np.concatenate([[0.0], np.cumsum(self.probs[order])]))
        xs, cum = self._sorted
        out = cum[np.searchsorted(xs, t, side="left")]
        return float(out) if np.ndim(out) == 0 else out


@dataclass
class Mixture01:
    """A distribution on [0,1]: Σ w_c·Beta(a_c, b_c) + Σ w_a·δ_{loc_a} (weights sum to 1).

    ``prob_below(t) = P[X < t]`` is exact (atoms at t are excluded, matching ``1[x < t]``).
    """

    betas: list[tuple[float, float, float]] = field(default_factory=lambda: [(1.0, 1.0, 1.0)])
    atoms: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self):
        weights = np.array([w for w, _, _ in self.betas] + [w for w, _ in self.atoms], dtype=float)
        _check_probs(weights)
        if any(not 0.0 <= loc <= 1.0 for _, loc in self.atoms):
            raise ValueError("atoms must lie in [0,1]; move the point masses inside the unit interval")
        self._weights = weights
        cdf = np.cumsum(weights)
        self._cdf = cdf / cdf[-1]

    @classmethod
    def uniform(cls) -> "Mixture01":
        return cls()

    def prob_below(self, t):
        t = np.asarray(t, dtype=float)
        out = np.zeros_like(t)
        for w, a, b in self.betas:   # the Beta CDF itself (stats.beta.cdf's kernel, without its checks)
            out = out + w * special.betainc(a, b, np.clip(t, 0.0, 1.0))
        for w, loc in self.atoms:
            out = out + w * (loc < t)
        return float(out) if out.ndim == 0 else out

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n draws: the component of each by the draws of ``rng.choice(len, size=n, p=weights)``
        (inverse CDF of one ``rng.random(n)``, the CDF computed once), then the component's value."""
        n = int(n)
        which = np.searchsorted(self._cdf, rng.random(n), side="right")
        out = np.empty(n)
        for c, (_, a, b) in enumerate(self.betas):
            idx = np.flatnonzero(which == c)
            out[idx] = rng.beta(a, b, size=idx.size)
        for k, (_, loc) in enumerate(self.atoms):
            out[which == len(self.betas) + k] = loc
        return out


class ProductSigns:
    """Independent ±1 coordinates with E[x_i] = means[i] (decision-stump experiments)."""

    def __init__(self, means):
        means = np.asarray(means, dtype=float)
        if means.ndim != 1 or np.any(np.abs(means) > 1):
            raise ValueError("means must be a 1-D array in [-1, 1]; pass E[x_i] for each coordinate")
        self.means = means

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        p_plus = (1.0 + self.means) / 2.0
        return np.where(rng.random((int(n), self.means.size)) < p_plus, 1, -1).astype(np.int8)

    def prob_disagree(self, i, j) -> np.ndarray:
        """P[x_i ≠ x_j] = (1 − μ_i μ_j)/2 for i ≠ j, and 0 for i = j."""
        i, j = np.asarray(i), np.asarray(j)
        out = (1.0 - self.means[i] * self.means[j]) / 2.0
        return np.where(i == j, 0.0, out)
