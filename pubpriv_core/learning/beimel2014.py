"""Learners and sanitizers of Beimel, Brenner, Kasiviswanathan & Nissim (MLJ 2014), pure ε-DP.

Domain [T] = {0..T−1}, T = 2^d (the paper's {1..T}, shifted by one); POINT_d = {c_j(x) = 1[x = j]},
INTERVAL_d = {1[x < t] : t ∈ {0..T}} (Def 5.1).  Neighbouring samples differ in one entry.

* :func:`learn_point_proper` — Lemma 3.4: the exponential mechanism over POINT_d (Thm 3.2) in
  efficient form: one aggregated candidate for every j outside the sample.
* :class:`HashRepresentation` + :func:`learn_representation` — Lemma 4.1 / Thm 4.2: ExpMech over
  k = 8e·d·(1+⌊2/α⌋)² random sets of density 1/(4e(1+⌊2/α⌋)) (built for α/2).  [harness] sets are
  lazy hashes, the V-filtering of property (3) is skipped and accuracy is checked empirically.
* A1 / A2 / A3 and :func:`learn_point_boosted` — Sect. 4.2: noisy improper learner, ln 4-DP
  subsampling (Claim 4.3), the privacy reduction of Lemma 4.4 with f(ε, ln 4), and private
  boosting (Claim 4.5).  Hypotheses are lazy (:class:`NoisyPoint`, a hashed PRF as in A4/A5), and
  A3 uses the exact binomial shortcut: only K ∼ Bin(n, f·α/4) examples reach A1.
  :func:`learn_representation_fresh` is the exact pattern shortcut for a fresh family on a small support.
* :func:`learn_interval_proper` — ExpMech over INTERVAL_d by blocks of equal error, O(m log m);
  :func:`reconstruct_threshold` — Thm 5.8's mismatch argmin.
* :func:`learn_seed_proper` — Thm 6.1's inefficient proper learner for POINT̂_d over 2^ℓ PRG seeds.
* :func:`laplace_histogram_error`, :func:`blr_release` — data release for POINT_d (Sect. 7).
"""
from __future__ import annotations

import functools
import hashlib
import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

from pubpriv_core.privacy import exponential_mechanism, exponential_mechanism_probabilities

from .distributions import FiniteDistribution

LN4 = math.log(4.0)
_M1, _M2, _GOLD = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)


# ---------------------------------------------------------------- hashed pseudorandom functions
def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser (a bijection on 64-bit words)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def prf_uniform(key, x) -> np.ndarray:
    """u(key, x) ∈ [0,1): a keyed hash standing in for the pseudorandom function of Sect. 4.2.1."""
    k = _mix(np.asarray(key, dtype=np.uint64))
    with np.errstate(over="ignore"):
        z = _mix(k ^ (np.asarray(x).astype(np.uint64) * _GOLD))
    return (z >> np.uint64(11)).astype(float) * 2.0**-53


def set_keys(seed: int, index) -> np.ndarray:
    """PRF key of set ``index`` in the family seeded by ``seed``."""
    with np.errstate(over="ignore"):
        return np.uint64(seed) * _GOLD + np.asarray(index, dtype=np.uint64)


def _check(eps: float, alpha: float | None = None) -> None:
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps}; pass a positive privacy budget")
    if alpha is not None and not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0,1), got {alpha}; pass an accuracy parameter")


def _grouped_em(scores, counts, eps: float, rng: np.random.Generator) -> int:
    """ExpMech over groups of equal-score candidates: shift each score by (2Δ/ε)·ln|group| (Δ = 1)."""
    return exponential_mechanism(np.asarray(scores, float) + (2.0 / eps) * np.log(counts), eps, 1.0, rng)


# ---------------------------------------------------------------- proper learners (Sect. 3, 5)
def point_em_scores(X, y, T: int):
    """Distinct sample points U, mistakes err(c_j) for j ∈ U, and err = #positives for j ∉ U."""
    X, y = np.asarray(X), np.asarray(y, dtype=bool)
    U, inv = np.unique(X, return_inverse=True)
    pos_at = np.bincount(inv, weights=y, minlength=len(U))
    neg_at = np.bincount(inv, weights=~y, minlength=len(U))
    positives = float(y.sum())
    return U, positives - pos_at + neg_at, positives


