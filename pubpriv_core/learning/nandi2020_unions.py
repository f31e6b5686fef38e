"""Nandi & Bassily (ALT 2020) on unions of K intervals in [0, 1) (VC dimension d = 2K).

The workload of :mod:`nandi2020` with a class of larger VC dimension: x ∼ U[0, 1), y = h*(x) xor
Ber(η) where h* is a union of K disjoint intervals, so γ = η.  The pieces of A_AgPrivCl (Alg. 3)
and of the BTT18 baseline that depend on the class are rebuilt here; the sparse-vector part
(A_SubSamp Steps 6–11, Alg. 6) is :func:`nandi2020.subsamp_answer_counts`, unchanged.

* :func:`relabel_union` — A_Relabel (Alg. 2): the exponential mechanism at ε̃ over Π_H(S'_u), the
  labellings of the sorted points with at most K runs of ones, P ∝ exp(−ε̃·mistakes/2).  The weight
  is a product over points, so the law is sampled exactly by forward filtering / backward sampling
  over the states (runs opened, current label) — O(n'·K) time, O(n'/C·K) memory with checkpoints
  every C points.
* :func:`consistent_union_votes` — B_PAC on the relabelled chunks: each chunk's positive runs (in x
  order) become intervals reaching half-way to the neighbouring negatives; ct(1) at a query is the
  number of chunk intervals containing it.
* :func:`erm_union_votes` — BTT18's agnostic chunk learners: per chunk the minimum-mistake
  labelling with ≤ K runs of ones (Viterbi over the sorted chunk).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from .nandi2020 import AgPrivClParams, PCQRRun, SubSampParams, btt18_T, scaled_cumsum, subsamp_answer_counts

_BLOCK = 1 << 16  # points per checkpoint of the relabelling DP


@dataclass(frozen=True)
class NoisyUnion:
    """D over [0,1) × {0,1}: x ∼ U[0,1), y = 1[x ∈ ∪_j [e_{2j}, e_{2j+1})] xor Ber(η); γ = η."""

    edges: tuple
    eta: float = 0.0

    def __post_init__(self):
        e = np.asarray(self.edges, dtype=float)
        if e.size == 0 or e.size % 2 or np.any(np.diff(e) <= 0) or e[0] <= 0 or e[-1] >= 1:
            raise ValueError(f"edges must be an even number of increasing points in (0, 1), got {self.edges}; "
                             "pass the K intervals' endpoints in order")
        if not 0.0 <= self.eta < 0.5:
            raise ValueError(f"eta must be in [0, 0.5), got {self.eta}; pass a label-noise rate below 1/2")

    @classmethod
    def spaced(cls, K: int, eta: float) -> "NoisyUnion":
        """K intervals of length 1/(2K+1) with gaps of the same length: edges (1..2K)/(2K+1)."""
        return cls(tuple(np.arange(1, 2 * int(K) + 1) / (2 * int(K) + 1)), eta)

    @property
    def K(self) -> int:
        return len(self.edges) // 2

    @property
    def vc_dim(self) -> int:
        return 2 * self.K

    @property
    def gamma(self) -> float:
        return self.eta

    def target(self, x: np.ndarray) -> np.ndarray:
        """h*(x): inside an interval iff an odd number of edges are ≤ x."""
        return (np.searchsorted(np.asarray(self.edges), x, side="right") % 2).astype(np.int8)

    def labels(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """h*(x) xor Ber(η), one ``rng.random()`` per entry in C order (compiled; the draws of
        ``rng.random(x.shape) < η``)."""
        x = np.asarray(x, dtype=float)
        flat = np.ascontiguousarray(x).ravel()
        return _union_labels(flat, np.asarray(self.edges, dtype=float), self.eta, rng).reshape(x.shape)

    def sample_sorted(self, n: int, rng: np.random.Generator):
        """n labelled draws with x increasing (normalised exponential spacings, no sort)."""
        gaps = rng.standard_exponential(int(n) + 1)
        x = scaled_cumsum(gaps, gaps.sum())
        return x, self.labels(x, rng)


@numba.njit(cache=True)
def _union_labels(x, edges, eta, rng):
    out = np.empty(x.size, np.int8)
    for i in range(x.size):
        out[i] = (np.searchsorted(edges, x[i], side="right") % 2) ^ (rng.random() < eta)
    return out


# --------------------------------------------------------------------------- relabelling (Alg. 2)
@numba.njit(cache=True)
def _forward(y, K, a, start):
    """Normalised forward messages of the ≤K-runs chain over points y[0..n) from state ``start``;
    returns the message after every point (rows 1..n; row 0 = start)."""
    S = 2 * (K + 1)
    n = len(y)
    out = np.zeros((n + 1, S))
    out[0] = start
    miss = math.exp(-a)
    for i in range(n):
        prev = out[i]
        cur = out[i + 1]
        w0 = 1.0 if y[i] == 0 else miss
        w1 = 1.0 if y[i] == 1 else miss
        tot = 0.0
        for j in range(K + 1):
            cur[2 * j] = (prev[2 * j] + prev[2 * j + 1]) * w0
            v = prev[2 * j + 1]
            if j >= 1:
                v += prev[2 * (j - 1)]
            cur[2 * j + 1] = v * w1
            tot += cur[2 * j] + cur[2 * j + 1]
        for s in range(S):
            cur[s] /= tot
    return out


@numba.njit(cache=True)
def _backward(msgs, end_state, u, labels):
    """Sample labels of a block backwards given its forward messages and the state after its last
    point; returns the state before its first point.  u: one uniform per point."""
    s = end_state
    n = msgs.shape[0] - 1
    for i in range(n - 1, -1, -1):
        b = s % 2
        j = s // 2
        labels[i] = b
        prev = msgs[i]
        if b == 0:
            w_a, w_b, a_state, b_state = prev[2 * j], prev[2 * j + 1], 2 * j, 2 * j + 1
        else:
            w_a = prev[2 * j + 1]
            w_b = prev[2 * (j - 1)] if j >= 1 else 0.0
            a_state, b_state = 2 * j + 1, 2 * (j - 1)
        s = a_state if u[i] * (w_a + w_b) < w_a else b_state
    return s


def relabel_union(y_sorted: np.ndarray, K: int, rng: np.random.Generator, eps_tilde: float = 1.0) -> np.ndarray:
    """A_Relabel (Alg. 2) for unions of ≤ K intervals on points sorted by x: one labelling drawn
    with P(l) ∝ exp(−ε̃·#{i : l_i ≠ y_i}/2) among all labellings with at most K runs of ones
    (= Π_H(S'_u) for distinct points).  Exact; returns the labels (int8)."""
    if not eps_tilde > 0 or int(K) < 1:
        raise ValueError(f"need eps_tilde > 0 and K >= 1, got {eps_tilde}, {K}; pass a budget and a class size")
    y = np.asarray(y_sorted, dtype=np.int8)
    n, S = len(y), 2 * (int(K) + 1)
    state = np.zeros(S)
    state[0] = 1.0
    starts = []
    for b in range(0, n, _BLOCK):
        starts.append(state)
        state = _forward(y[b:b + _BLOCK], int(K), eps_tilde / 2, state)[-1]
    s = int(np.searchsorted(np.cumsum(state) / state.sum(), rng.random(), side="right"))
    labels = np.empty(n, dtype=np.int8)
    for c in range(len(starts) - 1, -1, -1):
        b = c * _BLOCK
        msgs = _forward(y[b:b + _BLOCK], int(K), eps_tilde / 2, starts[c])
        s = _backward(msgs, s, rng.random(len(msgs) - 1), labels[b:b + _BLOCK])
    return labels


# --------------------------------------------------------------------------- chunk learners
def _run_intervals(xs: np.ndarray, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Interval endpoints of the positive runs of each row (rows sorted by x), reaching half-way
    to the neighbouring points (0 and 1 at the row ends): flat arrays of starts and ends."""
    k, s = lab.shape
    one = lab.astype(bool)
    prev = np.concatenate([np.zeros((k, 1), bool), one[:, :-1]], axis=1)
    nxt = np.concatenate([one[:, 1:], np.zeros((k, 1), bool)], axis=1)
    padded = np.concatenate([np.zeros((k, 1)), xs, np.ones((k, 1))], axis=1)
    r, c = np.nonzero(one & ~prev)
    starts = np.where(c == 0, 0.0, 0.5 * (padded[r, c] + padded[r, c + 1]))
    r, c = np.nonzero(one & ~nxt)
    ends = np.where(c == s - 1, 1.0, 0.5 * (padded[r, c + 1] + padded[r, c + 2]))
    return starts, ends


def _votes(starts: np.ndarray, ends: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """ct(1) per query: chunk intervals [a, b) containing it (a chunk's intervals are disjoint)."""
    return (np.searchsorted(np.sort(starts), queries, side="right")
            - np.searchsorted(np.sort(ends), queries, side="right"))


@numba.njit(cache=True)
def _sorted_chunk_runs(cum, n, labels, x):
    """Chunk intervals from sorted index rows: row r's indices are ⌊n·cum[r, i]/cum[r, −1]⌋ for
    i < s (sorted uniform draws with replacement); its positive runs in x order become intervals
    reaching half-way to the neighbouring points (0 and 1 at the row ends)."""
    k, s1 = cum.shape
    s = s1 - 1
    starts = np.empty(k * ((s + 1) // 2))
    ends = np.empty(k * ((s + 1) // 2))
    c = 0
    idx = np.empty(s, np.int64)
    for r in range(k):
        for i in range(s):
            idx[i] = min(int(n * cum[r, i] / cum[r, s]), n - 1)
        for i in range(s):
            if labels[idx[i]] == 1 and (i == 0 or labels[idx[i - 1]] == 0):
                starts[c] = 0.0 if i == 0 else 0.5 * (x[idx[i - 1]] + x[idx[i]])
                j = i
                while j + 1 < s and labels[idx[j + 1]] == 1:
                    j += 1
                ends[c] = 1.0 if j == s - 1 else 0.5 * (x[idx[j]] + x[idx[j + 1]])
                c += 1
    return starts[:c], ends[:c]


def consistent_union_votes(chunks: int, chunk_size: int, labels: np.ndarray, x_sorted: np.ndarray,
                           queries: np.ndarray, rng: np.random.Generator, rows: int = 4096) -> np.ndarray:
    """B_PAC on realizable chunks of Ŝ: each chunk is ``chunk_size`` uniform draws with replacement
    from the relabelled S'' (x sorted), generated already sorted (normalised exponential spacings,
    ``rows`` chunks at a time); its learner returns its positive runs as intervals (consistent:
    ≤ K runs since ``labels`` has ≤ K).  Returns ct(1) at every query."""
    starts, ends = [], []
    for r in range(0, chunks, rows):
        cum = np.cumsum(rng.standard_exponential((min(rows, chunks - r), chunk_size + 1)), axis=1)
        a, b = _sorted_chunk_runs(cum, len(x_sorted), labels, x_sorted)
        starts.append(a)
        ends.append(b)
    return _votes(np.concatenate(starts), np.concatenate(ends), queries)


@numba.njit(cache=True)
def _viterbi_rows(y, K):
    """Per row of y (k, s): a minimum-mistake labelling with ≤ K runs of ones (ties: fewest runs,
    label 0 first)."""
    k, s = y.shape
    S = 2 * (K + 1)
    out = np.zeros((k, s), np.int8)
    cost = np.empty(S)
    new = np.empty(S)
    back = np.empty((s, S), np.int64)
    big = 1 << 40
    for r in range(k):
        for t in range(S):
            cost[t] = big
        cost[0] = 0
        for i in range(s):
            m0 = 1 if y[r, i] != 0 else 0
            m1 = 1 - m0
            for j in range(K + 1):
                a, b = cost[2 * j], cost[2 * j + 1]
                new[2 * j] = min(a, b) + m0
                back[i, 2 * j] = 2 * j if a <= b else 2 * j + 1
                c = cost[2 * j + 1]
                p = 2 * j + 1
                if j >= 1 and cost[2 * (j - 1)] < c:
                    c = cost[2 * (j - 1)]
                    p = 2 * (j - 1)
                new[2 * j + 1] = c + m1
                back[i, 2 * j + 1] = p
            for t in range(S):
                cost[t] = new[t]
        best = 0
        for t in range(S):
            if cost[t] < cost[best]:
                best = t
        for i in range(s - 1, -1, -1):
            out[r, i] = best % 2
            best = back[i, best]
    return out


def erm_union_votes(x: np.ndarray, y: np.ndarray, K: int, queries: np.ndarray) -> np.ndarray:
    """BTT18's agnostic chunk learners: row r of (x, y) is one chunk; its ERM over unions of ≤ K
    intervals (as runs of the sorted chunk).  Returns ct(1) at every query."""
    order = np.argsort(x, axis=1)
    xs = np.take_along_axis(x, order, axis=1)
    ys = np.take_along_axis(np.asarray(y, np.int8), order, axis=1)
    return _votes(*_run_intervals(xs, _viterbi_rows(ys, int(K))), queries)


# --------------------------------------------------------------------------- algorithms
def _score(task: NoisyUnion, queries, truth, labels) -> tuple[float, float]:
    mismatch = np.mean(labels != task.target(queries))
    return float(np.mean(labels != truth)), task.eta + (1 - 2 * task.eta) * float(mismatch)


def ag_priv_cl_union(task: NoisyUnion, chunks: int, chunk_size: int, params: AgPrivClParams,
                     rng: np.random.Generator) -> PCQRRun:
    """A_AgPrivCl (Alg. 3) on unions of K intervals in budget-preserving scaled mode with a fixed
    number of chunks: n' = chunks·chunk_size, S' ∼ D^{n'}, S'' = A_Relabel(S'), Ŝ = n' draws with
    replacement from S'', chunk learners on rows of Ŝ, A_SubSamp at (ε̂, δ̂) with the paper's
    T, λ, w.  The reported n is 56·n'/ε."""
    if chunks < 1 or chunk_size < 1:
        raise ValueError(f"need chunks >= 1 and chunk_size >= 1, got {chunks}, {chunk_size}; pass positive sizes")
    n_prime = chunks * chunk_size
    x, y = task.sample_sorted(n_prime, rng)
    labels = relabel_union(y, task.K, rng)
    queries = rng.random(params.m)
    truth = task.labels(queries, rng)
    ct1 = consistent_union_votes(chunks, chunk_size, labels, x, queries, rng)
    sp = params.subsamp
    out = subsamp_answer_counts(ct1, chunks, sp.T, sp.lam, sp.w, rng)
    err, exp_err = _score(task, queries, truth, out.labels)
    return PCQRRun(params.n_from_prime(n_prime), err, exp_err, float(out.bottom.mean()), out.c, sp.T,
                   out.halted, {"k": chunks, "s": chunk_size, "lam": sp.lam, "w": sp.w, "n_prime": n_prime,
                                "relabel_mismatch": float(np.mean(labels != task.target(x))),
                                "answered": out.answered})


def btt18_union(task: NoisyUnion, chunks: int, chunk_size: int, m: int, eps: float, delta: float,
                alpha: float, beta: float, rng: np.random.Generator) -> PCQRRun:
    """BTT18 baseline on unions of K intervals: A_SubSamp directly on the agnostic S ∼ D^n at
    (ε, δ), n = chunks·chunk_size, ERM chunk learners, T from :func:`nandi2020.btt18_T`."""
    if chunks < 1 or chunk_size < 1:
        raise ValueError(f"need chunks >= 1 and chunk_size >= 1, got {chunks}, {chunk_size}; pass positive sizes")
    x = rng.random((chunks, chunk_size))
    y = task.labels(x, rng)
    sp = SubSampParams(m, btt18_T(m, alpha, task.gamma, beta), eps, delta, beta)
    queries = rng.random(m)
    truth = task.labels(queries, rng)
    out = subsamp_answer_counts(erm_union_votes(x, y, task.K, queries), chunks, sp.T, sp.lam, sp.w, rng)
    err, exp_err = _score(task, queries, truth, out.labels)
    return PCQRRun(chunks * chunk_size, err, exp_err, float(out.bottom.mean()), out.c, sp.T, out.halted,
                   {"k": chunks, "s": chunk_size, "lam": sp.lam, "w": sp.w, "answered": out.answered})
