"""Nandi & Bassily (ALT 2020): privately answering classification queries, agnostic PAC.

Workload W1 of the spec: one-sided thresholds h_t(x) = 1[x ≥ t] on [0, 1] (VC = 1), features
x ∼ U[0, 1), labels y = 1[x ≥ t*] flipped independently with probability η, so γ = min_H err = η
and err(h_t; D) = η + (1 − 2η)·|t − t*| exactly.

Algorithms (paper numbering):
- A_Relabel (Alg. 2, LabelBoost of BNS15): exponential mechanism at ε̃ = 1 over the n'+1
  dichotomies of S'_u, then S'' = S'_u labelled by ĥ.
- A_SubSamp (Alg. 5, BTT18): k chunk learners, majority vote, distance-to-instability test
  (Alg. 6) inside sparse vector with cut-off T; λ = √(32·T·log(2/δ))/ε, w = 2λ·log(2m/δ).
- A_AgPrivCl (Alg. 3): n' = εn/56, T, ε', ε̂, δ̂ of Step 1, Relabel → resample → SubSamp.
- A_SSPP (Alg. 7, ABM19): exponential mechanism over one threshold per public pattern.
- A_UnvPrivCl (Alg. 4): AgPrivCl on the first m' = min(m_o, m) queries, then A_SSPP with the
  answered queries as public data.

Simulation mode (spec "budget-preserving scaled"): n', T, ε̂, δ̂, λ, w and ε̃ = 1 are exactly the
paper's; only the number of chunks k = ⌊n'/s⌋ is set by a chunk size s (k affects utility, not
privacy: BTT18 Thm 3.1). S' ∼ D^{n'} is drawn directly (a uniform subsample of an i.i.d. S is
i.i.d.) and the reported private sample size is n = 56·n'/ε. ⊥ answers and answers after the
sparse-vector halt are uniform random bits (spec 1.3 [harness]).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from pubpriv_core.privacy import exponential_mechanism
from pubpriv_core.privacy.uniform_integers import uniform_integers

# --------------------------------------------------------------------------- workload W1


@dataclass(frozen=True)
class NoisyThreshold:
    """D over [0,1) × {0,1}: x ∼ U[0,1), y = 1[x ≥ t*] xor Ber(η); γ = η for thresholds."""

    t_star: float = 0.5
    eta: float = 0.0

    def __post_init__(self):
        if not 0.0 <= self.t_star <= 1.0:
            raise ValueError(f"t_star must be in [0, 1], got {self.t_star}; pick a threshold in the unit interval")
        if not 0.0 <= self.eta < 0.5:
            raise ValueError(f"eta must be in [0, 0.5), got {self.eta}; pass a label-noise rate below 1/2")

    @property
    def gamma(self) -> float:
        """min_h err(h; D) = η (attained at t = t*)."""
        return self.eta

    def labels(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """1[x ≥ t*] xor Ber(η), one ``rng.random()`` per entry in C order (compiled, the same
        draws as ``rng.random(x.shape) < η``)."""
        x = np.asarray(x, dtype=float)
        return _noisy_labels(np.ascontiguousarray(x).ravel(), self.t_star, self.eta, rng).reshape(x.shape)

    def sample(self, n: int, rng: np.random.Generator, sort: bool = False):
        """n labelled draws; ``sort=True`` returns x increasing (uniform order statistics via
        normalised exponential spacings, O(n) without a sort)."""
        if sort:
            gaps = rng.standard_exponential(n + 1)
            x = scaled_cumsum(gaps, gaps.sum())
        else:
            x = rng.random(n)
        return x, self.labels(x, rng)

    def err(self, t) -> np.ndarray:
        """err(h_t; D) = η + (1 − 2η)|t − t*|."""
        return self.eta + (1 - 2 * self.eta) * np.abs(np.asarray(t, float) - self.t_star)

    def cell_probabilities(self, edges: np.ndarray) -> np.ndarray:
        """P[x ∈ [e_i, e_{i+1}), y = b] for b = 1, 0 as a (cells, 2) array (edges from 0 to 1)."""
        lengths = np.diff(edges)
        right = np.diff(np.clip(edges, self.t_star, 1.0))        # mass of the cell above t*
        pos = self.eta * lengths + (1 - 2 * self.eta) * right
        return np.stack([pos, lengths - pos], axis=1)


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class SubSampParams:
    """Alg. 5 Steps 1–2: λ = √(32·T·log(2/δ))/ε, k = 34√2·λ·log(4mT/min(δ, β/2)),
    w = 2λ·log(2m/δ) (k is the paper-literal chunk count; the scaled mode overrides it)."""

    m: int
    T: float
    eps: float
    delta: float
    beta: float

    @property
    def lam(self) -> float:
        return math.sqrt(32 * self.T * math.log(2 / self.delta)) / self.eps

    @property
    def k_literal(self) -> float:
        return 34 * math.sqrt(2) * self.lam * math.log(4 * self.m * self.T / min(self.delta, self.beta / 2))

    @property
    def w(self) -> float:
        return 2 * self.lam * math.log(2 * self.m / self.delta)


def cutoff_T(m: int, alpha: float, beta: float) -> float:
    """Alg. 3 Step 1: T = max(1, mα/8 + ¼·√(3·mα·log(m/β)))."""
    return max(1.0, m * alpha / 8 + 0.25 * math.sqrt(3 * m * alpha * math.log(m / beta)))


@dataclass(frozen=True)
class AgPrivClParams:
    """Alg. 3 Step 1 (natural logs): n' = εn/56, T, ε' = α·max(1, √(mα)),
    ε̂ = min(1, ε')/log(2/δ), δ̂ = δ/(2·e^{min(1,ε')}·log(2/δ)); A_SubSamp runs at (ε̂, δ̂)."""

    m: int
    eps: float
    delta: float
    alpha: float
    beta: float

    def __post_init__(self):
        if not self.eps > 0:
            raise ValueError(f"eps must be > 0, got {self.eps}; pass a positive privacy budget")
        for name in ("delta", "alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 1:
                raise ValueError(f"{name} must be in (0, 1), got {value}; pass a valid {name}")
        if self.m < 1:
            raise ValueError(f"m must be >= 1, got {self.m}; pass the number of queries")

    @property
    def T(self) -> float:
        return cutoff_T(self.m, self.alpha, self.beta)

    @property
    def eps_prime(self) -> float:
        return self.alpha * max(1.0, math.sqrt(self.m * self.alpha))

    @property
    def eps_hat(self) -> float:
        return min(1.0, self.eps_prime) / math.log(2 / self.delta)

    @property
    def delta_hat(self) -> float:
        e1 = min(1.0, self.eps_prime)
        return self.delta / (2 * math.exp(e1) * math.log(2 / self.delta))

    @property
    def subsamp(self) -> SubSampParams:
        return SubSampParams(self.m, self.T, self.eps_hat, self.delta_hat, self.beta)

    def n_prime(self, n: int) -> int:
        return int(math.floor(self.eps / 56 * n))

    def n_from_prime(self, n_prime: int) -> int:
        return int(math.ceil(56 * n_prime / self.eps))


# --------------------------------------------------------------------------- building blocks


def prefix_mistakes(y_sorted: np.ndarray) -> np.ndarray:
    """Mistakes of t = x_(i) (i = 0..n, i = n meaning 'all zero') on labels sorted by x:
    #{j < i: y_j = 1} + #{j ≥ i: y_j = 0} = 2·#{j < i: y_j = 1} − i + #{y_j = 0}, in one pass."""
    out = np.empty(len(y_sorted) + 1, np.int64)
    _mistakes(np.ascontiguousarray(y_sorted, dtype=np.int8), 1, out)
    return out


