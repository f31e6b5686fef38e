"""DualQuery (Gaboardi, Gallego Arias, Hsu, Roth & Wu, ICML 2014), the baseline of Liu et al. 2021.

A zero-sum game between a *query player*, who runs multiplicative weights over the query set closed
under negation Q ∪ ¬Q (¬q = 1 − q), and a *data player*, who best-responds with one record per round
(spec liu2021_pmwpub.md §3):

  Q_1 uniform; round t: draw s queries i.i.d. from Q_t,
  x_t = argmax_{x∈X} Σ_{sampled q} q(x)     (see :mod:`~pubpriv_core.algorithms.best_response`),
  Q_{t+1}(q) ∝ Q_t(q)·exp(η·(q(D̃) − q(x_t))).

The output is the multiset {x_1, …, x_T} as synthetic data.

Privacy. Q_t(q) ∝ exp(η·Σ_{i<t}(q(D̃) − q(x_i))): a draw from Q_t is the exponential mechanism with
a score of sensitivity (t−1)/n, hence ε_t-DP with ε_t = 2η(t−1)/n (round 1 reads no private data).
Advanced composition (Dwork, Rothblum & Vadhan 2010) of the s(T−1) draws, each at most
ε_T = 2η(T−1)/n, gives the standard calibration

  ε = ε_T·sqrt(2·s·(T−1)·log(1/δ)) + s·(T−1)·ε_T·(exp(ε_T) − 1),

and T is the largest round count whose ε fits the target. The same draws are, as pure-DP steps,
ε_t²/2-zCDP each (Bun & Steinke 2016, Prop. 1.4): ρ = Σ_{t=2}^{T} s·ε_t²/2, also reported (the trace
also holds the looser s(T−1)·ε_T²/2 that charges every draw at the last round's ε_T).

``accounting="zcdp"`` calibrates as MWEM and PMW^Pub are: the log-weights of Q_t move by at most
±η(t−1)/n between neighbours, so each draw is ε_t-bounded-range, hence ε_t²/8-zCDP (Cesar & Rogers
2021, Lemma 3.2); the rounds are charged to a :class:`~pubpriv_core.privacy.ZCDPBudget` of
ρ = rho_from_eps(ε, δ), ρ_T = Σ_{t=2}^{T} s·ε_t²/8 = (sη²/(2n²))·Σ_{j=1}^{T−1} j², and T is the
largest round count with ρ_T ≤ ρ (more rounds than advanced composition allows at the same (ε, δ)).
"""
from __future__ import annotations

import time

import numpy as np

from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.best_response import BestResponse, net_cell_weights
from pubpriv_core.algorithms.budget_checks import target_rho
from pubpriv_core.algorithms.settings import ACCOUNTING, DualQueryOptions
from pubpriv_core.privacy.accounting import advanced_composition, eps_from_rho, rho_from_eps
from pubpriv_core.privacy._checks import count, positive, probability
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.queries.engine import answer_records


def _check_parameters(eta: float, samples: int, n: int, delta: float) -> tuple:
    """(η, s, n, δ) validated: η > 0, s and n integers ≥ 1, 0 < δ < 1 (one-line errors)."""
    return (positive("eta", eta, "pass a positive DualQuery learning rate such as 2.0"),
            count("samples", samples, "pass the number of queries drawn per round, e.g. 200"),
            count("n", n, "pass the number of private rows"),
            probability("delta", delta, "pass a failure probability such as 1/n**2"))


def dualquery_epsilon(eta: float, samples: int, T: int, n: int, delta: float) -> float:
    """ε at ``delta`` of T DualQuery rounds: advanced composition of s(T−1) draws at 2η(T−1)/n.

    Spec liu2021_pmwpub.md §3; T = 1 reads no private data and costs ε = 0.
    """
    eta, samples, n, delta = _check_parameters(eta, samples, n, delta)
    T = count("T", T, "pass the number of DualQuery rounds")
    if T == 1:
        return 0.0
    return advanced_composition(2.0 * eta * (T - 1) / n, samples * (T - 1), delta)


