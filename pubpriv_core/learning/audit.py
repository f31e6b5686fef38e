"""Differential-privacy audits on tiny instances.

Exact audit: for a mechanism whose output law ``law(db) -> probability vector`` (over a fixed,
enumerated output space) can be computed exactly, pure ε-DP means
max_{db ~ db'} max_o ln(P_db(o)/P_db'(o)) ≤ ε, neighbours differing in one entry (replacement,
Beimel et al. 2014 §2).  We evaluate the left side over all databases of size m on a finite alphabet
(or a random subset of them) and all their neighbours.

Empirical audit: for a sampler, ε̂ = ln(P̂_lower[M(D) ∈ E] − δ) − ln P̂_upper[M(D') ∈ E] over events E,
with Clopper–Pearson bounds, is a high-confidence *lower* bound on the true ε at δ; a mechanism
is flagged when ε̂ exceeds its claimed ε (Jagielski et al. 2020 style auditing).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import numpy as np
from scipy import stats

from .measure import clopper_pearson_lower


@dataclass
class AuditResult:
    """Largest privacy-loss ratio found (as ε) and the pair of databases that realises it."""

    eps_max: float
    worst: tuple
    pairs: int

    def passes(self, eps: float, tol: float = 1e-9) -> bool:
        return self.eps_max <= eps + tol


def max_log_ratio(p: np.ndarray, q: np.ndarray) -> float:
    """max_o |ln p(o) − ln q(o)| (inf if one law puts mass where the other has none)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    if np.any((p > 0) != (q > 0)):
        return float("inf")
    both = p > 0
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def neighbours(db: tuple, alphabet: Sequence[Hashable]):
    """Every database differing from ``db`` in exactly one entry."""
    for i, entry in enumerate(db):
        for a in alphabet:
            if a != entry:
                yield db[:i] + (a,) + db[i + 1:]


def databases(alphabet: Sequence[Hashable], m: int, limit: int | None = None,
              rng: np.random.Generator | None = None) -> list[tuple]:
    """All |alphabet|^m databases, or ``limit`` random ones (needs rng) when there are more."""
    total = len(alphabet) ** m
    if limit is None or total <= limit:
        return list(itertools.product(alphabet, repeat=m))
    if rng is None:
        raise ValueError("sampling databases needs rng; pass a numpy Generator")
    idx = rng.integers(len(alphabet), size=(limit, m))
    return [tuple(alphabet[j] for j in row) for row in idx]


def exact_audit(law: Callable[[tuple], np.ndarray], alphabet: Sequence[Hashable], m: int,
                limit: int | None = None, rng: np.random.Generator | None = None) -> AuditResult:
    """max over (db, neighbour) of max_log_ratio(law(db), law(neighbour)); laws are cached."""
    cache: dict[tuple, np.ndarray] = {}

    def get(db):
        if db not in cache:
            cache[db] = np.asarray(law(db), float)
        return cache[db]

    best, worst, pairs = -np.inf, (), 0
    for db in databases(alphabet, m, limit, rng):
        for nb in neighbours(db, alphabet):
            r = max_log_ratio(get(db), get(nb))
            pairs += 1
            if r > best:
                best, worst = r, (db, nb)
    return AuditResult(float(best), worst, pairs)


def empirical_epsilon(samples_d: np.ndarray, samples_d2: np.ndarray, thresholds: np.ndarray,
                      delta: float = 0.0, confidence: float = 0.95) -> float:
    """High-confidence lower bound on ε from outputs on neighbours D, D' over events {o ≥ t} and {o < t}.

    ε̂ = max_E ln((p_lo(E) − δ)/q_hi(E)) with p_lo a Clopper–Pearson lower bound for P[M(D) ∈ E]
    and q_hi an upper bound for P[M(D') ∈ E]; both orders of (D, D') are tried.  The bounds use
    confidence^(1/(2·#events·2)) each, a Bonferroni split, so ε̂ ≤ ε holds w.p. ≥ ``confidence``.
    """
    a, b = np.sort(np.asarray(samples_d, float)), np.sort(np.asarray(samples_d2, float))
    thresholds = np.asarray(thresholds, float)
    level = 1 - (1 - confidence) / (4 * len(thresholds))
    best = -np.inf
    for x, y in ((a, b), (b, a)):
        n, m = len(x), len(y)
        for counts_x, counts_y in (
            (n - np.searchsorted(x, thresholds, "left"), m - np.searchsorted(y, thresholds, "left")),
            (np.searchsorted(x, thresholds, "left"), np.searchsorted(y, thresholds, "left")),
        ):
            for kx, ky in zip(counts_x, counts_y):
                p_lo = clopper_pearson_lower(int(kx), n, level)
                q_hi = 1.0 if ky == m else float(stats.beta.ppf(level, ky + 1, m - ky))
                if p_lo - delta > 0 and q_hi > 0:
                    best = max(best, float(np.log((p_lo - delta) / q_hi)))
    return best


