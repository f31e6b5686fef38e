"""Bassily, Cheu, Moran, Nikolov, Ullman, Wu (ICML 2020): query release assisted by public data.

APAP (Alg. 3) for thresholds c_t(x) = 1[x < t] on the grid [N] = {0..N−1}:
1–3. the public cover H̃ = one threshold per pattern on the distinct public points u_1 < … < u_M̂
     (gap thresholds, M = M̂ + 1 of them);
4–5. the representative domain X_H̃: the M + 1 cells between consecutive cover thresholds;
     the private data enter only as their histogram over these cells;
6.   offline PMW (Dwork & Roth 2014 §4.2) on the cells with the M cover thresholds as queries;
7.   G(t) = G̃(Project(t)), Project(t) = the cover threshold of t's gap among the public points.
Private-only PMW is the same PMW on all N cells with all N + 1 thresholds as queries.

Answers are on the {0,1} scale f_t = P[X < t]; the paper's ±1 scale error is twice these
(``Err_{D,H}`` of Def 8 = 2·sup_t |G(t) − F(t)|).

Decision stumps S_p on {±1}^p (Def 12): public-only release, Gaussian mechanism and PMW; for
coordinate queries multiplicative weights keep a product distribution, so PMW over the 2^p
representative points is exact with p parameters.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from pubpriv_core.privacy import advanced_composition, gaussian_sigma, rho_from_eps

from .pmw_kernels import PREFIX, PRODUCT, offline_pmw_loop

# --------------------------------------------------------------------------- distributions on [N]


@dataclass(frozen=True)
class DiscretizedBeta:
    """X = ⌊N·U⌋ on [N], U ∼ Beta(a, b): exact F(t) = P[X < t] = I_{t/N}(a, b) for integer t."""

    N: int
    a: float = 2.0
    b: float = 5.0

    def __post_init__(self):
        if not 2 <= self.N <= 2 ** 48:
            raise ValueError(f"N must be in [2, 2^48], got {self.N}; pass a grid size that float64 resolves")

    def cdf_below(self, t) -> np.ndarray:
        """I_{t/N}(a, b) by ``special.betainc`` (the kernel of ``stats.beta.cdf``, same numbers;
        t/N lies in [0, 1], where both are exact at the ends)."""
        return special.betainc(self.a, self.b, np.asarray(t, float) / self.N)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.minimum(np.floor(self.N * rng.beta(self.a, self.b, n)), self.N - 1).astype(np.int64)

    def cell_histogram(self, edges: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        """Counts of n private draws in the cells [e_i, e_{i+1}) — one multinomial draw, exact in
        distribution (the private data enter APAP and PMW only through these counts)."""
        p = np.diff(self.cdf_below(edges))
        return rng.multinomial(n, np.clip(p, 0, None) / p.sum())


# --------------------------------------------------------------------------- PMW


@dataclass(frozen=True)
class PMWParams:
    """Offline PMW calibration (Dwork & Roth 2014, Alg. 8 via NumericSparse, Alg. 3) for a
    ±1-scale target α (Bassily et al. Def 8), i.e. a = α/2 on the {0,1} scale of the counting
    queries f = (1 + h)/2: η = a/2, threshold 3a/4, at most c = ⌈4·ln|X̃|/a²⌉ updates; ε1 = 8ε/9 for the above-threshold
    tests and ε2 = 2ε/9 for the released values; for δ > 0, σ(ε) = √(32·c·ln(2/δ))/(ε·n) on the
    normalised scale (δ = 0: σ(ε) = 2c/(ε·n)); threshold noise Lap(σ(ε1)), test noise Lap(2σ(ε1)),
    value noise Lap(σ(ε2))."""

    alpha: float
    eps: float
    delta: float
    domain_size: int
    n: int

    def __post_init__(self):
        if not 0 < self.alpha < 1 or self.eps <= 0 or not 0 <= self.delta < 1 or self.n < 1:
            raise ValueError(f"PMW needs 0<alpha<1, eps>0, 0<=delta<1, n>=1; got {self.alpha}, "
                             f"{self.eps}, {self.delta}, {self.n}; fix the parameters")

    @property
    def a(self) -> float:
        """{0,1}-scale accuracy target."""
        return self.alpha / 2

    @property
    def c(self) -> int:
        return max(1, math.ceil(4 * math.log(max(self.domain_size, 2)) / self.a ** 2))

    def sigma(self, eps: float) -> float:
        if self.delta == 0:
            return 2 * self.c / (eps * self.n)
        return math.sqrt(32 * self.c * math.log(2 / self.delta)) / (eps * self.n)

    @property
    def sigma_test(self) -> float:
        return self.sigma(8 * self.eps / 9)

    @property
    def sigma_value(self) -> float:
        return self.sigma(2 * self.eps / 9)

    def eps_spent(self) -> float:
        """ε this calibration spends (at δ), by this project's own accounting, independent of the
        constants above: the offline loop runs ≤ c AboveThreshold instances, each with threshold
        noise Lap(b), test noise Lap(2b) on sensitivity-1/n tests, hence 2/(n·b)-DP (Dwork & Roth
        2014, Thm 3.23), and releases ≤ c values with Lap(σ2) noise, 1/(n·σ2)-DP each. They add
        up exactly for δ = 0 and by advanced composition with slack δ/2 per part for δ > 0."""
        eps_test = 2 / (self.n * self.sigma_test)
        eps_value = 1 / (self.n * self.sigma_value)
        if self.delta == 0:
            return self.c * (eps_test + eps_value)
        return (advanced_composition(eps_test, self.c, self.delta / 2)
                + advanced_composition(eps_value, self.c, self.delta / 2))


class PrefixMW:
    """Multiplicative weights over a line of K cells (uniform start); query j is the prefix
    f_j = 1[cell < cut_j], answered as the MW mass below cut_j.  Every update multiplies a prefix
    or a suffix by e^{−η}, so the weights are piecewise constant: they are stored as pieces
    (start, log-offset), at most updates + 1 of them, never as a K-vector."""

    def __init__(self, K: int, cuts: np.ndarray):
        self.K = int(K)
        self.starts = np.array([0], np.int64)
        self.offsets = np.array([0.0])
        self.cuts = np.asarray(cuts, np.int64)

    def _split(self, cut: int) -> None:
        if 0 < cut < self.K and cut not in self.starts:
            i = np.searchsorted(self.starts, cut)
            self.starts = np.insert(self.starts, i, cut)
            self.offsets = np.insert(self.offsets, i, self.offsets[i - 1])

    def answers_at(self, idx: np.ndarray) -> np.ndarray:
        mass = np.diff(np.append(self.starts, self.K)) * np.exp(self.offsets - self.offsets.max())
        cum = np.concatenate([[0.0], np.cumsum(mass)])
        c = self.cuts[idx]
        piece = np.searchsorted(self.starts, c, side="right") - 1
        below = cum[piece] + (c - self.starts[piece]) * np.exp(self.offsets[piece] - self.offsets.max())
        return below / cum[-1]

    def answers(self) -> np.ndarray:
        return self.answers_at(np.arange(len(self.cuts)))

    def update(self, j: int, below: bool, eta: float) -> None:
        """x ← x·exp(−η·r(x)), r = f_j if the measured answer is below the MW answer else 1 − f_j."""
        cut = int(self.cuts[j])
        self._split(cut)
        self.offsets[(self.starts < cut) if below else (self.starts >= cut)] -= eta


class ProductMW:
    """Multiplicative weights over {±1}^k with coordinate queries f_i(x) = 1[x_i = +1]: every
    update depends on one coordinate, so the MW distribution stays a product; θ_i is the log-odds."""

    def __init__(self, k: int):
        self.theta = np.zeros(k)

    def answers_at(self, idx: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-self.theta[idx]))

    def answers(self) -> np.ndarray:
        return self.answers_at(np.arange(len(self.theta)))

    def update(self, j: int, below: bool, eta: float) -> None:
        self.theta[j] += -eta if below else eta


@dataclass
class PMWResult:
    answers: np.ndarray          # final MW answers to every query (the synthetic distribution)
    updates: int
    passes: int
    halted: bool                 # True when the c-th update was spent
    reach: int = 0               # queries 0..reach−1 were tested at least once


def offline_pmw(true_answers: np.ndarray, mw, params: PMWParams, rng: np.random.Generator,
                max_passes: int = 1000, block: int = 65536) -> PMWResult:
    """Offline PMW: passes over the queries in order; the sparse vector tests
    |f_j(x) − f_j(x^t)| + Lap(2σ1) ≥ 3α/4 + Lap(σ1), scanning blocks of 16, 32, … (at most
    ``block``) queries whose test noise is drawn per block; on ⊤ release v = f_j(x) − f_j(x^t) +
    Lap(σ2), update with r = f_j if v < 0 else 1 − f_j, redraw the threshold noise.  Stops after a
    pass without ⊤ or after c updates.  ``mw`` (:class:`PrefixMW` or :class:`ProductMW`) is
    updated in place; the loop is compiled (:mod:`.pmw_kernels`)."""
    true = np.ascontiguousarray(true_answers, dtype=float)
    c = params.c
    if isinstance(mw, PrefixMW):
        pieces = len(mw.starts)
        starts = np.concatenate([mw.starts, np.zeros(c + 1, np.int64)])
        offsets = np.concatenate([mw.offsets, np.zeros(c + 1)])
        updates, passes, reach, pieces = offline_pmw_loop(
            PREFIX, true, mw.cuts, mw.K, starts, offsets, pieces, np.zeros(1), c, params.a,
            params.sigma_test, params.sigma_value, rng, max_passes, block)
        mw.starts, mw.offsets = starts[:pieces], offsets[:pieces]
    else:
        updates, passes, reach, _ = offline_pmw_loop(
            PRODUCT, true, np.zeros(1, np.int64), 0, np.zeros(1, np.int64), np.zeros(1), 1, mw.theta,
            c, params.a, params.sigma_test, params.sigma_value, rng, max_passes, block)
    return PMWResult(mw.answers(), updates, passes, updates >= c, reach)


def false_top_probability(params: PMWParams, error: float = 0.0) -> float:
    """P[|e| + Lap(2σ1) ≥ 3a/4 + Lap(σ1)]: the chance that the sparse vector of
    :func:`offline_pmw` fires on one query answered with error e (e = 0: a false ⊤).

    With D = Lap(2b) − Lap(b) (b = σ1) and x = 3a/4 − e ≥ 0, P[D ≥ x] = (4e^{−x/2b} − e^{−x/b})/6
    (the density of a difference of independent Laplace variables, integrated in closed form)."""
    x, b = 3 * params.a / 4 - error, params.sigma_test
    if x < 0:
        raise ValueError(f"error {error} is above the threshold 3a/4 = {3 * params.a / 4}; pass a "
                         "smaller error")
    return (4 * math.exp(-x / (2 * b)) - math.exp(-x / b)) / 6


# --------------------------------------------------------------------------- APAP on thresholds


def threshold_cover(public: np.ndarray, N: int) -> np.ndarray:
    """H̃ for c_t = 1[x < t] on [N]: one t per gap of the distinct public points — 0 and u_i + 1
    (the leftmost threshold of each pattern); M̂ + 1 thresholds."""
    u = np.unique(public)
    return np.concatenate([[0], u + 1]).astype(np.int64)


def sup_error_thresholds(cover: np.ndarray, g: np.ndarray, dist: DiscretizedBeta) -> float:
    """Exact sup_{t ∈ {0..N}} |G(Project(t)) − F(t)| where every t in (u_{i−1}, u_i] projects to
    the cover threshold of that gap: F is monotone, so the sup over a gap is attained at its ends."""
    N = dist.N
    lefts = cover
    rights = np.concatenate([cover[1:] - 1, [N]])      # gap i = [cover_i, cover_{i+1} − 1], last to N
    F_l, F_r = dist.cdf_below(lefts), dist.cdf_below(rights)
    return float(np.max(np.maximum(np.abs(g - F_l), np.abs(g - F_r))))


@dataclass
class ReleaseRun:
    """One release: ±1-scale error over all of H and its parts, with PMW statistics."""

    err: float                  # Err_{D,H}(G) on the ±1 scale (Def 8)
    cover_err: float            # ±1-scale error of answering with the exact F at the projection
    domain_size: int
    updates: int
    halted: bool
    passes: int = 0
    reach: int = 0              # queries 0..reach−1 were tested by the sparse vector
    err_beyond_reach: float = 0.0   # ±1-scale error on the queries never tested


def apap_thresholds(dist: DiscretizedBeta, n: int, m: int, alpha: float, eps: float, delta: float,
                    rng: np.random.Generator) -> ReleaseRun:
    """APAP (Alg. 3) with PMW at (α/2, ε, δ) on the representative domain of the public cover."""
    cover = threshold_cover(dist.sample(m, rng), dist.N)
    edges = np.unique(np.concatenate([cover, [dist.N]]))   # cells [t_i, t_{i+1}); t_0 = 0
    hist = dist.cell_histogram(edges, n, rng)
    K = len(hist)
    cuts = np.arange(len(cover))                          # cover[i] = edges[i]
    params = PMWParams(alpha / 2, eps, delta, K, n)
    true = np.concatenate([[0.0], np.cumsum(hist)])[cuts] / n
    res = offline_pmw(true, PrefixMW(K, cuts), params, rng)
    err = sup_error_thresholds(cover, res.answers, dist)
    cover_err = sup_error_thresholds(cover, dist.cdf_below(cover), dist)
    return ReleaseRun(2 * err, 2 * cover_err, K, res.updates, res.halted)


def private_pmw_thresholds(dist: DiscretizedBeta, n: int, alpha: float, eps: float, delta: float,
                           rng: np.random.Generator) -> ReleaseRun:
    """Private-only PMW on all N cells with the N + 1 thresholds as queries (α, ε, δ); exact
    sup error over every threshold."""
    N = dist.N
    hist = dist.cell_histogram(np.arange(N + 1), n, rng)
    cuts = np.arange(N + 1)
    true = np.concatenate([[0.0], np.cumsum(hist)]) / n
    res = offline_pmw(true, PrefixMW(N, cuts), PMWParams(alpha, eps, delta, N, n), rng)
    gap = 2 * np.abs(res.answers - dist.cdf_below(cuts))
    beyond = float(gap[res.reach:].max()) if res.reach < len(cuts) else 0.0
    return ReleaseRun(float(gap.max()), 0.0, N, res.updates, res.halted, res.passes, res.reach,
                      beyond)


# --------------------------------------------------------------------------- decision stumps


def stump_means(mu: np.ndarray) -> np.ndarray:
    """E_D[h_i] on the {0,1} scale: P[x_i = +1] = (1 + μ_i)/2 for independent signs with means μ."""
    return (1 + np.asarray(mu, float)) / 2


def stumps_public_only(mu: np.ndarray, m: int, rng: np.random.Generator) -> float:
    """Public-only release: G(h_i) = public frequency of x_i = +1; ±1-scale sup error."""
    est = rng.binomial(m, stump_means(mu)) / m
    return float(2 * np.max(np.abs(est - stump_means(mu))))


def stumps_gaussian(mu: np.ndarray, n: int, eps: float, delta: float, rng: np.random.Generator) -> float:
    """Gaussian mechanism on the p private frequencies: ℓ2 sensitivity √p/n, σ from the zCDP
    calibration ρ = rho_from_eps(ε, δ), σ = Δ/√(2ρ) (Bun & Steinke 2016); ±1-scale sup error."""
    p = len(mu)
    sigma = gaussian_sigma(rho_from_eps(eps, delta), math.sqrt(p) / n)
    est = rng.binomial(n, stump_means(mu)) / n + rng.normal(0, sigma, p)
    return float(2 * np.max(np.abs(est - stump_means(mu))))


def stumps_pmw(mu: np.ndarray, n: int, m: int, alpha: float, eps: float, delta: float,
               rng: np.random.Generator) -> ReleaseRun:
    """APAP on S_p: the cover keeps one coordinate per distinct public column (m public draws; with
    m = 0 it is all of S_p, i.e. private-only PMW); PMW at (α/2, ε, δ) on the representative domain
    {±1}^{|H̃|}; a dropped coordinate is answered by the kept one with the same public column."""
    p = len(mu)
    if m > 0:
        cols = rng.random((m, p)) < stump_means(mu)
        _, first, inverse = np.unique(cols.T, axis=0, return_index=True, return_inverse=True)
        keep, project = first, np.asarray(inverse).ravel()
    else:
        keep, project = np.arange(p), np.arange(p)
    true = rng.binomial(n, stump_means(mu[keep])) / n
    params = PMWParams(alpha / 2 if m > 0 else alpha, eps, delta, 2 ** len(keep), n)
    res = offline_pmw(true, ProductMW(len(keep)), params, rng)
    err = float(2 * np.max(np.abs(res.answers[project] - stump_means(mu))))
    return ReleaseRun(err, 0.0, 2 ** len(keep), res.updates, res.halted)


def stumps_mixed(mu: np.ndarray, n: int, m: int, eps: float, delta: float,
                 rng: np.random.Generator) -> float:
    """A release of S_p from n private and m public draws (Thm 13's setting: both kinds of data).

    Per coordinate, the inverse-variance combination of the public frequency (variance ≤ 1/(4m))
    and the Gaussian-mechanism private frequency (variance ≤ 1/(4n) + σ², σ as in
    :func:`stumps_gaussian`). The weights use only n, m and σ, so the release is (ε, δ)-DP in the
    private data for every public set. n = 0 is public-only, m = 0 the Gaussian mechanism.
    ±1-scale sup error."""
    if n < 0 or m < 0 or n + m == 0:
        raise ValueError(f"need n, m ≥ 0 and n + m ≥ 1, got n={n}, m={m}; pass sample sizes")
    q = stump_means(mu)
    w_pub = 4.0 * m
    est_pub = rng.binomial(m, q) / m if m else np.zeros_like(q)
    if n:
        sigma = gaussian_sigma(rho_from_eps(eps, delta), math.sqrt(len(q)) / n)
        w_priv = 1.0 / (1.0 / (4.0 * n) + sigma ** 2)
        est_priv = rng.binomial(n, q) / n + rng.normal(0, sigma, len(q))
    else:
        w_priv, est_priv = 0.0, np.zeros_like(q)
    est = (w_pub * est_pub + w_priv * est_priv) / (w_pub + w_priv)
    return float(2 * np.max(np.abs(est - q)))