@numba.njit(cache=True)
def _mistakes(y, sign, out):
    """out[i] = sign·(mistakes of cut i), written in out's dtype (the exponential mechanism's
    float scores −mistakes, exact: the counts are far below 2^53)."""
    negatives = y.size
    for v in y:
        negatives -= v
    pos = 0
    for i in range(y.size + 1):
        out[i] = sign * (2 * pos - i + negatives)
        if i < y.size:
            pos += y[i]


@numba.njit(cache=True)
def scaled_cumsum(gaps, total):
    """cumsum(gaps[:-1]) / total in one pass (the same sequential sums as ``np.cumsum``)."""
    out = np.empty(gaps.size - 1)
    acc = 0.0
    for i in range(out.size):
        acc += gaps[i]
        out[i] = acc / total
    return out


@numba.njit(cache=True)
def _noisy_labels(x, t_star, eta, rng):
    out = np.empty(x.size, np.int8)
    for i in range(x.size):
        out[i] = (x[i] >= t_star) ^ (rng.random() < eta)
    return out


def relabel_sorted(x_sorted: np.ndarray, y_sorted: np.ndarray, rng: np.random.Generator,
                   eps_tilde: float = 1.0) -> tuple[float, int]:
    """A_Relabel (Alg. 2) on S' sorted by x: one representative per dichotomy of S'_u (cut i ↦
    midpoint between x_(i−1) and x_(i), 0 and 1 at the ends), exponential mechanism with score
    −mistakes (sensitivity 1), P(i) ∝ exp(−ε̃·mistakes_i/2).  Returns (t̂, cut index i)."""
    scores = np.empty(len(y_sorted) + 1)
    _mistakes(np.ascontiguousarray(y_sorted, dtype=np.int8), -1, scores)
    cut = exponential_mechanism(scores, eps_tilde, 1.0, rng)
    return cut_to_threshold(x_sorted, cut), cut