def dualquery_rho(eta: float, samples: int, T: int, n: int) -> float:
    """zCDP of T rounds: Σ_{t=2}^{T} s·(2η(t−1)/n)²/2 = (2sη²/n²)·Σ_{j=1}^{T−1} j²."""
    eta = positive("eta", eta, "pass a positive DualQuery learning rate such as 2.0")
    samples = count("samples", samples, "pass the number of queries drawn per round, e.g. 200")
    T = count("T", T, "pass the number of DualQuery rounds")
    n = count("n", n, "pass the number of private rows")
    squares = (T - 1) * T * (2 * T - 1) // 6
    return 2.0 * samples * eta ** 2 * squares / n ** 2


def dualquery_rho_bounded_range(eta: float, samples: int, T: int, n: int) -> float:
    """zCDP of T rounds with ε_t-bounded-range draws: Σ_{t=2}^{T} s·ε_t²/8 (a quarter of
    :func:`dualquery_rho`)."""
    return dualquery_rho(eta, samples, T, n) / 4.0




def calibrate_rounds(eps: float, delta: float, n: int, eta: float, samples: int,
                     accounting: str = "advanced") -> int:
    """Largest T whose spend fits (ε, δ) (1 if even T = 2 exceeds it): with ``advanced``,
    dualquery_epsilon(η, s, T, n, δ) ≤ ε; with ``zcdp``, dualquery_rho_bounded_range ≤
    rho_from_eps(ε, δ).

    The spend is increasing in T, so the answer is found by doubling then bisection on integers.
    """
    eps = positive("eps", eps, "pass a positive privacy budget")
    eta, samples, n, delta = _check_parameters(eta, samples, n, delta)
    if accounting not in ACCOUNTING:
        raise ValueError(f"unknown DualQuery accounting {accounting!r}; choose one of "
                         f"{', '.join(ACCOUNTING)}")
    rho = rho_from_eps(eps, delta) if accounting == "zcdp" else 0.0

    def fits(T: int) -> bool:
        if accounting == "zcdp":
            return dualquery_rho_bounded_range(eta, samples, T, n) <= rho
        return dualquery_epsilon(eta, samples, T, n, delta) <= eps

    low, high = 1, 2
    while fits(high):
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


class QueryPlayer:
    """Multiplicative weights over Q ∪ ¬Q (Gaboardi et al. 2014, §3), its draws made by the
    private data's handle.

    log Q_t(q) = η·((t−1)·q(D̃) − c_q) + const, with c_q the number of past records x_i in cell q;
    the negation has (1 − q(D̃)) − (1 − q(x_i)) = −(q(D̃) − q(x_i)), so log Q_t(¬q) = −log Q_t(q)
    up to the same constant. The player keeps the counts c_q (public: they count released
    records); the handle computes the log-weights and draws
    (:meth:`~pubpriv_core.privacy.private_data.PrivateData.dual_queries`). Integer counts keep
    the log-weights exact.
    """

    def __init__(self, private: PrivateData, num_queries: int, eta: float):
        self.private = private
        self.eta = eta
        self.counts = np.zeros(num_queries, dtype=np.int64)
        self.rounds = 0

    @property
    def num_queries(self) -> int:
        return self.counts.size

    def sample(self, size: int) -> np.ndarray:
        """``size`` i.i.d. ids from Q_t; id q < |Q| is cell q, id |Q| + q is its negation."""
        return self.private.dual_queries(self.counts, self.rounds, self.eta, size)

    def update(self, record_cells: np.ndarray) -> None:
        """Play x_t: every cell holding x_t (one per marginal) gets q(x_t) = 1."""
        self.counts[record_cells] += 1
        self.rounds += 1


