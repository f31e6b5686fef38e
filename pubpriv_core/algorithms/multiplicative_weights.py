"""The private multiplicative-weights loop shared by MWEM and PMW^Pub (Liu et al. 2021, Alg. 1).

For t = 1..T: select q_t with score |q(A_{t−1}) − q(D̃)| (sensitivity 1/n) by permute-and-flip or
the exponential mechanism, measure a_t = q_t(D̃) + N(0, σ²) clipped to [0, 1], and update

    A_t(x) ∝ A_{t−1}(x) · exp(q_t(x) · (a_t − q_t(A_{t−1})) / 2).

Budget (paper §4.1): ρ from the target (ε, δ) (CKS conversion, Thm 4.5), ε0 = sqrt(2ρ)/sqrt(2T);
each of the 2T steps is ε0-DP, hence ε0²/2-zCDP, and σ = 1/(n·ε0) makes the Gaussian step ε0²/2-zCDP.
The selection and the measurement are the private data's handle's
(:class:`~pubpriv_core.privacy.private_data.PrivateData`), which reads q(D̃) itself and charges
the harness's ledger; the loop keeps only released values. Output: the average of the iterates
A_0..A_{T−1} (paper) and the last iterate A_T.

The authors' released code (github.com/terranceliu/pmw-pub, ``mwem.py``) differs in two ways,
offered as options (defaults: the paper's Algorithm 1 and §5.3): ``output="released_code"``
averages A_1..A_T instead of A_0..A_{T−1}, and ``replay_variant="released_code"`` replays as that
code does — every error c_i and every update's q_i(A) are taken from the answers at the start of
the round (not from the current A), the new measurement is applied first and then again among the
replayed ones (its own c_t ≥ c_t/2), and only the latest measurement of each query is kept.

Speed: A is kept unnormalised (u, Z = Σu) together with its unnormalised answers y = Σ_x u(x)q(x).
An update only rescales the rows of one cell, so y changes only in the cells of those rows (|rows|·W
scatter-adds, batched over a round's replayed updates) instead of being recomputed (|X̂|·W) — unless
a round touched more rows than the answerer's ``incremental_limit``, where one recomputation is
cheaper (MWEM's full-domain engine recomputes all marginals by a reduction tree in ≈ 1 ms).
"""
from __future__ import annotations

import math
import time

import numpy as np

from pubpriv_core import privacy
from pubpriv_core.algorithms import mw_kernels
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.algorithms.settings import MWOptions
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.queries.engine import SupportAnswerer

_REFRESH_EVERY = 64         # rounds between exact recomputations of y (floating-point drift)
_RESCALE_LIMIT = 1e100      # rescale u when Z leaves [1/limit, limit]


