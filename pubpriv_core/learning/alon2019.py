"""Semi-private learning of Alon, Bassily & Moran (NeurIPS 2019).

* Public-sample cover (Alg. 1 steps 1–5, = Bassily et al. 2020 Alg. 3 steps 1–3): H̃ = one
  hypothesis per labelling pattern of the distinct public points (``ConceptClass.cover``), and its
  exact radius max_h dis(h, Project(h); D) for thresholds and intervals (:func:`cover_radius`) —
  Lemma 3.3's event "Bad" is radius > α.
* :func:`asspp` — Alg. 1 step 6: the exponential mechanism over H̃ with score −êrr(h; S_priv)
  (sensitivity 1/n_priv), P(h) ∝ exp(−ε·n_priv·êrr(h)/2); pure ε-DP w.r.t. the private sample for
  every fixed public sample.
* :func:`reduction_b` — Alg. 2–4 (Lemma 4.4): a realizable private learner on ñ = ⌈n_priv/(10 n_pub)⌉
  examples from an agnostic semi-private one, by mixing the private sample into dummy draws from
  D0 (y ∼ Unif{0,1} independent of x) at rate p = 1/(100 n_pub) and drawing the public sample from D0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pubpriv_core.privacy import exponential_mechanism, exponential_mechanism_probabilities

from .classes import ConceptClass, Intervals, Thresholds


# ---------------------------------------------------------------- cover radius (exact)
def gap_masses(T_pub, reps: np.ndarray, dist) -> tuple[np.ndarray, np.ndarray]:
    """Per gap i of the sorted distinct public points, with representative threshold r_i:

    e_i = sup_{t ∈ gap i} |F(t) − F(r_i)| = max(F(r_i) − F_lo_i, F_hi_i − F(r_i)) and the gap mass
    g_i = F_hi_i − F_lo_i, where F(t) = P[X < t], F_lo_i = P[X ≤ x_(i)] (0 for the first gap) and
    F_hi_i = P[X < x_(i+1)] (P[X < right end] for the last gap; thresholds live in [lo, hi]).
    """
    xs = np.unique(np.asarray(T_pub))
    hi = 1.0 if np.issubdtype(xs.dtype, np.floating) else None
    upper = np.append(xs, hi if hi is not None else np.iinfo(np.int64).max)
    f_lo = np.concatenate([[0.0], np.asarray(dist.prob_below(_just_above(xs)), dtype=float)])
    f_hi = np.asarray(dist.prob_below(upper), dtype=float)
    f_r = np.asarray(dist.prob_below(reps), dtype=float)
    return np.maximum(f_r - f_lo, f_hi - f_r), f_hi - f_lo


def _just_above(xs: np.ndarray) -> np.ndarray:
    return np.nextafter(xs, np.inf) if np.issubdtype(xs.dtype, np.floating) else xs + 1


def cover_radius(cls: ConceptClass, T_pub, cover: np.ndarray, dist) -> float:
    """max_{h ∈ H} dis(h, Project(h); D) for the cover built by ``cls.cover(T_pub)``."""
    if isinstance(cls, Thresholds):
        e, _ = gap_masses(T_pub, cover[:, 0], dist)
        return float(e.max())
    if isinstance(cls, Intervals):
        reps = np.append(np.unique(cover[:-1, 0]), cover[:-1, 1].max())  # pairs are (r_i, r_j), i < j
        return interval_radius(T_pub, reps, dist)
    raise TypeError(f"cover_radius supports Thresholds and Intervals, got {type(cls).__name__}; use those classes")


def interval_radius(T_pub, reps: np.ndarray, dist) -> float:
    """Radius of the interval cover {[r_i, r_j) : i < j} ∪ {∅} given the gap representatives r_0 < … < r_m̂.

    [a, b) with a, b in different gaps i < j projects to [r_i, r_j): dis = e_i + e_j (independent
    suprema); a, b in the same gap give the all-zero pattern, projected to ∅: dis = D([a,b)) ≤ g_i.
    O(m̂ log m̂): the cover's m̂(m̂+1)/2 pairs are never built.
    """
    e, g = gap_masses(T_pub, reps, dist)
    top = np.sort(e)[-2:]
    return float(max(top.sum() if len(e) > 1 else 0.0, g.max()))


# ---------------------------------------------------------------- ASSPP (Alg. 1)
def asspp_scores(cls: ConceptClass, X_priv, y_priv, cover: np.ndarray) -> np.ndarray:
    """Scores −n_priv·êrr(h) = −mistakes(h) of every cover element (sensitivity 1)."""
    return -cls.mistakes(cover, X_priv, y_priv).astype(float)


def asspp(cls: ConceptClass, X_priv, y_priv, T_pub, eps: float, rng: np.random.Generator,
          rule: str = "left") -> np.ndarray:
    """Alg. 1: cover from the unlabelled public points, then ExpMech P(h) ∝ exp(−ε·mistakes(h)/2)."""
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps}; pass a positive privacy budget")
    cover = cls.cover(T_pub, rule, rng)
    return cover[exponential_mechanism(asspp_scores(cls, X_priv, y_priv, cover), eps, 1.0, rng)]


def asspp_probabilities(cls: ConceptClass, X_priv, y_priv, cover: np.ndarray, eps: float) -> np.ndarray:
    """Exact output law of :func:`asspp` over a fixed cover (audits)."""
    return exponential_mechanism_probabilities(asspp_scores(cls, X_priv, y_priv, cover), eps, 1.0)


# ---------------------------------------------------------------- Reduction B (Alg. 2–4)
Sampler = Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


@dataclass
class ReductionOutput:
    """B's hypothesis, whether PrivSamp ran out of S̃ before n_priv entries, and how many it used."""

    hypothesis: object
    exited_early: bool
    used: int


