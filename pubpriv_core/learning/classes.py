"""Concrete concept classes with exact errors under known distributions.

Labels are {0,1} (Alon–Bassily–Moran 2019 convention; the ±1 answers of Bassily et al. 2020 are
``2·f − 1``, so their errors are twice these).  A hypothesis is a row of integer/float parameters;
a batch of k hypotheses is a (k, P) array.  Every class offers

* ``predict(H, X)`` — (k, n) boolean labels of k hypotheses on n points (chunk large batches);
* ``disagreement(h1, h2, D)`` — dis(h1,h2; D) = P_{x∼D}[h1(x) ≠ h2(x)] exactly (vectorised over
  rows); ``error(h, c, D, noise)`` = η + (1 − 2η)·dis(h, c) for labels y = c(x) flipped w.p. η;
* ``mistakes(H, X, y)`` — the number of sample mistakes of each hypothesis;
* ``cover(T)`` — one hypothesis per labelling pattern of the distinct points of T (the public
  cover H̃ of Bassily et al. 2020 Alg. 3 steps 1–3 = Alon et al. 2019 Alg. 1 steps 1–5) and
  ``patterns(H, T)`` to project any hypothesis onto the cover.

Classes (VC / dual VC from the spec table): point functions (1/1), thresholds (1/1) and intervals
(2/2) on ``[N]`` or [0,1], decision stumps on {±1}^p (⌊log2 p⌋/p), axis-aligned rectangles on
``[N1]×[N2]`` (4/4), halfspaces ``1[<u,x> ≥ b]`` with a fixed direction set in R^k.
"""
from __future__ import annotations

import math

import numpy as np

from .distributions import FiniteDistribution, Mixture01, ProductSigns

_CHUNK = 1 << 22  # max elements of one (k, n) prediction block


def _rows(H, width: int, dtype=None) -> np.ndarray:
    H = np.asarray(H, dtype=dtype)
    if H.ndim == 1 and width == 1 and H.size != 1:
        H = H[:, None]
    H = np.atleast_2d(H)
    if H.shape[-1] != width:
        raise ValueError(f"hypotheses need {width} parameter(s) per row, got shape {H.shape}; pass a (k, {width}) array")
    return H