class MWState:
    """A distribution A ∝ u over the rows of a support, with its answers kept up to date.

    The rows of query q are addressed by ``answerer.selector(q)`` on ``answerer.grid(u)`` (row
    indices on a public support; a basic-index view of the domain tensor for MWEM), so single
    answers q(A) = Σ_{x: q(x)=1} u(x) / Z and updates touch those rows only. The vector y of all
    unnormalised answers is brought up to date lazily, once per round: by scattering the
    accumulated change of the touched rows, or — once more than ``answerer.incremental_limit``
    rows were touched — by one full recomputation (the change is then no longer tracked).
    """

    def __init__(self, answerer: SupportAnswerer, init_weights: np.ndarray):
        self.answerer = answerer
        self.u = np.array(init_weights, dtype=float)
        self.Z = float(self.u.sum())
        self.y = answerer.answer(self.u)
        self._pending = np.zeros_like(self.u)
        self._touched = np.zeros(self.u.size, dtype=bool)
        self._grids = tuple(answerer.grid(a) for a in (self.u, self._pending, self._touched))
        self._selectors: dict[int, object] = {}      # slab views of a domain tensor
        # support rows: the rows of every query met so far, one after the other in one buffer,
        # query q's at [lo[q], hi[q]) (lo = −1 until met), so a round's updates pass spans
        self._rows, self._used = np.empty(1024, dtype=np.int64), 0
        if not answerer.selects_views:
            self._lo = np.full(answerer.num_queries, -1, dtype=np.int64)
            self._hi = np.full(answerer.num_queries, -1, dtype=np.int64)
        self._touched_bound = 0      # Σ |rows| updated since the last sync (≥ touched rows)
        self._syncs = 0

    def answers(self) -> np.ndarray:
        """q(A) for every query."""
        self._sync()
        return self.y / self.Z

    def far_measurements(self, queries: np.ndarray, measured: np.ndarray,
                         threshold: float) -> np.ndarray:
        """Positions i with |q_i(A) − measured[i]| ≥ threshold for queries q_i (own indices)."""
        self._sync()
        return mw_kernels.far_measurements(self.y, self.Z, queries, measured, threshold)

    def unnormalised(self) -> tuple[np.ndarray, float]:
        """(y, Z): the unnormalised answers of the present queries and the total, up to date."""
        self._sync()
        return self.y, self.Z

    def answer(self, q: int) -> float:
        return float(self._grids[0][self.selector(q)].sum() / self.Z)

    def weights(self) -> np.ndarray:
        return self.u / self.Z

    def selector(self, q: int):
        """What ``grid(u)`` is indexed with for query q: its support rows (a slice of the rows
        buffer) or its slab of the domain tensor."""
        if self.answerer.selects_views:
            if q not in self._selectors:
                self._selectors[q] = self.answerer.selector(q)
            return self._selectors[q]
        if self._lo[q] < 0:
            self._keep_rows(q)
        return self._rows[self._lo[q]:self._hi[q]]

    def _keep_rows(self, q: int) -> None:
        """Append query q's support rows to the rows buffer (doubling it when full)."""
        rows = self.answerer.selector(q)
        end = self._used + rows.size
        if end > self._rows.size:
            grown = np.empty(max(2 * self._rows.size, end), dtype=np.int64)
            grown[:self._used] = self._rows[:self._used]
            self._rows = grown
        self._rows[self._used:end] = rows
        self._lo[q], self._hi[q] = self._used, end
        self._used = end

    def update_many(self, queries: np.ndarray, measurements: np.ndarray) -> int:
        """:meth:`update` with each (q, a) in turn; returns the number of updates made.

        On a support, all updates run in one compiled call with the same arithmetic
        (:func:`~pubpriv_core.algorithms.mw_kernels.apply_updates`) on the queries' spans of the
        rows buffer.
        """
        if self.answerer.selects_views:
            for q, a in zip(queries, measurements):
                self.update(int(q), float(a))
            return len(queries)
        queries = np.asarray(queries, dtype=np.int64)
        for q in queries[self._lo[queries] < 0]:
            if self._lo[q] < 0:      # a query met twice in this call is kept once
                self._keep_rows(int(q))
        self.Z, self._touched_bound = mw_kernels.apply_updates(
            self.u, self._pending, self._touched, self._rows, self._lo[queries],
            self._hi[queries], np.asarray(measurements, dtype=float), self.Z,
            self._touched_bound, self.answerer.incremental_limit)
        return int(queries.size)

    def update(self, q: int, measurement: float, reference: float | None = None) -> int:
        """A(x) ← A(x)·exp(q(x)·(a − q(A))/2), renormalised (Hardt, Ligett, McSherry 2012);
        with ``reference`` given, that value stands for q(A) (the released code's replay).

        ``q`` is the answerer's own index of the query; returns the number of updates made (1).
        """
        u, pending, touched = self._grids
        rows = self.selector(q)
        block = u[rows]
        mass = float(block.sum())
        current = mass / self.Z if reference is None else reference
        factor = math.exp((measurement - current) / 2.0)
        self.Z += mass * (factor - 1.0)
        if self._touched_bound <= self.answerer.incremental_limit:
            self._touched_bound += block.size
            pending[rows] += block * (factor - 1.0)
            touched[rows] = True
        if self.answerer.selects_views:
            block *= factor
        else:
            u[rows] = block * factor
        return 1

    def _sync(self) -> None:
        if self._touched_bound == 0:
            return
        self._syncs += 1
        touched = np.flatnonzero(self._touched)
        if self._touched_bound > self.answerer.incremental_limit \
                or self._syncs % _REFRESH_EVERY == 0 \
                or not 1 / _RESCALE_LIMIT < self.Z < _RESCALE_LIMIT:
            self.u /= self.Z
            self.Z = 1.0
            self.y = self.answerer.answer(self.u)
        else:
            self.answerer.add_changes(self.y, touched, self._pending[touched])
        self._pending[touched] = 0.0
        self._touched[touched] = False
        self._touched_bound = 0


