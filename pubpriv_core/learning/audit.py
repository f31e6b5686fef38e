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