def point_em_probabilities(X, y, T: int, eps: float) -> np.ndarray:
    """Exact output law of :func:`learn_point_proper` over all of [T] (tiny T, for audits)."""
    U, err_u, positives = point_em_scores(X, y, T)
    err = np.full(T, positives)
    err[U] = err_u
    return exponential_mechanism_probabilities(-err, eps, 1.0)


def learn_point_proper(X, y, T: int, eps: float, rng: np.random.Generator) -> int:
    """Lemma 3.4: P(c_j) ∝ exp(−ε·err(c_j)/2); the T − |U| unseen points form one candidate.

    O(m log m) time; the unseen group is chosen with weight (T − |U|)·exp(−ε·#pos/2) (the paper's
    "2^d − m" is |[T] ∖ U|), then a uniform unseen point is drawn by rejection.
    """
    _check(eps)
    U, err_u, positives = point_em_scores(X, y, T)
    n_out = T - len(U)
    scores = -np.append(err_u, positives) if n_out else -err_u
    counts = np.append(np.ones(len(U)), n_out) if n_out else np.ones(len(U))
    r = _grouped_em(scores, counts, eps, rng)
    if r < len(U):
        return int(U[r])
    while True:
        j = int(rng.integers(T))
        if j not in U:
            return j


def learn_point_nonprivate(X, y, T: int, rng: np.random.Generator) -> int:
    """Consistent proper learner: the positive example's point, else a uniform unseen point."""
    X, y = np.asarray(X), np.asarray(y, dtype=bool)
    if y.any():
        return int(X[np.argmax(y)])
    seen = set(np.unique(X).tolist())
    while True:
        j = int(rng.integers(T))
        if j not in seen or len(seen) >= T:
            return j


def interval_blocks(X, y, T: int):
    """Blocks of thresholds with equal sample error: left ends, sizes and mistakes.

    With distinct sorted points u_1 < … < u_r, t ∈ [0, u_1], [u_1+1, u_2], …, [u_r+1, T] each
    give one error value err(t) = #{x < t, y = 0} + #{x ≥ t, y = 1}.
    """
    X, y = np.asarray(X), np.asarray(y, dtype=bool)
    U = np.unique(X)
    lefts = np.concatenate([[0], U + 1])
    sizes = np.diff(np.concatenate([lefts, [T + 1]]))
    order = np.argsort(X, kind="stable")
    xs, ys = X[order], y[order]
    zeros_before = np.concatenate([[0], np.cumsum(~ys)])
    ones_before = np.concatenate([[0], np.cumsum(ys)])
    k = np.searchsorted(xs, lefts, side="left")
    return lefts, sizes, zeros_before[k] + ones_before[-1] - ones_before[k]


def learn_interval_proper(X, y, T: int, eps: float, rng: np.random.Generator) -> int:
    """ExpMech over INTERVAL_d (Thm 3.2 with H = C): block ∝ |block|·exp(−ε·err/2), uniform inside."""
    _check(eps)
    lefts, sizes, err = interval_blocks(X, y, T)
    b = _grouped_em(-err.astype(float), sizes.astype(float), eps, rng)
    return int(lefts[b] + rng.integers(sizes[b]))


def interval_em_probabilities(X, y, T: int, eps: float) -> np.ndarray:
    """Exact output law of :func:`learn_interval_proper` over t ∈ {0..T} (tiny T, for audits)."""
    lefts, sizes, err = interval_blocks(X, y, T)
    return exponential_mechanism_probabilities(-np.repeat(err, sizes).astype(float), eps, 1.0)