def check_budget(eps: float, delta: float, T: int) -> None:
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps}; pass a positive privacy budget")
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta}; use e.g. 1/n^2")
    if int(T) != T or T < 1:
        raise ValueError(f"T must be an integer >= 1, got {T}; set the number of rounds T")


def select(state: MWState, answerer: SupportAnswerer, eps0: float, options: MWOptions,
           private: PrivateData) -> tuple[int, int | None]:
    """ε0-DP selection of a query with high |q(A) − q(D̃)| (sensitivity 1/n), by the private
    data's handle, which charges ε0²/2 (:meth:`~pubpriv_core.privacy.private_data.PrivateData.select_query`).

    ``exponential_bounded_range`` (labelled option, off by default) uses that the exponential
    mechanism at parameter ε is ε²/8-zCDP (Cesar & Rogers 2021), so it runs at 2·ε0 for the
    same ρ. Returns (global query id, own index in ``answerer`` or None for an absent query).
    """
    eps = 2.0 * eps0 if options.selection == "exponential_bounded_range" else eps0
    y, Z = state.unnormalised()
    return private.select_query(y, Z, answerer, eps, options.selection)


def measure(q: int, eps0: float, n: int, options: MWOptions, private: PrivateData) -> float:
    """a = q(D̃) + noise, clipped to [0, 1]; Gaussian σ = 1/(n·ε0) or Laplace b = 1/(n·ε0).

    Both are ε0²/2-zCDP (Gaussian: Δ²/(2σ²); Laplace: ε0-DP ⇒ ε0²/2-zCDP, Bun & Steinke 2016),
    charged by the handle.
    """
    if options.measurement == "gaussian":
        noisy = private.gaussian_query(q, 1.0 / (n * eps0))
    else:
        noisy = private.laplace_query(q, eps0)
    return min(max(float(noisy), 0.0), 1.0)


def replay(state: MWState, queries: np.ndarray, measured: np.ndarray,
           new: tuple[int | None, float], rng: np.random.Generator) -> int:
    """Liu et al. §5.3: after measuring, re-apply past measurements with c_i ≥ c_t/2.

    c_i = |q_i(A) − a_i| on the current A for every measured (q_i, a_i), i ≤ t, and c_t is the
    new query's. The new query is applied first, then the past ones with c_i ≥ c_t/2 in uniformly
    random order. ``queries`` and ``measured`` hold the past measurements of present queries
    (own index, a); ``new`` = (own index or None for a query absent from X̂, a). An absent query answers 0 on X̂,
    so its c is a and its update changes nothing. Uses only released measurements: no privacy
    cost. Returns the number of updates made.
    """
    own, measured_new = new
    threshold = abs((0.0 if own is None else state.answer(own)) - measured_new) / 2.0
    again = rng.permutation(state.far_measurements(queries, measured, threshold))
    if own is not None:
        queries = np.concatenate(([own], queries[again]))
        measured = np.concatenate(([measured_new], measured[again]))
    else:
        queries, measured = queries[again], measured[again]
    return state.update_many(queries, measured)