def cut_to_threshold(x_sorted: np.ndarray, cut: int) -> float:
    """Representative threshold of the dichotomy 'first ``cut`` points negative'."""
    if cut == 0:
        return 0.0
    if cut == len(x_sorted):
        return 1.0
    return 0.5 * (x_sorted[cut - 1] + x_sorted[cut])


def consistent_chunk_thresholds(idx: np.ndarray, cut: int, x_sorted: np.ndarray) -> np.ndarray:
    """B_PAC for realizable chunks of Ŝ: Ŝ holds indices into the sorted S'' whose label is
    1[idx ≥ cut]; each row's learner returns the midpoint between its largest negative and its
    smallest positive point (0 / 1 if a side is empty) — a consistent threshold."""
    return _chunk_thresholds(np.ascontiguousarray(idx, dtype=np.int64), int(cut),
                             np.ascontiguousarray(x_sorted, dtype=float))


@numba.njit(cache=True)
def _chunk_thresholds(idx, cut, x_sorted):
    n = x_sorted.size
    out = np.empty(idx.shape[0])
    for r in range(idx.shape[0]):
        lo, hi = -1, n
        for v in idx[r]:
            if v < cut:
                lo = max(lo, v)
            else:
                hi = min(hi, v)
        out[r] = 0.0 if lo < 0 else (1.0 if hi >= n else 0.5 * (x_sorted[lo] + x_sorted[hi]))
    return out


def erm_chunk_thresholds(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """B_PAC for agnostic chunks (BTT18 baseline): per row of (k, s) arrays, the empirical risk
    minimiser among the s+1 dichotomies, represented by the midpoint threshold (leftmost ERM)."""
    return _erm_rows(np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=np.int8))


@numba.njit(cache=True)
def _erm_rows(x, y):
    """Per row: sort by x, mistakes of every cut (first minimum), midpoint threshold."""
    k, s = x.shape
    out = np.empty(k)
    for r in range(k):
        order = np.argsort(x[r])
        negatives = s
        for v in y[r]:
            negatives -= v
        best, cut, pos = negatives, 0, 0       # cut 0: every point negative-side
        for i in range(1, s + 1):
            pos += y[r, order[i - 1]]
            mistakes = 2 * pos - i + negatives
            if mistakes < best:
                best, cut = mistakes, i
        if cut == 0:
            out[r] = 0.0
        elif cut == s:
            out[r] = 1.0
        else:
            out[r] = 0.5 * (x[r, order[cut - 1]] + x[r, order[cut]])
    return out


@dataclass
class SubSampOutput:
    """Labels for the m queries and the sparse-vector trace of A_SubSamp."""

    labels: np.ndarray          # answered label per query (random bit for ⊥ / after halt)
    bottom: np.ndarray          # True where A_stab returned ⊥
    answered: int               # queries processed before the halt (m if no halt)
    c: int                      # number of ⊥ (unstable) answers

    @property
    def halted(self) -> bool:
        return self.answered < len(self.labels)


def subsamp_answer(chunk_t: np.ndarray, queries: np.ndarray, T: float, lam: float, w: float,
                   rng: np.random.Generator) -> SubSampOutput:
    """A_SubSamp Steps 6–11 with A_stab (Alg. 6) at ε_s = 1/(2λ): ct(1) = #{j: t_j ≤ x̃},
    dist = |ct(1) − ct(0)|; answer q̂ if dist + Lap(2λ) > ŵ else ⊥ (c += 1, ŵ ← w + Lap(λ));
    process queries while c ≤ T."""
    ct1 = np.searchsorted(np.sort(chunk_t), queries, side="right")
    return subsamp_answer_counts(ct1, len(chunk_t), T, lam, w, rng)