def reconstruct_threshold(h) -> int | None:
    """Thm 5.8's reconstruction: the unique argmin over t ∈ {0..T} of
    mismatch(t, h) = #{x < t : h(x) = 0} + #{x ≥ t : h(x) = 1} (prefix sums), or None (FAIL) on a tie.

    ``h`` is the (T,) 0/1 table of an independent-noise hypothesis; O(T).
    """
    h = np.asarray(h, dtype=bool)
    zeros_before = np.concatenate([[0], np.cumsum(~h)])
    ones_from = h.sum() - np.concatenate([[0], np.cumsum(h)])
    mismatch = zeros_before + ones_from
    best = np.flatnonzero(mismatch == mismatch.min())
    return int(best[0]) if len(best) == 1 else None


# ---------------------------------------------------------------- POINT̂_d (Sect. 6)
@functools.lru_cache(maxsize=8)
def prg_table(ell: int, d: int) -> np.ndarray:
    """G_d(r) for every seed r ∈ {0,1}^ℓ: [harness] toy PRG = SHA-256(r) truncated to d ≤ 62 bits."""
    if not 1 <= ell <= 22 or not 1 <= d <= 62:
        raise ValueError(f"need 1 ≤ ℓ ≤ 22 and 1 ≤ d ≤ 62, got ℓ={ell}, d={d}; the seed table is enumerated")
    out = np.array([int.from_bytes(hashlib.sha256(r.to_bytes(4, "big")).digest()[:8], "big") >> (64 - d)
                    for r in range(2**ell)], dtype=np.int64)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=8)