def privacy_terms(options: dict) -> tuple[str, str]:
    """The ledger DualQuery needs: advanced composition of its pure-DP draws (the paper's
    calibration) or zCDP (``accounting="zcdp"``), over replace-one neighbours."""
    return options.get("accounting", "advanced"), "replace_one"


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_dualquery`, without running: ρ(ε, δ) under zCDP
    accounting, and the calibration leaving at least two rounds within ``max_T``."""
    o = DualQueryOptions(**options)
    if o.accounting == "zcdp":
        target_rho(eps, delta)
    calibrated = calibrate_rounds(eps, delta, problem.n, o.eta, o.samples, o.accounting)
    _capped_rounds(calibrated, o.max_T, f"eps={eps}, eta={o.eta}, samples={o.samples}, "
                                        f"n={problem.n}")


def run_dualquery(problem: PublicProblem, private: PrivateData, *, T: int,
                  rng: np.random.Generator, **options) -> Release:
    """DualQuery at the private data's target (ε, δ); returns the T records as a uniform
    multiset.

    The number of rounds is calibrate_rounds(eps, delta, n, eta, samples, accounting), capped by
    ``max_T``; the harness's ``T`` is not used (DualQuery's round count is set by its privacy
    calibration). The draws are charged by the handle to the harness's ledger, whose
    accounting is ``accounting`` (:func:`privacy_terms`).
    """
    o = DualQueryOptions(**options)
    eta, samples, max_T, accounting = o.eta, o.samples, o.max_T, o.accounting
    eps, delta, n = private.budget.eps, private.budget.delta, problem.n
    calibrated = calibrate_rounds(eps, delta, n, eta, samples, accounting)
    rounds = _capped_rounds(calibrated, max_T, f"eps={eps}, eta={eta}, samples={samples}, "
                                               f"n={n}")
    player = QueryPlayer(private, problem.workload.num_queries, eta)
    oracle = BestResponse(problem.workload)
    start = time.perf_counter()
    records, round_s, oracle_s = _play(player, oracle, samples, rounds, rng)
    weights = np.full(rounds, 1.0 / rounds)
    answers = answer_records(problem.workload, records, weights)
    runtime = time.perf_counter() - start
    rho = dualquery_rho(eta, samples, rounds, n)
    trace = {"rounds": rounds, "calibrated_rounds": calibrated, "eta": eta, "samples": samples,
             "round_s": round_s, "oracle_s": oracle_s, "eps_zcdp": eps_from_rho(rho, delta),
             "rho_max_step": samples * (rounds - 1) * (2 * eta * (rounds - 1) / n) ** 2 / 2,
             "distinct_records": len(np.unique(records, axis=0)), "accounting": accounting}
    return Release("dualquery", weights=weights, answers=answers, support=records, trace=trace,
                   runtime_s=runtime, iterations=rounds)


def _capped_rounds(calibrated: int, max_T: int | None, setting: str) -> int:
    """The calibrated round count capped by ``max_T``; fewer than 2 rounds is refused."""
    if calibrated < 2:
        raise ValueError(f"DualQuery fits only {calibrated} round at {setting}; "
                         "use a larger eps or smaller eta/samples")
    if max_T is None:
        return calibrated
    max_T = count("max_T", max_T, "pass a cap of at least 2 rounds")
    if max_T < 2:
        raise ValueError("max_T must be >= 2 for DualQuery; round 1 alone releases no data")
    return min(calibrated, max_T)


def _play(player: QueryPlayer, oracle: BestResponse, samples: int, rounds: int,
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The game: records x_1..x_T, seconds per round and seconds in the best-response solver."""
    workload = oracle.workload
    records = np.empty((rounds, len(workload.domain)), dtype=np.int64)
    round_s, oracle_s = np.empty(rounds), np.empty(rounds)
    for t in range(rounds):
        tick = time.perf_counter()
        cells, weights = net_cell_weights(player.sample(samples), player.num_queries)
        solve = time.perf_counter()
        records[t] = oracle.solve(cells, weights, rng)
        oracle_s[t] = time.perf_counter() - solve
        player.update(workload.cell_ids(records[t:t + 1])[0])
        round_s[t] = time.perf_counter() - tick
    return records, round_s, oracle_s