def subsamp_answer_counts(ct1: np.ndarray, k: int, T: float, lam: float, w: float,
                          rng: np.random.Generator) -> SubSampOutput:
    """:func:`subsamp_answer` given ct(1) per query (chunks voting 1) out of k chunks — the part of
    A_SubSamp that does not depend on the class."""
    m = len(ct1)
    vote = (2 * ct1 > k).astype(np.int8)                      # ties go to 0 (argmax of ct)
    noisy = np.abs(2 * ct1 - k) + rng.laplace(0.0, 2 * lam, m)
    bottom = np.zeros(m, bool)
    i, c = _sparse_vector(noisy, float(T), float(lam), float(w), rng, bottom)
    coin = rng.integers(0, 2, m, dtype=np.int8)
    labels = np.where(bottom | (np.arange(m) >= i), coin, vote)
    return SubSampOutput(labels, bottom, i, c)


@numba.njit(cache=True)
def _sparse_vector(noisy, T, lam, w, rng, bottom):
    """Steps 8–11: from the current query, the first with noisy distance ≤ ŵ = w + Lap(λ) (a
    fresh ŵ after each ⊥) is ⊥; stop after T + 1 ⊥ or at the end. Returns (queries processed,
    ⊥ count); one scan over the queries in all."""
    m, i, c = noisy.size, 0, 0
    while i < m and c <= T:
        w_hat = w + rng.laplace(0.0, lam)
        j = i
        while j < m and not noisy[j] <= w_hat:
            j += 1
        if j == m:
            return m, c
        bottom[j] = True
        i, c = j + 1, c + 1
    return i, c


# --------------------------------------------------------------------------- algorithms


@dataclass
class PCQRRun:
    """One run of a PCQR algorithm on m queries with exact and realised error."""

    n: int                      # private sample size the run certifies (n = 56n'/ε for Alg. 3)
    errors: float               # (1/m)·Σ 1(ŷ_j ≠ ỹ_j), realised labels
    expected_error: float       # same with ỹ integrated out: η + (1−2η)·mismatch with h*
    bottom_fraction: float
    c: int
    T: float
    halted: bool
    extra: dict


def _score(task: NoisyThreshold, queries, labels_true, labels_hat) -> tuple[float, float]:
    mismatch = np.mean(labels_hat != (queries >= task.t_star))
    return float(np.mean(labels_hat != labels_true)), task.eta + (1 - 2 * task.eta) * float(mismatch)


def ag_priv_cl(task: NoisyThreshold, n_prime: int, params: AgPrivClParams, chunk_size: int,
               rng: np.random.Generator, queries=None) -> PCQRRun:
    """A_AgPrivCl (Alg. 3) in budget-preserving scaled mode on W1: S' ∼ D^{n'} drawn directly,
    S'' = A_Relabel(S'), Ŝ = n' draws with replacement from S'', k = ⌊n'/s⌋ consistent chunk
    learners, A_SubSamp at (ε̂, δ̂) with the paper's T, λ, w."""
    k = n_prime // chunk_size
    if k < 1:
        raise ValueError(f"n_prime={n_prime} < chunk_size={chunk_size}; pass n_prime >= chunk_size")
    x, y = task.sample(n_prime, rng, sort=True)
    t_hat, cut = relabel_sorted(x, y, rng)
    idx = uniform_integers(rng, n_prime, k * chunk_size).reshape(k, chunk_size)
    chunk_t = consistent_chunk_thresholds(idx, cut, x)
    if queries is None:
        queries = rng.random(params.m)
    truth = task.labels(queries, rng)
    sp = params.subsamp
    out = subsamp_answer(chunk_t, queries, sp.T, sp.lam, sp.w, rng)
    err, exp_err = _score(task, queries, truth, out.labels)
    return PCQRRun(params.n_from_prime(n_prime), err, exp_err, float(out.bottom.mean()), out.c,
                   sp.T, out.halted, {"t_hat": t_hat, "err_t_hat": float(task.err(t_hat)),
                                      "k": k, "lam": sp.lam, "w": sp.w, "n_prime": n_prime,
                                      "answered": out.answered})


