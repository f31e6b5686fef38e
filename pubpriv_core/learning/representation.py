"""α-representations of POINT_d (Beimel, Brenner, Kasiviswanathan & Nissim 2014, Def 3.1, §3–4).

A hypothesis class H α-represents a concept class C if for every c ∈ C and every distribution D
there is h ∈ H with error_D(c, h) ≤ α (Def 3.1). For a finite H, given as a 0/1 table (|H| rows ×
T domain points), the worst distribution for a concept c is the maximiser of a zero-sum game,

    v(c) = max_D min_{h∈H} Σ_x D(x)·1[h(x) ≠ c(x)],

a linear program (maximise v subject to M D ≥ v·1, Σ D = 1, D ≥ 0, with M[h, x] = 1[h(x) ≠ c(x)]),
so H α-represents C exactly when max_c v(c) ≤ α. This module computes v for the point concepts
c_j(x) = 1[x = j], builds the projective-plane class of §4 (T = q² + q + 1 points and lines; the q+1
lines through a point are otherwise disjoint, so v(c_j) ≤ 1/(q+1)), and exhibits Lemma 3.10's
witness: with |H| < log2 T two columns of the table coincide, and the distribution with mass ½ on
those two points makes every hypothesis err by ≥ ½ on the point concept of either.
"""
from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog


def point_game_value(table: np.ndarray, j: int) -> float:
    """v(c_j) = max_D min_h error_D(c_j, h) for the hypotheses in the rows of ``table``."""
    table = np.asarray(table, dtype=bool)
    target = np.zeros(table.shape[1], dtype=bool)
    target[j] = True
    mistakes = (table != target).astype(float)                 # M[h, x]
    n_hyp, n_points = mistakes.shape
    # variables (D_1..D_T, v); maximise v ⇔ minimise −v
    cost = np.zeros(n_points + 1)
    cost[-1] = -1.0
    upper = np.hstack([-mistakes, np.ones((n_hyp, 1))])         # v − M D ≤ 0
    equal = np.hstack([np.ones((1, n_points)), np.zeros((1, 1))])
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(n_hyp), A_eq=equal, b_eq=[1.0],
                     bounds=[(0, None)] * n_points + [(None, None)], method="highs")
    if result.status != 0:
        raise RuntimeError(f"representation LP failed: {result.message}")
    return float(-result.fun)


def representation_alpha(table: np.ndarray) -> float:
    """The smallest α for which ``table`` α-represents POINT on its columns: max_j v(c_j)."""
    return max(point_game_value(table, j) for j in range(np.asarray(table).shape[1]))


def projective_plane(q: int) -> np.ndarray:
    """Line–point incidence table of the projective plane PG(2, q) for a prime q.

    Points and lines are the q² + q + 1 normalised non-zero triples over GF(q) (first non-zero
    coordinate 1); point p lies on line l iff ⟨l, p⟩ ≡ 0 (mod q).
    """
    if q < 2 or any(q % f == 0 for f in range(2, int(q ** 0.5) + 1)):
        raise ValueError(f"q must be a prime, got {q}; prime powers need GF(q) arithmetic")
    triples = np.array([t for t in itertools.product(range(q), repeat=3)
                        if any(t) and t[next(i for i, v in enumerate(t) if v)] == 1])
    return (triples @ triples.T) % q == 0


def lemma_3_10_witness(table: np.ndarray) -> tuple[int, int] | None:
    """Two points every hypothesis labels alike (exists when 2^|H| < T), or None."""
    columns = {}
    for x, column in enumerate(np.asarray(table, dtype=bool).T):
        key = column.tobytes()
        if key in columns:
            return columns[key], x
        columns[key] = x
    return None