def _sorted_prg(ell: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeds ordered by their point, and the sorted points (for O(log 2^ℓ) look-ups)."""
    G = prg_table(ell, d)
    order = np.argsort(G, kind="stable")
    return order, G[order]


def learn_seed_proper(X, y, ell: int, d: int, eps: float, rng: np.random.Generator) -> int:
    """Thm 6.1's inefficient proper learner for POINT̂_d: ExpMech over the 2^ℓ seeds, score −err(c_{G(r)}).

    Seeds whose point is not in the sample all score −#positives and form one group (as in
    Lemma 3.4), so a trial costs O(m log m + |{r : G(r) ∈ U}|) after the table is built.
    """
    _check(eps)
    G = prg_table(ell, d)
    order, G_sorted = _sorted_prg(ell, d)
    U, err_u, positives = point_em_scores(X, y, 2**d)
    lo, hi = np.searchsorted(G_sorted, U, "left"), np.searchsorted(G_sorted, U, "right")
    seen = np.concatenate([order[a:b] for a, b in zip(lo, hi)]) if len(U) else np.empty(0, dtype=np.int64)
    err_seen = np.repeat(err_u, hi - lo)
    n_out = len(G) - len(seen)
    scores = -np.append(err_seen, positives) if n_out else -err_seen
    counts = np.append(np.ones(len(seen)), n_out) if n_out else np.ones(len(seen))
    r = _grouped_em(scores, counts, eps, rng)
    if r < len(seen):
        return int(seen[r])
    while True:
        s = int(rng.integers(len(G)))
        if G[s] not in U:
            return s


def seed_em_probabilities(X, y, ell: int, d: int, eps: float) -> np.ndarray:
    """Exact law of :func:`learn_seed_proper` over all seeds (brute force, audits and tests)."""
    G = prg_table(ell, d)
    X, y = np.asarray(X), np.asarray(y, dtype=bool)
    err = np.array([np.sum((X == g) != y) for g in G], dtype=float)
    return exponential_mechanism_probabilities(-err, eps, 1.0)


# ---------------------------------------------------------------- representation learner (Sect. 4.1)
@dataclass(frozen=True)
class HashRepresentation:
    """H_d = {S_1..S_k}, S_i = {x : u(key_i, x) < density}; Lemma 4.1 built for accuracy α_rep = α/2.

    k = 8e·p²/d = 8e·d·(1+⌊1/α_rep⌋)², set size 4pT/k inside {1..2T} ⇒ density 2p/k = 1/(4e(1+⌊1/α_rep⌋)).
    """

    d: int
    alpha: float
    seed: int

    @property
    def _q(self) -> int:
        return 1 + math.floor(2.0 / self.alpha)

    @property
    def k(self) -> int:
        return math.ceil(8 * math.e * self.d * self._q**2)

    @property
    def density(self) -> float:
        return 1.0 / (4 * math.e * self._q)

    def members(self, x) -> np.ndarray:
        """(k, n) membership of points x in every set (n small: only distinct sample points)."""
        keys = set_keys(self.seed, np.arange(self.k))
        return prf_uniform(keys[:, None], np.asarray(x)[None, :]) < self.density


def learn_representation(X, y, rep: HashRepresentation, eps: float, rng: np.random.Generator) -> int:
    """Thm 4.2: ExpMech over H_d with mistakes as score (Δ = 1); returns the set index."""
    _check(eps)
    U, inv = np.unique(np.asarray(X), return_inverse=True)
    y = np.asarray(y, dtype=bool)
    pos = np.bincount(inv, weights=y, minlength=len(U))
    neg = np.bincount(inv, weights=~y, minlength=len(U))
    M = rep.members(U)
    mistakes = M.astype(float) @ neg + (~M).astype(float) @ pos
    return exponential_mechanism(-mistakes, eps, 1.0, rng)


def learn_representation_fresh(X, y, support, rep_d: int, alpha: float, eps: float,
                               rng: np.random.Generator) -> np.ndarray:
    """[harness] Exact-in-distribution shortcut of :func:`learn_representation` with a fresh family.

    When the sample lies in a small support S and each of the k sets contains each point
    independently w.p. ρ (a fresh lazy family), the ExpMech only sees the sets' patterns on S:
    pattern counts are Multinomial(k, ρ^|P|(1−ρ)^{|S|−|P|}), and a pattern is chosen with weight
    count·exp(−ε·mistakes/2).  Returns the chosen set's membership on S (2^|S| patterns, |S| ≤ 12).
    """
    _check(eps)
    support = np.asarray(support)
    rep = HashRepresentation(rep_d, alpha, 0)
    pats = ((np.arange(2 ** len(support))[:, None] >> np.arange(len(support))[None, :]) & 1).astype(bool)
    sizes = pats.sum(axis=1)
    probs = rep.density**sizes * (1 - rep.density) ** (len(support) - sizes)
    counts = rng.multinomial(rep.k, probs)
    idx = np.searchsorted(support, np.asarray(X))
    y = np.asarray(y, dtype=bool)
    pos = np.bincount(idx, weights=y, minlength=len(support))
    neg = np.bincount(idx, weights=~y, minlength=len(support))
    mistakes = pats.astype(float) @ neg + (~pats).astype(float) @ pos
    live = counts > 0
    r = _grouped_em(-mistakes[live], counts[live].astype(float), eps, rng)
    return pats[np.flatnonzero(live)[r]]


def learn_representation_sparse(X, y, support, rep_d: int, alpha: float, eps: float,
                                rng: np.random.Generator) -> np.ndarray:
    """[harness] :func:`learn_representation` with a fresh family on any finite support S, exact in
    distribution.

    Each of the k sets holds each point independently w.p. ρ = 1/(4e(1+⌊2/α⌋)) (≈ 0.004 at α = 0.1),
    so S meets only ≈ k·|S|·ρ memberships: point x lies in Bin(k, ρ) sets, chosen uniformly among
    the k.  A set's score is Σ_{x ∈ set} (neg(x) − pos(x)) + Σ pos, so every set that misses S
    scores Σ pos; those sets form one group of the exponential mechanism.  Returns the chosen
    set's membership on S.
    """
    _check(eps)
    support = np.asarray(support)
    rep = HashRepresentation(rep_d, alpha, 0)
    idx = np.searchsorted(support, np.asarray(X))
    y = np.asarray(y, dtype=bool)
    pos = np.bincount(idx, weights=y, minlength=len(support))
    neg = np.bincount(idx, weights=~y, minlength=len(support))
    members = [_distinct_indices(rep.k, int(c), rng) for c in rng.binomial(rep.k, rep.density, len(support))]
    sets = np.concatenate(members)
    points = np.repeat(np.arange(len(support)), [len(m) for m in members])
    touched, inv = np.unique(sets, return_inverse=True)
    score = np.full(len(touched), pos.sum()) + np.bincount(inv, weights=(neg - pos)[points], minlength=len(touched))
    counts = np.append(np.ones(len(touched)), rep.k - len(touched))
    r = _grouped_em(-np.append(score, pos.sum()), counts, eps, rng)
    member = np.zeros(len(support), dtype=bool)
    if r < len(touched):
        member[points[inv == r]] = True
    return member


def _distinct_indices(k: int, c: int, rng: np.random.Generator) -> np.ndarray:
    """c distinct indices uniform among range(k) (c ≪ k: draw, drop repeats, top up)."""
    out = np.unique(rng.integers(0, k, c))
    while len(out) < c:
        out = np.unique(np.append(out, rng.integers(0, k, c - len(out))))
    return out


def representation_error(rep: HashRepresentation, i: int, target: int, dist: FiniteDistribution) -> float:
    """Exact error of S_i against c_target under a finite D."""
    h = prf_uniform(set_keys(rep.seed, i), dist.points) < rep.density
    return float(dist.mass(h != (dist.points == target)))


# ---------------------------------------------------------------- improper pipeline (Sect. 4.2)
@dataclass(frozen=True)
class NoisyPoint:
    """Lazy output of A1 (center = j of c_j, or −1 for the all-zero concept; ``None`` center = ⊥).

    Two-sided (A1): h(x) = c(x) XOR 1[u(key,x) < rate], rate = α/8.  One-sided (A4):
    h(x) = c(x) OR 1[u(key,x) < rate], rate = α/4, key rejection-sampled so that h(j) = 1 anyway.
    """

    center: int | None
    key: int = 0
    rate: float = 0.0
    one_sided: bool = False

    @property
    def is_bottom(self) -> bool:
        return self.center is None

    def __call__(self, x) -> np.ndarray:
        if self.is_bottom:
            raise ValueError("⊥ is not a function; check is_bottom before evaluating")
        x = np.asarray(x)
        noise = prf_uniform(self.key, x) < self.rate
        c = x == self.center
        return (c | noise) if self.one_sided else (c ^ noise)

    def error(self, target: int, dist: FiniteDistribution) -> float:
        """Exact error_D(c_target, h); ⊥ counts as error 1."""
        if self.is_bottom:
            return 1.0
        return float(dist.mass(self(dist.points) != (dist.points == target)))

    def mistakes(self, X, y) -> int:
        return len(y) if self.is_bottom else int((self(X) != np.asarray(y, dtype=bool)).sum())


def a1(X, y, alpha: float, rng: np.random.Generator, one_sided: bool = False) -> NoisyPoint:
    """A1: inconsistent labels → ⊥; no positive → c = 0; else c = c_j; then lazy noise."""
    X, y = np.asarray(X), np.asarray(y, dtype=bool)
    pos, neg = np.unique(X[y]), np.unique(X[~y])
    if len(pos) > 1 or (len(pos) == 1 and pos[0] in neg):
        return NoisyPoint(None)
    center = int(pos[0]) if len(pos) else -1
    rate = alpha / 4 if one_sided else alpha / 8
    key = int(rng.integers(2**63))
    while one_sided and center >= 0 and not prf_uniform(key, center) < rate:
        key = int(rng.integers(2**63))  # A4 step (3)': a random PRF subject to h(j) = 1
    return NoisyPoint(center, key, rate, one_sided)


def lemma4_4_rate(eps: float, eps_star: float = LN4) -> float:
    """f(ε, ε*) = (e^ε − 1)/(e^{ε*} + e^ε − e^{ε−ε*} − 1): probability an entry is kept (Lemma 4.4)."""
    _check(eps)
    return math.expm1(eps) / (math.exp(eps_star) + math.exp(eps) - math.exp(eps - eps_star) - 1.0)


def a2_binomial(n: int, draw, alpha: float, rng: np.random.Generator, keep: float = 1.0,
                one_sided: bool = False) -> NoisyPoint:
    """A2 (Claim 4.3) on n entries of which each is a labelled example w.p. ``keep`` (else ⋆).

    Step 1: ⊥ w.p. α/8.  Step 2 keeps each index w.p. α/4; ⋆ entries are ignored by A1, so exactly
    K ∼ Bin(n, keep·α/4) i.i.d. examples reach A1 — they are drawn with ``draw(K, rng)``.
    """
    if rng.random() < alpha / 8:
        return NoisyPoint(None)
    K = int(rng.binomial(int(n), keep * alpha / 4))
    X, y = draw(K, rng)
    return a1(X, y, alpha, rng, one_sided)


def a3_binomial(n: int, draw, alpha: float, eps: float, rng: np.random.Generator,
                one_sided: bool = False) -> NoisyPoint:
    """A3 = Lemma 4.4 applied to A2 (ε* = ln 4): entries survive w.p. f(ε, ln 4); ε-DP, (α, 4/5)-PAC."""
    return a2_binomial(n, draw, alpha, rng, keep=lemma4_4_rate(eps), one_sided=one_sided)


@dataclass(frozen=True)
class BoostingPlan:
    """Claim 4.5: N = ⌈log_{5/4}(5/β)⌉ runs of A3 at α/8 and a selection sample of size m_sel."""

    alpha: float
    beta: float
    eps: float

    @property
    def runs(self) -> int:
        return math.ceil(math.log(5.0 / self.beta) / math.log(1.25))

    @property
    def m_sel(self) -> int:
        """⌈24 ln(3/β²)/(εα)⌉ (the variant that makes the Chernoff steps hold; spec note)."""
        return math.ceil(24 * math.log(3.0 / self.beta**2) / (self.eps * self.alpha))

    @property
    def m_run_paper(self) -> int:
        """⌈384·ln4/(ε·(α/8)²)⌉ = ⌈24576·ln4/(εα²)⌉ per A3 run."""
        return math.ceil(24576 * LN4 / (self.eps * self.alpha**2))

    def split(self, n: int) -> tuple[int, int]:
        """(examples per A3 run, selection examples) for a total budget of n examples."""
        m_sel = min(int(n), self.m_sel)
        return (int(n) - m_sel) // self.runs, m_sel


def learn_point_boosted(n: int, draw, alpha: float, beta: float, eps: float, rng: np.random.Generator,
                        one_sided: bool = False) -> NoisyPoint:
    """Claim 4.5: N A3 runs on disjoint samples, then ExpMech on m_sel fresh examples (score −mistakes).

    ε-DP: disjoint samples (parallel composition) and one ε-DP selection.  ``n`` is the total
    sample size; the paper's own size is ``N·m_run_paper + m_sel``.
    """
    _check(eps, alpha)
    plan = BoostingPlan(alpha, beta, eps)
    m_run, m_sel = plan.split(n)
    hyps = [a3_binomial(m_run, draw, alpha / 8, eps, rng, one_sided) for _ in range(plan.runs)]
    X, y = draw(m_sel, rng)
    mistakes = np.array([h.mistakes(X, y) for h in hyps], dtype=float)
    return hyps[exponential_mechanism(-mistakes, eps, 1.0, rng)]


def a2_output_distribution(X, y, T: int, alpha: float, select: float) -> np.ndarray:
    """Exact law of A2 (selection rate ``select``; A3 is select = f·α/4) over 2^T functions + ⊥.

    Index b < 2^T is the function with h(x) = bit x of b; index 2^T is ⊥.  Enumerates the 2^{m'}
    selected subsets (m' ≤ ~12), so only for audits on tiny instances.
    """
    X, y, m = np.asarray(X), np.asarray(y, dtype=bool), len(X)
    funcs = (np.arange(2**T)[:, None] >> np.arange(T)[None, :]) & 1  # (2^T, T)
    flip = alpha / 8
    out = np.zeros(2**T + 1)
    for mask in itertools.product([False, True], repeat=m):
        mask = np.array(mask, dtype=bool)
        w = select ** mask.sum() * (1 - select) ** (m - mask.sum())
        pos, neg = set(X[mask & y].tolist()), set(X[mask & ~y].tolist())
        if len(pos) > 1 or pos & neg:
            out[-1] += w
            continue
        c = np.zeros(T, dtype=int)
        if pos:
            c[next(iter(pos))] = 1
        diffs = (funcs != c).sum(axis=1)
        out[:-1] += w * flip**diffs * (1 - flip) ** (T - diffs)
    return np.append((1 - alpha / 8) * out[:-1], alpha / 8 + (1 - alpha / 8) * out[-1])


# ---------------------------------------------------------------- data release (Sect. 7)
def laplace_histogram_error(X, T: int, eps: float, rng: np.random.Generator) -> float:
    """max_j |Q_j(D) − Q_j(D̂)| of the Laplace histogram (noise Lap(2/(εm)) per cell, replacement).

    Occupied cells get explicit noise; the max |Lap(b)| over the N empty cells is drawn exactly from
    its CDF (1 − e^{−x/b})^N, so T = 2^60 costs O(m).
    """
    _check(eps)
    m = len(X)
    b = 2.0 / (eps * m)
    n_occupied = len(np.unique(X))
    worst = float(np.max(np.abs(rng.laplace(scale=b, size=n_occupied)))) if n_occupied else 0.0
    n_empty = T - n_occupied
    if n_empty:
        v = rng.random()
        worst = max(worst, -b * math.log(-math.expm1(math.log(v) / n_empty)))
    return worst


def laplace_histogram_m_star(d: int, alpha: float, beta: float, eps: float) -> float:
    """Exact size with P[useful] = (1 − e^{−αεm/2})^T = 1 − β: m* = −2 ln(1 − (1−β)^{1/T})/(εα)."""
    T = 2.0**d
    return -2.0 * math.log(-math.expm1(math.log1p(-beta) / T)) / (eps * alpha)


@functools.lru_cache(maxsize=4)
def _compositions(total: int, parts: int) -> np.ndarray:
    """All histograms of ``total`` items over ``parts`` cells (stars and bars); cached, read-only."""
    rows = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = np.array((-1,) + bars + (total + parts - 1,))
        rows.append(np.diff(edges) - 1)
    out = np.array(rows)
    out.flags.writeable = False
    return out


def _blr_logits(X, T: int, n_hat: int, eps: float):
    """Histograms H of size n̂, scores −m·max_j|Q_j(D) − Q_j(Ĥ)| and log multiplicities n̂!/Π h_j!."""
    m = len(X)
    H = _compositions(int(n_hat), int(T))
    q = np.bincount(np.asarray(X), minlength=T) / m
    score = -m * np.max(np.abs(H / n_hat - q[None, :]), axis=1)
    return H, score, gammaln(n_hat + 1) - gammaln(H + 1).sum(axis=1)


def blr_release(X, T: int, n_hat: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """BLR (Blum–Ligett–Roth 2008) for POINT_d: D̂ ∈ [T]^{n̂} ∝ exp(−ε·m·max_j|Q_j(D) − Q_j(D̂)|/2).

    Score sensitivity 1 (replacement changes each Q_j(D) by ≤ 1/m); sampled over histograms
    weighted by their multiplicity n̂!/Π h_j!.  Returns the released frequencies.  Tiny T, n̂ only.
    """
    _check(eps)
    H, score, log_mult = _blr_logits(X, T, n_hat, eps)
    return H[exponential_mechanism(score + (2.0 / eps) * log_mult, eps, 1.0, rng)] / n_hat


def blr_probabilities(X, T: int, n_hat: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Histograms and their exact BLR probabilities (audits)."""
    H, score, log_mult = _blr_logits(X, T, n_hat, eps)
    logits = eps * score / 2 + log_mult
    return H, np.exp(logits - logsumexp(logits))