def btt18_T(m: int, alpha: float, gamma: float, beta: float) -> float:
    """Baseline cut-off: Alg. 3's T formula with α replaced by α + γ (oracle γ — an assumption;
    BTT18 Lemma 2.4 only says T = max(1, Õ(m(α + γ))))."""
    return cutoff_T(m, alpha + gamma, beta)


def btt18_subsamp(task: NoisyThreshold, n: int, m: int, eps: float, delta: float, alpha: float,
                  beta: float, chunk_size: int, rng: np.random.Generator) -> PCQRRun:
    """BTT18 baseline: A_SubSamp (Alg. 5) directly on the agnostic S ∼ D^n at (ε, δ), ERM chunk
    learners, T from :func:`btt18_T`; k = ⌊n/s⌋ (scaled mode)."""
    k = n // chunk_size
    if k < 1:
        raise ValueError(f"n={n} < chunk_size={chunk_size}; pass n >= chunk_size")
    x = rng.random((k, chunk_size))
    chunk_t = erm_chunk_thresholds(x, task.labels(x, rng))
    sp = SubSampParams(m, btt18_T(m, alpha, task.gamma, beta), eps, delta, beta)
    queries = rng.random(m)
    truth = task.labels(queries, rng)
    out = subsamp_answer(chunk_t, queries, sp.T, sp.lam, sp.w, rng)
    err, exp_err = _score(task, queries, truth, out.labels)
    return PCQRRun(k * chunk_size, err, exp_err, float(out.bottom.mean()), out.c, sp.T,
                   out.halted, {"k": k, "lam": sp.lam, "w": sp.w, "answered": out.answered})


def public_cells(public_x: np.ndarray) -> np.ndarray:
    """Candidate thresholds of A_SSPP on W1: one per pattern of Π_H(T̃) — 0, the midpoints between
    consecutive distinct public points, and 1 (|T̃| + 1 patterns)."""
    u = np.unique(public_x)
    return np.concatenate([[0.0], 0.5 * (u[:-1] + u[1:]), [1.0]])


def sspp_from_counts(candidates: np.ndarray, cell_counts: np.ndarray, eps: float,
                     rng: np.random.Generator) -> float:
    """A_SSPP (Alg. 7) given the private counts per cell [c_i, c_{i+1}) and label (columns y=1,
    y=0): mistakes(c_i) = #pos left of c_i + #neg right of c_i; exponential mechanism with score
    −mistakes, sensitivity 1: P(c_i) ∝ exp(−ε·mistakes/2) (pure ε-DP)."""
    return float(candidates[exponential_mechanism(-cell_mistakes(cell_counts), eps, 1.0, rng)])


def cell_mistakes(cell_counts: np.ndarray) -> np.ndarray:
    """Mistakes of the thresholds c_0..c_K given counts per cell (columns y=1, y=0): #positives
    left of c_i + #negatives right of it.  Replacing one record changes each entry by at most 1."""
    pos, neg = cell_counts[:, 0].astype(np.int64), cell_counts[:, 1].astype(np.int64)
    return (np.concatenate([[0], np.cumsum(pos)]) +
            np.concatenate([np.cumsum(neg[::-1])[::-1], [0]])).astype(float)