class ConceptClass:
    """Base class: generic exact errors by evaluating on a finite support."""

    n_params = 1
    param_dtype = np.int64
    vc_dim: int = 0
    dual_vc_dim: int = 0

    def predict(self, H, X) -> np.ndarray:
        raise NotImplementedError

    def size(self) -> float:
        """|H| (``math.inf`` for classes over [0,1])."""
        raise NotImplementedError

    def as_hypotheses(self, H) -> np.ndarray:
        return _rows(H, self.n_params, self.param_dtype)

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        """Exact dis(h1, h2; D) for row-aligned batches (broadcast one row against many)."""
        if not isinstance(dist, FiniteDistribution):
            raise TypeError(f"{type(self).__name__} has no closed form for {type(dist).__name__}; use a FiniteDistribution")
        h1, h2 = self.as_hypotheses(h1), self.as_hypotheses(h2)
        k = max(len(h1), len(h2))
        h1, h2 = np.broadcast_to(h1, (k, h1.shape[1])), np.broadcast_to(h2, (k, h2.shape[1]))
        out = np.empty(k)
        step = max(1, _CHUNK // max(1, len(dist)))
        for s in range(0, k, step):
            diff = self.predict(h1[s:s + step], dist.points) != self.predict(h2[s:s + step], dist.points)
            out[s:s + step] = dist.mass(diff)
        return out

    def error(self, h, target, dist, noise: float = 0.0) -> np.ndarray:
        """err(h; D_η) = η + (1 − 2η)·dis(h, c; D) for labels c(x) flipped independently w.p. η."""
        if not 0.0 <= noise < 0.5:
            raise ValueError(f"label noise must be in [0, 0.5), got {noise}; pass a flip probability below 1/2")
        return noise + (1.0 - 2.0 * noise) * self.disagreement(h, target, dist)

    def sample(self, target, dist, n: int, rng: np.random.Generator, noise: float = 0.0):
        """n labelled examples (X, y): X ∼ D, y = c(x) XOR Ber(η)."""
        X = dist.sample(n, rng)
        y = self.predict(self.as_hypotheses(target)[:1], X)[0]
        if noise > 0:
            y = y ^ (rng.random(len(y)) < noise)
        return X, y

    def mistakes(self, H, X, y) -> np.ndarray:
        """#{i : h(x_i) ≠ y_i} for each row of H (chunked, never a full |H|×|X| matrix at once)."""
        H, y = self.as_hypotheses(H), np.asarray(y, dtype=bool)
        out = np.empty(len(H), dtype=np.int64)
        step = max(1, _CHUNK // max(1, len(y)))
        for s in range(0, len(H), step):
            out[s:s + step] = (self.predict(H[s:s + step], X) != y).sum(axis=1)
        return out

    def patterns(self, H, T) -> list[bytes]:
        """Labelling pattern of each hypothesis on the points T, packed as bytes (a dict key)."""
        H = self.as_hypotheses(H)
        out = []
        step = max(1, _CHUNK // max(1, len(T)))
        for s in range(0, len(H), step):
            out.extend(row.tobytes() for row in np.packbits(self.predict(H[s:s + step], T), axis=1))
        return out

    def cover(self, T, rule: str = "left", rng: np.random.Generator | None = None) -> np.ndarray:
        """H̃: one hypothesis per pattern in Π_H(distinct T), chosen without looking at private data."""
        raise NotImplementedError

    @staticmethod
    def _distinct(T) -> np.ndarray:
        T = np.asarray(T)
        return np.unique(T, axis=0) if T.ndim > 1 else np.unique(T)


def _gap_points(xs: np.ndarray, lo, hi, rule: str, rng, integer: bool) -> np.ndarray:
    """One threshold t per gap of the sorted distinct points xs: t ∈ (xs[i−1], xs[i]] (t ≤ xs[0], t > xs[-1] at the ends).

    ``1[x < t]`` is constant on each gap, so these m̂+1 thresholds realise every pattern on xs.
    rule: "left" (smallest admissible t), "mid" (midpoint) or "random" (uniform in the gap).
    """
    lefts = np.concatenate([[lo], xs + (1 if integer else 0)])  # smallest t of each gap (grid) / open left end
    rights = np.concatenate([xs, [hi]])                           # largest t of each gap (closed right end)
    if rule == "left":
        return lefts if integer else np.concatenate([[lo], np.nextafter(xs, np.inf)])
    if rule == "mid":
        mid = (lefts + rights) / 2
        return np.floor(mid).astype(lefts.dtype) if integer else mid
    if rule == "random":
        if rng is None:
            raise ValueError("rule='random' needs rng; pass a numpy Generator")
        if integer:
            return rng.integers(lefts, rights + 1)
        return rights - (rights - lefts) * rng.random(len(lefts))  # uniform on (left, right]
    raise ValueError(f"unknown cover rule {rule!r}; use 'left', 'mid' or 'random'")


class PointFunctions(ConceptClass):
    """POINT_d on [T] = {0..T−1}: c_j(x) = 1[x = j] (Beimel et al. 2014 §3, VC 1).  T = 2^d ≤ 2^62."""

    vc_dim = dual_vc_dim = 1

    def __init__(self, T: int):
        if not 2 <= int(T) <= 2**62:
            raise ValueError(f"T must be in [2, 2^62], got {T}; pass the grid size 2^d with d ≤ 62")
        self.T = int(T)

    @classmethod
    def from_bits(cls, d: int) -> "PointFunctions":
        return cls(2 ** int(d))

    def size(self) -> int:
        return self.T

    def predict(self, H, X) -> np.ndarray:
        H = self.as_hypotheses(H)
        return H[:, :1] == np.asarray(X)[None, :]

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        """dis(c_i, c_j) = D(i) + D(j) for i ≠ j (exact, O(k log |support|))."""
        if not isinstance(dist, FiniteDistribution):
            raise TypeError("PointFunctions needs a FiniteDistribution on [T]")
        i, j = self.as_hypotheses(h1)[:, 0], self.as_hypotheses(h2)[:, 0]
        point_mass = lambda a: dist.prob_below(a + 1) - dist.prob_below(a)  # noqa: E731
        return np.where(i == j, 0.0, point_mass(i) + point_mass(j))

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        """Every distinct public point, plus one point outside T (the all-zero pattern) if any."""
        xs = self._distinct(T)
        taken = set(xs.tolist())
        outside = next(c for c in range(len(xs) + 1) if c not in taken)
        reps = xs if outside >= self.T else np.append(xs, outside)
        return reps[:, None].astype(np.int64)


class Thresholds(ConceptClass):
    """c_t(x) = 1[x < t]: on the grid [N] t ∈ {0..N} (= INTERVAL_d of Beimel et al. Def 5.1 with
    N = 2^d, N+1 hypotheses) or on [0,1] with t ∈ [0,1] (``N=None``).  VC 1, dual VC 1."""

    vc_dim = dual_vc_dim = 1

    def __init__(self, N: int | None):
        if N is not None and int(N) < 1:
            raise ValueError(f"N must be ≥ 1 or None (for [0,1]), got {N}; pass the grid size")
        self.N = None if N is None else int(N)
        self.param_dtype = float if N is None else np.int64

    def size(self) -> float:
        return math.inf if self.N is None else self.N + 1

    @property
    def _lo_hi(self):
        return (0.0, 1.0) if self.N is None else (0, self.N)

    def predict(self, H, X) -> np.ndarray:
        return np.asarray(X)[None, :] < self.as_hypotheses(H)[:, :1]

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        """dis(t, t') = P[min(t,t') ≤ X < max(t,t')] = |F(t) − F(t')|, F(t) = P[X < t]."""
        a, b = self.as_hypotheses(h1)[:, 0], self.as_hypotheses(h2)[:, 0]
        return np.abs(np.asarray(dist.prob_below(a)) - np.asarray(dist.prob_below(b)))

    def mistakes(self, H, X, y) -> np.ndarray:
        """Sorted prefix sums: mistakes(t) = #{x<t, y=0} + #{x≥t, y=1}; O((n + k) log n)."""
        t = self.as_hypotheses(H)[:, 0]
        order = np.argsort(X, kind="stable")
        xs, ys = np.asarray(X)[order], np.asarray(y, dtype=bool)[order]
        zeros_before = np.concatenate([[0], np.cumsum(~ys)])
        ones_before = np.concatenate([[0], np.cumsum(ys)])
        k = np.searchsorted(xs, t, side="left")
        return zeros_before[k] + (ones_before[-1] - ones_before[k])

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        lo, hi = self._lo_hi
        ts = _gap_points(self._distinct(T), lo, hi, rule, rng, integer=self.N is not None)
        return ts[:, None].astype(self.param_dtype)


class Intervals(ConceptClass):
    """c_{a,b}(x) = 1[a ≤ x < b], a ≤ b, on [N] (a, b ∈ {0..N}) or [0,1] (``N=None``); VC 2."""

    n_params = 2
    vc_dim = dual_vc_dim = 2

    def __init__(self, N: int | None):
        self._thr = Thresholds(N)
        self.N, self.param_dtype = self._thr.N, self._thr.param_dtype

    def size(self) -> float:
        return math.inf if self.N is None else (self.N + 1) * (self.N + 2) // 2

    def predict(self, H, X) -> np.ndarray:
        H = self.as_hypotheses(H)
        X = np.asarray(X)[None, :]
        return (X >= H[:, :1]) & (X < H[:, 1:2])

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        """D(I Δ I') = D(I) + D(I') − 2·D(I ∩ I') with D([a,b)) = F(b) − F(a)."""
        h1, h2 = self.as_hypotheses(h1), self.as_hypotheses(h2)
        F = lambda t: np.asarray(dist.prob_below(t), dtype=float)  # noqa: E731
        m = lambda a, b: np.where(b > a, F(b) - F(a), 0.0)  # noqa: E731
        lo, hi = np.maximum(h1[:, 0], h2[:, 0]), np.minimum(h1[:, 1], h2[:, 1])
        return m(h1[:, 0], h1[:, 1]) + m(h2[:, 0], h2[:, 1]) - 2.0 * m(lo, hi)

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        """Pairs of gap thresholds a < b (every non-empty contiguous run) plus one empty interval."""
        g = self._thr.cover(T, rule, rng)[:, 0]
        i, j = np.triu_indices(len(g), k=1)
        pairs = np.stack([g[i], g[j]], axis=1)
        return np.vstack([pairs, [[g[0], g[0]]]]).astype(self.param_dtype)


class DecisionStumps(ConceptClass):
    """S_p = {h_i(x) = x_i} on {±1}^p (Bassily et al. 2020, Def 12), labels 1[x_i = +1]."""

    def __init__(self, p: int):
        if int(p) < 1:
            raise ValueError(f"p must be ≥ 1, got {p}; pass the cube dimension")
        self.p = int(p)
        self.vc_dim, self.dual_vc_dim = int(math.floor(math.log2(self.p))), self.p

    def size(self) -> int:
        return self.p

    def predict(self, H, X) -> np.ndarray:
        i = self.as_hypotheses(H)[:, 0]
        return (np.asarray(X)[:, i] > 0).T

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        if isinstance(dist, ProductSigns):
            return dist.prob_disagree(self.as_hypotheses(h1)[:, 0], self.as_hypotheses(h2)[:, 0])
        return super().disagreement(h1, h2, dist)

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        """One coordinate per distinct column of T (|Π_S(T)| ≤ min(p, 2^m̂))."""
        T = np.asarray(T)
        _, first = np.unique(T.T, axis=0, return_index=True)
        return np.sort(first)[:, None].astype(np.int64)


class Rectangles(ConceptClass):
    """Axis-aligned rectangles [a1,b1)×[a2,b2) on [N1]×[N2] (VC 4); empty when a ≥ b."""

    n_params = 4
    vc_dim = dual_vc_dim = 4

    def __init__(self, N1: int, N2: int):
        if int(N1) < 1 or int(N2) < 1:
            raise ValueError(f"grid sides must be ≥ 1, got {N1}×{N2}; pass positive sizes")
        self.N1, self.N2 = int(N1), int(N2)
        self._sat_cache: dict[int, np.ndarray] = {}

    def size(self) -> int:
        return ((self.N1 + 1) * (self.N1 + 2) // 2) * ((self.N2 + 1) * (self.N2 + 2) // 2)

    def predict(self, H, X) -> np.ndarray:
        H, X = self.as_hypotheses(H), np.asarray(X)
        x1, x2 = X[None, :, 0], X[None, :, 1]
        return (x1 >= H[:, :1]) & (x1 < H[:, 1:2]) & (x2 >= H[:, 2:3]) & (x2 < H[:, 3:4])

    def _sat(self, dist: FiniteDistribution) -> np.ndarray:
        """Summed-area table S[i, j] = D([0,i)×[0,j))."""
        key = id(dist)
        if key not in self._sat_cache:
            grid = np.zeros((self.N1, self.N2))
            np.add.at(grid, (dist.points[:, 0], dist.points[:, 1]), dist.probs)
            sat = np.zeros((self.N1 + 1, self.N2 + 1))
            sat[1:, 1:] = grid.cumsum(0).cumsum(1)
            self._sat_cache = {key: sat}
        return self._sat_cache[key]

    def box_mass(self, H, dist: FiniteDistribution) -> np.ndarray:
        H, S = self.as_hypotheses(H), self._sat(dist)
        a1, b1 = H[:, 0], np.maximum(H[:, 0], H[:, 1])
        a2, b2 = H[:, 2], np.maximum(H[:, 2], H[:, 3])
        return S[b1, b2] - S[a1, b2] - S[b1, a2] + S[a1, a2]

    def disagreement(self, h1, h2, dist) -> np.ndarray:
        h1, h2 = self.as_hypotheses(h1), self.as_hypotheses(h2)
        inter = np.stack([np.maximum(h1[:, 0], h2[:, 0]), np.minimum(h1[:, 1], h2[:, 1]),
                          np.maximum(h1[:, 2], h2[:, 2]), np.minimum(h1[:, 3], h2[:, 3])], axis=1)
        return self.box_mass(h1, dist) + self.box_mass(h2, dist) - 2.0 * self.box_mass(inter, dist)

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        """Products of 1-D interval covers on each axis, deduplicated by pattern on T."""
        T = self._distinct(T)
        ix = Intervals(self.N1).cover(T[:, 0], rule, rng)
        iy = Intervals(self.N2).cover(T[:, 1], rule, rng)
        cand = np.hstack([np.repeat(ix, len(iy), axis=0), np.tile(iy, (len(ix), 1))])
        _, keep = np.unique(np.asarray(self.patterns(cand, T)), return_index=True)
        return cand[np.sort(keep)]


class Halfspaces(ConceptClass):
    """h_{u,b}(x) = 1[<u, x> ≥ b] with u from a fixed direction set U ⊂ R^k; row = (dir index, b).

    For one direction this is a threshold on the projection, so per-direction covers are gap
    points; VC ≤ k + 1 (affine halfspaces), dual VC ≤ k.
    """

    n_params = 2
    param_dtype = float

    def __init__(self, directions):
        U = np.atleast_2d(np.asarray(directions, dtype=float))
        if U.ndim != 2 or len(U) == 0:
            raise ValueError("directions must be a non-empty (m, k) array; pass one direction per row")
        self.U = U
        self.vc_dim, self.dual_vc_dim = U.shape[1] + 1, U.shape[1]

    def size(self) -> float:
        return math.inf

    def predict(self, H, X) -> np.ndarray:
        H = self.as_hypotheses(H)
        proj = np.asarray(X, dtype=float) @ self.U[H[:, 0].astype(int)].T  # (n, k)
        return proj.T >= H[:, 1:2]

    def cover(self, T, rule="left", rng=None) -> np.ndarray:
        """Per direction: offsets at the projected public points (plus +inf), deduplicated by pattern."""
        T = self._distinct(T)
        rows = []
        for u in range(len(self.U)):
            z = np.unique(T @ self.U[u])
            rows.append(np.column_stack([np.full(len(z) + 1, u), np.append(z, np.inf)]))
        cand = np.vstack(rows)
        _, keep = np.unique(np.asarray(self.patterns(cand, T)), return_index=True)
        return cand[np.sort(keep)]


__all__ = ["ConceptClass", "PointFunctions", "Thresholds", "Intervals", "DecisionStumps", "Rectangles",
           "Halfspaces", "FiniteDistribution", "Mixture01", "ProductSigns"]