def replay_released_code(state: MWState, latest: dict[int, tuple[int | None, float]],
                         new: tuple[int, int | None, float], start: np.ndarray,
                         rng: np.random.Generator) -> int:
    """The replay of the authors' released code (``mwem.py``), kept as an option.

    ``latest`` maps each measured query (global id) to (own index or None when absent from X̂,
    its latest measurement); ``new`` = (global id, own index, a) is stored there first,
    replacing an earlier measurement of the same query. ``start`` holds q(A) of the present
    queries at the start of the round. With c_i = |a_i − start_i| (a_i for an absent query),
    the new measurement is applied, then every stored one with c_i ≥ c_t/2 — the new one again
    among them — in uniformly random order, each as A(x) ∝ A(x)·exp(q_i(x)·(a_i − start_i)/2).
    An absent query changes nothing on X̂. Uses only released measurements: no privacy cost.
    Returns the number of updates made (those of absent queries not counted)."""
    q_new, own_new, a_new = new
    latest[q_new] = (own_new, a_new)
    owns = [own for own, _ in latest.values()]
    measured = np.array([a for _, a in latest.values()])
    before = np.array([0.0 if own is None else start[own] for own in owns])
    errors = np.abs(measured - before)
    again = rng.permutation(np.flatnonzero(errors >= 0.5 * abs(a_new - (
        0.0 if own_new is None else start[own_new]))))
    order = [(own_new, a_new)] + [(owns[i], measured[i]) for i in again]
    done = 0
    for own, a in order:
        if own is not None:
            done += state.update(int(own), float(a), reference=float(start[own]))
    return done


def check_rounds(n: int, eps: float, delta: float, T: int, reserved: float = 0.0) -> None:
    """The checks of a run's budget and of its rounds' derived quantities, without running:
    ρ(ε, δ) less ``reserved`` (charged before the rounds), ε0 = per_step_eps(ρ, T), the charge
    ε0²/2 of each of the 2T steps and the noise scale 1/(n·ε0) of :func:`measure`."""
    check_budget(eps, delta, T)
    rho = target_rho(eps, delta) - reserved
    setting = f"T={T} rounds at eps={eps:g}"
    check_steps(setting, **{"budget rho left for the rounds": rho})
    eps0 = privacy.per_step_eps(rho, T, mechanisms_per_round=2)
    check_steps(setting, eps0=eps0, **{"charge eps0^2/2": eps0 * eps0 / 2.0,
                                       "noise scale 1/(n*eps0)": 1.0 / (n * eps0)})


def run_mw(answerer: SupportAnswerer, private: PrivateData, init_weights: np.ndarray, T: int,
           rng: np.random.Generator, options: MWOptions) -> dict:
    """Run T rounds spending what remains of the private data's budget; returns average and
    last answers/weights (full-length answer vectors), the trace and the rounds' time."""
    n = private.n
    eps0 = privacy.per_step_eps(private.budget.remaining, T, mechanisms_per_round=2)
    state = MWState(answerer, init_weights)
    average = np.zeros_like(state.u)
    # (own index, measurement) of the present queries measured so far
    history_queries, history_measured, known = np.empty(T, dtype=np.int64), np.empty(T), 0
    selected, measured = [], []
    latest: dict[int, tuple[int | None, float]] = {}   # the released code's replay memory
    released_replay = options.replay and options.replay_variant == "released_code"
    times, updates = np.empty(T), np.zeros(T, dtype=np.int64)
    for t in range(T):
        start = time.perf_counter()
        if options.output == "paper":          # Alg. 1: average of A_0..A_{T-1}
            average += state.weights()
        start_answers = state.answers() if released_replay else None
        q, own = select(state, answerer, eps0, options, private)
        a = measure(q, eps0, n, options, private)
        selected.append(q)
        measured.append(a)
        if released_replay:
            updates[t] = replay_released_code(state, latest, (q, own, a), start_answers, rng)
        elif options.replay:
            updates[t] = replay(state, history_queries[:known], history_measured[:known],
                                (own, a), rng)
        elif own is not None:     # an absent query cannot change A on X̂
            updates[t] = state.update_many(np.array([own]), np.array([a]))
        if own is not None:
            history_queries[known], history_measured[known] = own, a
            known += 1
        if options.output == "released_code":  # the released code: average of A_1..A_T
            average += state.weights()
        times[t] = time.perf_counter() - start
    average /= T
    return {"weights": average, "answers": answerer.expand(answerer.answer(average)),
            "last_weights": state.weights(), "last_answers": answerer.expand(state.answers()),
            "trace": {"queries": selected, "measurements": measured,
                      "iteration_s": times.tolist(), "updates": updates.tolist(),
                      "eps0": eps0},
            "runtime_s": float(times.sum())}
