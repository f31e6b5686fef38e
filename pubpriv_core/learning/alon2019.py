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
from .distributions import FiniteDistribution


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
    above = _just_above(xs)
    f_lo = np.concatenate([[0.0], np.asarray(dist.prob_below(above), dtype=float)])
    f_hi = np.asarray(dist.prob_below(upper), dtype=float)
    reps = np.asarray(reps)
    if reps.shape == f_lo.shape and np.array_equal(reps[1:], above):   # the "left" rule: F(r_i) = f_lo_i
        f_r = np.concatenate([np.atleast_1d(dist.prob_below(reps[:1])).astype(float), f_lo[1:]])
    else:
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


# ---------------------------------------------------------------- the lower-bound instance (Thm 4.1/4.2)
@dataclass(frozen=True)
class HardMixture:
    """Lemma 4.4's mixture D(p) = p·D + (1 − p)·D0 at the size where Thm 4.1 bites.

    D is realizable by thresholds 1[x < t*]: x ∼ U[0, ½).  D0 is the lemma's dummy distribution:
    y ∼ Ber(½) independent of x, with x ∼ U[½, 1) (the lemma allows any x-marginal; a disjoint one
    makes the D0 part of a public sample carry nothing about D).  p = 16α is the lemma's
    p = 1/(100·n_pub) at n_pub = 1/(1600α), so excess α on D(p) is err(h; D) = 1/16 on D:
    err(h; D(p)) − min_H err = p·err(h; D) = p·2·|clip(t, 0, ½) − t*| (D0 contributes ½ to every h).
    """

    alpha: float
    t_star: float

    def __post_init__(self):
        if not 0 < self.alpha <= 1 / 32:
            raise ValueError(f"alpha must be in (0, 1/32] so that p = 16α ≤ ½, got {self.alpha}; lower alpha")
        if not 0 <= self.t_star <= 0.5:
            raise ValueError(f"t_star must be in [0, 1/2], got {self.t_star}; put the target inside D's support")

    @property
    def p(self) -> float:
        return 16 * self.alpha

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """n labelled draws from D(p)."""
        from_d = rng.random(int(n)) < self.p
        x = np.where(from_d, 0.5 * rng.random(int(n)), 0.5 + 0.5 * rng.random(int(n)))
        y = np.where(from_d, x < self.t_star, rng.random(int(n)) < 0.5)
        return x, y

    def excess(self, t) -> np.ndarray | float:
        """err(h_t; D(p)) − min_H err(·; D(p)) = p·err(h_t; D), exactly."""
        out = self.p * 2.0 * np.abs(np.clip(np.asarray(t, dtype=float), 0.0, 0.5) - self.t_star)
        return float(out) if out.ndim == 0 else out

    def best_cover_excess(self, T_pub) -> float:
        """Smallest excess of any element of the public cover (``Thresholds(None).cover``): what a
        learner restricted to the cover reaches with unlimited private data."""
        return float(np.min(self.excess(Thresholds(None).cover(T_pub)[:, 0])))

    def cover_failure(self, n_pub: int) -> float:
        """P[best_cover_excess > α] exactly: no cover threshold within 1/32 of t* (excess α ⇔
        |t − t*| = α/(2p) = 1/32).  The threshold 0 is always in the cover; a public point lands in
        the window w.p. p·2·|window ∩ [0, ½)|."""
        lo, hi = self.t_star - 1 / 32, self.t_star + 1 / 32
        if lo <= 0:
            return 0.0
        return float((1.0 - self.p * 2.0 * (min(hi, 0.5) - lo)) ** int(n_pub))


def hard_instance_trial(alpha: float, n_priv: int, n_pub: int, eps: float, n: int,
                        rng: np.random.Generator) -> list:
    """One run of ASSPP on :class:`HardMixture` with t* ∼ U[1/8, 3/8] (public sample unlabelled,
    both drawn from D(p)); ``n`` is unused (the sizes are fixed).  Returns [ASSPP's excess, the best
    cover element's excess]; a run fails when its excess exceeds α."""
    inst = HardMixture(alpha, 0.125 + 0.25 * rng.random())
    X, y = inst.sample(n_priv, rng)
    T_pub, _ = inst.sample(n_pub, rng)
    h = asspp(Thresholds(None), X, y, T_pub, eps, rng)
    return [inst.excess(h[0]), inst.best_cover_excess(T_pub)]


def hard_instance_failure(alpha: float, n_pub: int, grid: int = 513) -> float:
    """P[best cover element's excess > α] averaged over t* ∼ U[1/8, 3/8] (midpoint rule on ``grid``
    targets; exact per target by :meth:`HardMixture.cover_failure`)."""
    ts = 0.125 + 0.25 * (np.arange(grid) + 0.5) / grid
    return float(np.mean([HardMixture(alpha, t).cover_failure(n_pub) for t in ts]))


# ---------------------------------------------------------------- ASSPP with a growing cover
def zipf_grid(n_points: int, s: float, spacing: int) -> FiniteDistribution:
    """Heavy-tailed marginal on the grid: P(x = k·spacing) ∝ k^{−s}, k = 1..n_points.  The number of
    distinct points among n_pub draws — and with it the cover |H̃| — keeps growing with n_pub
    (≈ n_pub^{1/s} while that is ≪ n_points)."""
    k = np.arange(1, int(n_points) + 1, dtype=float)
    w = k ** (-float(s))
    return FiniteDistribution(np.arange(1, int(n_points) + 1, dtype=np.int64) * int(spacing), w / w.sum())


def median_threshold(cls: Thresholds, dist) -> float | int:
    """The target t* of the growing-cover runs: the smallest grid point with F(t*) ≥ ½ (½ on [0,1])."""
    if cls.N is None:
        return 0.5
    pts = np.sort(dist.points)
    return int(pts[np.searchsorted(np.asarray(dist.prob_below(pts + 1)), 0.5)])


def asspp_growing_trial(cls: Thresholds, dist, noise: float, n_pub: int, eps: float, n: int,
                        rng: np.random.Generator, t_star=None) -> list:
    """ASSPP with n private examples (labels 1[x < t*] flipped w.p. η, t* = :func:`median_threshold`
    unless given) and n_pub unlabelled public points.  Returns [excess (1 − 2η)·dis(h, t*; D), |H̃|]."""
    t_star = median_threshold(cls, dist) if t_star is None else t_star
    X, y = cls.sample([t_star], dist, n, rng, noise=noise)
    T_pub = dist.sample(n_pub, rng)
    cover = cls.cover(T_pub)
    h = cover[exponential_mechanism(asspp_scores(cls, X, y, cover), eps, 1.0, rng)]
    return [float((1 - 2 * noise) * cls.disagreement(h, [t_star], dist)[0]), float(len(cover))]