def priv_samp(X_tilde, y_tilde, draw_d0: Sampler, p: float, n_priv: int, rng: np.random.Generator):
    """Alg. 3: entry i is the next element of S̃ if b_i ∼ Ber(p) = 1, else a fresh D0 draw; stops when S̃ is empty."""
    b = rng.random(int(n_priv)) < p
    take = np.cumsum(b)
    stop = int(np.searchsorted(take, len(X_tilde), side="left")) + 1 if take[-1] >= len(X_tilde) else n_priv
    b, n = b[:stop], min(stop, n_priv)
    X0, y0 = draw_d0(n, rng)
    X, y = X0.copy(), y0.copy()
    X[b], y[b] = np.asarray(X_tilde)[: b.sum()], np.asarray(y_tilde)[: b.sum()]
    return X, y, n < n_priv, int(b.sum())


def reduction_b(X_tilde, y_tilde, learner: Callable, draw_d0: Sampler, n_priv: int, n_pub: int,
                rng: np.random.Generator) -> ReductionOutput:
    """Alg. 2: B(S̃) = A(PrivSamp(S̃, D0, p, n_priv), PubSamp(D0, n_pub)), p = 1/(100·n_pub).

    ``learner(X_priv, y_priv, X_pub, rng)`` is the agnostic semi-private learner A (its public
    sample is unlabelled here, so only X_pub is passed); ``draw_d0(k, rng)`` returns k D0 examples.
    """
    if len(X_tilde) != math.ceil(n_priv / (10 * n_pub)):
        raise ValueError(f"S̃ must have ⌈n_priv/(10 n_pub)⌉ = {math.ceil(n_priv / (10 * n_pub))} examples, "
                         f"got {len(X_tilde)}; resize the private sample")
    p = 1.0 / (100 * n_pub)
    X, y, early, used = priv_samp(X_tilde, y_tilde, draw_d0, p, n_priv, rng)
    X_pub, _ = draw_d0(n_pub, rng)
    return ReductionOutput(learner(X, y, X_pub, rng), early, used)