def bin_counts(candidates: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Counts of (x, y) in the cells [c_i, c_{i+1}) by label (columns y=1, y=0)."""
    cell = np.clip(np.searchsorted(candidates, x, side="right") - 1, 0, len(candidates) - 2)
    pos = np.bincount(cell[y == 1], minlength=len(candidates) - 1)
    neg = np.bincount(cell[y == 0], minlength=len(candidates) - 1)
    return np.stack([pos, neg], axis=1)


def sspp(task: NoisyThreshold, n: int, public_x: np.ndarray, eps: float, rng: np.random.Generator,
         known_part=None) -> float:
    """A_SSPP on S ∼ D^n without materialising S: the cell counts of the n records are one
    multinomial draw (exact in distribution).  ``known_part = (x, y)`` adds already-drawn
    records of S (A_UnvPrivCl reuses S' ⊂ S) and draws only the remaining n − |S'|."""
    candidates = public_cells(public_x)
    probs = task.cell_probabilities(candidates).ravel()
    drawn = 0 if known_part is None else len(known_part[0])
    counts = rng.multinomial(n - drawn, probs / probs.sum()).reshape(-1, 2)
    if known_part is not None:
        counts = counts + bin_counts(candidates, *known_part)
    return sspp_from_counts(candidates, counts, eps, rng)


def m_o(d: int, alpha: float, beta: float) -> int:
    """Alg. 4 Step 1: m_o = ⌈32·(d·log(1/α) + log(1/β))/α⌉."""
    return int(math.ceil(32 * (d * math.log(1 / alpha) + math.log(1 / beta)) / alpha))


def unv_priv_cl(task: NoisyThreshold, n: int, m: int, eps: float, delta: float, alpha: float,
                beta: float, chunk_size: int, rng: np.random.Generator,
                paper_literal: bool = False) -> PCQRRun:
    """A_UnvPrivCl (Alg. 4): A_AgPrivCl on the first m' = min(m_o, m) queries; if m ≥ m_o, A_SSPP
    on the full S with those queries as T_pub answers the rest.  Both stages read S: by basic
    composition the budget is split ε/2 + ε/2 (default); ``paper_literal`` gives ε to each
    (then the run is (2ε, δ)-DP, recorded in ``extra['eps_claimed']``)."""
    eps_stage = eps if paper_literal else eps / 2
    m1 = min(m_o(1, alpha, beta), m)
    params = AgPrivClParams(m1, eps_stage, delta, alpha, beta)
    n_prime = params.n_prime(n)
    queries = rng.random(m)
    k = n_prime // chunk_size
    if k < 1:
        raise ValueError(f"n={n} gives n'={n_prime} < chunk_size={chunk_size}; pass a larger n")
    x, y = task.sample(n_prime, rng, sort=True)
    t_hat, cut = relabel_sorted(x, y, rng)
    chunk_t = consistent_chunk_thresholds(uniform_integers(rng, n_prime, k * chunk_size).reshape(k, chunk_size),
                                          cut, x)
    sp = params.subsamp
    out = subsamp_answer(chunk_t, queries[:m1], sp.T, sp.lam, sp.w, rng)
    labels = out.labels
    t_priv = None
    if m1 < m:
        t_priv = sspp(task, n, queries[:m1], eps_stage, rng, known_part=(x, y))
        labels = np.concatenate([labels, (queries[m1:] >= t_priv).astype(np.int8)])
    truth = task.labels(queries, rng)
    err, exp_err = _score(task, queries, truth, labels)
    return PCQRRun(n, err, exp_err, float(out.bottom.mean()), out.c, sp.T, out.halted,
                   {"m1": m1, "t_priv": t_priv, "eps_claimed": 2 * eps_stage,
                    "err_phase2": None if t_priv is None else float(task.err(t_priv))})


# --------------------------------------------------------------------------- literal mode


def literal_feasibility(d: int, m: int, eps: float, delta: float, alpha: float, beta: float,
                        max_records: float = 1e8) -> dict:
    """Paper-literal mode: every Alg. 3/5 quantity with the explicit Thm 3.3 sample size
    n' = 8000·(d·log(1/α) + log(m/β))·log^{3/2}(2/δ)·log(mα/min(δ, β/2))/α²·max(1, √m·α^{3/2}),
    n = 56n'/ε; runnable only if n' ≤ ``max_records`` and every one of the k_literal chunks is
    non-empty (n' ≥ k)."""
    p = AgPrivClParams(m, eps, delta, alpha, beta)
    sp = p.subsamp
    n_prime = (8000 * (d * math.log(1 / alpha) + math.log(m / beta)) * math.log(2 / delta) ** 1.5
               * math.log(m * alpha / min(delta, beta / 2)) / alpha ** 2
               * max(1.0, math.sqrt(m) * alpha ** 1.5))
    feasible = n_prime <= max_records and n_prime >= sp.k_literal
    reason = "feasible" if feasible else (
        f"n'={n_prime:.3g} exceeds max_records={max_records:.3g}" if n_prime > max_records
        else f"n'={n_prime:.3g} < k={sp.k_literal:.3g} chunks")
    return {"d": d, "m": m, "eps": eps, "delta": delta, "alpha": alpha, "beta": beta,
            "T": p.T, "eps_prime": p.eps_prime, "eps_hat": p.eps_hat, "delta_hat": p.delta_hat,
            "lam": sp.lam, "k": sp.k_literal, "w": sp.w, "w_over_k": sp.w / sp.k_literal,
            "n_prime": n_prime, "n": 56 * n_prime / eps, "feasible": feasible, "reason": reason}