# --------------------------------------------------------------------------- privacy-loss audit


def _z(confidence: float, tests: int) -> float:
    """One-sided normal quantile with a Bonferroni split of 1 − confidence over ``tests``."""
    return float(stats.norm.ppf(1 - (1 - confidence) / max(tests, 1)))


def renyi_bounds(losses: np.ndarray, alpha: float, z: float) -> tuple[float, float]:
    """Monte-Carlo D_α(P‖P') = ln E_P[e^{(α−1)L}]/(α−1) from privacy-loss samples L = ln P/P'
    drawn from P: the point estimate and a lower confidence bound (mean − z·standard error;
    −inf when that is ≤ 0)."""
    terms = np.exp((alpha - 1) * np.asarray(losses, float))
    mean, se = terms.mean(), terms.std(ddof=1) / np.sqrt(terms.size)
    lower = mean - z * se
    return (float(np.log(mean) / (alpha - 1)),
            float(np.log(lower) / (alpha - 1)) if lower > 0 else -np.inf)


def delta_bounds(losses: np.ndarray, eps: float, z: float) -> tuple[float, float]:
    """δ(ε) = E_P[(1 − e^{ε−L})_+] (the exact hockey-stick divergence, as an expectation under P)
    from privacy-loss samples: the point estimate and a lower confidence bound."""
    terms = np.maximum(0.0, 1.0 - np.exp(eps - np.asarray(losses, float)))
    mean, se = terms.mean(), terms.std(ddof=1) / np.sqrt(terms.size)
    return float(mean), float(mean - z * se)


@dataclass
class LossAudit:
    """Worst Monte-Carlo privacy loss over the neighbouring pairs, against the claimed ρ-zCDP
    (D_α ≤ ρα for every α) and (ε, δ)-DP. ``renyi_ratio`` is max over pairs and α of
    D̂_α/(ρα); the ``_lower`` values are the confidence bounds, which decide ``flagged``."""

    pairs: int
    samples: int
    rho: float
    eps: float
    delta: float
    renyi_ratio: float
    renyi_ratio_lower: float
    delta_hat: float
    delta_lower: float
    worst: tuple

    @property
    def flagged(self) -> bool:
        return self.renyi_ratio_lower > 1.0 or self.delta_lower > self.delta


def loss_audit(pairs: Sequence[tuple], sample: Callable, log_likelihood: Callable, *, rho: float,
               eps: float, delta: float, samples: int, alphas: Sequence[float] = (1.5, 2, 3, 4),
               confidence: float = 0.99) -> LossAudit:
    """Audit a mechanism over neighbouring pairs (D, D') by its privacy-loss random variable.

    For each pair, ``samples`` outputs o = sample(D) are drawn from the mechanism itself and
    L(o) = log_likelihood(D, o) − log_likelihood(D', o) is computed from its exact output law;
    the Rényi divergences and δ(ε) follow as expectations (:func:`renyi_bounds`,
    :func:`delta_bounds`), with Bonferroni-corrected lower bounds over all pairs and tests, so a
    mechanism that keeps its claim is flagged with probability ≤ 1 − ``confidence``."""
    z = _z(confidence, len(pairs) * (len(alphas) + 1))
    best = dict(renyi_ratio=-np.inf, renyi_ratio_lower=-np.inf, delta_hat=-np.inf,
                delta_lower=-np.inf)
    worst = ()
    for d, d2 in pairs:
        outputs = [sample(d) for _ in range(samples)]
        losses = np.array([log_likelihood(d, o) - log_likelihood(d2, o) for o in outputs])
        for a in alphas:
            point, lower = renyi_bounds(losses, a, z)
            if point / (rho * a) > best["renyi_ratio"]:
                worst = (d, d2)
            best["renyi_ratio"] = max(best["renyi_ratio"], point / (rho * a))
            best["renyi_ratio_lower"] = max(best["renyi_ratio_lower"], lower / (rho * a))
        point, lower = delta_bounds(losses, eps, z)
        best["delta_hat"] = max(best["delta_hat"], point)
        best["delta_lower"] = max(best["delta_lower"], lower)
    return LossAudit(len(pairs), samples, rho, eps, delta, worst=worst, **best)
