"""Best mixture error of a public support (Liu et al. 2021, Definition 4.1 and Lemma 4.2).

    f_{D̃,Q}(X̂) = min_{μ ∈ Δ(X̂)} max_{q∈Q} | q(D̃) − Σ_{x∈X̂} μ_x q(x) |

is the smallest max error any reweighting of X̂ can reach, hence a floor for PMW^Pub. Two routes:

* ``lp``: the exact linear program  min t  s.t.  −t ≤ q(D̃) − Σ_x μ_x q(x) ≤ t,  μ ≥ 0,  Σμ = 1,
  solved by HiGHS (scipy). Cells no support row satisfies have Σ_x μ_x q(x) = 0, so they only
  give the constant floor t ≥ max q(D̃) over them and are not rows of the LP.
* ``mw``: the paper's estimate, non-private multiplicative weights (exact argmax selection, exact
  answers) stopped after ``mw_iters`` = 100 rounds; the smallest max error among its iterates is an
  upper estimate of f.

Lemma 4.2: f has sensitivity 1/n in D̃, so f + Laplace(1/(n·ε_f)) is ε_f-DP
(:func:`dp_best_mixture_error`; the paper suggests ε_f = 0.01 as a cheap quality check).
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from pubpriv_core import privacy
from pubpriv_core.algorithms.base import Release, ReleaseProblem
from pubpriv_core.algorithms.multiplicative_weights import MWState
from pubpriv_core.queries import SupportAnswerer

METHODS = ("lp", "mw", "both")
DEFAULT_LP_MAX_NONZEROS = 50_000_000
DEFAULT_LP_TIME_LIMIT = 300.0   # seconds; ADULT 3-way W=256 (≈47K present cells) exceeds it


class LPTimeLimitError(ValueError):
    """HiGHS stopped at the time limit before proving optimality."""


def best_mixture_lp(answerer: SupportAnswerer, true_answers: np.ndarray,
                    max_nonzeros: int = DEFAULT_LP_MAX_NONZEROS,
                    time_limit: float = DEFAULT_LP_TIME_LIMIT) -> tuple[float, np.ndarray]:
    """Exact f(X̂) and an optimal μ by the LP of Definition 4.1 (HiGHS, within ``time_limit`` s)."""
    present, floor = _split(answerer, true_answers)
    n_support = answerer.size
    nonzeros = 2 * n_support * answerer.workload.num_marginals
    if nonzeros > max_nonzeros:
        raise ValueError(f"the best-mixture LP would have {nonzeros} non-zeros (> {max_nonzeros});"
                         " use method=mw or raise lp_max_nonzeros")
    incidence = answerer.incidence(np.arange(answerer.num_queries))
    ones = sp.csr_matrix(np.ones((present.size, 1)))
    # rows:  Mμ − t ≤ a  and  −Mμ − t ≤ −a  over the present cells; variables (μ, t).
    a_ub = sp.vstack([sp.hstack([incidence, -ones]), sp.hstack([-incidence, -ones])]).tocsc()
    b_ub = np.concatenate([true_answers[present], -true_answers[present]])
    a_eq = sp.csr_matrix(np.append(np.ones(n_support), 0.0)[None, :])
    cost = np.append(np.zeros(n_support), 1.0)
    bounds = [(0, None)] * n_support + [(floor, None)]
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs", options={"time_limit": float(time_limit)})
    if res.status == 1:
        raise LPTimeLimitError(f"best-mixture LP not solved within {time_limit:g} s; "
                               "use method=mw or raise lp_time_limit")
    if res.status != 0:
        raise RuntimeError(f"best-mixture LP failed: {res.message}")
    mu = np.clip(res.x[:n_support], 0.0, None)
    return float(res.x[-1]), mu / mu.sum()


def _split(answerer: SupportAnswerer, true_answers: np.ndarray) -> tuple[np.ndarray, float]:
    """(global ids of the answerer's queries, max q(D̃) over all other queries or 0)."""
    present = answerer.present_queries()
    absent = np.ones(true_answers.size, dtype=bool)
    absent[present] = False
    if answerer.queries is None and absent.any():
        raise ValueError("best mixture error needs an answerer over all present queries; "
                         "build it with present_only=True")
    return present, float(true_answers[absent].max()) if absent.any() else 0.0


def best_mixture_mw(answerer: SupportAnswerer, true_answers: np.ndarray,
                    init_weights: np.ndarray, iterations: int = 100) -> tuple[float, np.ndarray]:
    """The paper's estimate: non-private MW from ``init_weights``, early-stopped; best iterate."""
    present, floor = _split(answerer, true_answers)
    target = true_answers[present]
    state = MWState(answerer, init_weights)
    best_error, best_weights = np.inf, state.weights()
    for _ in range(iterations + 1):
        errors = np.abs(state.answers() - target)
        q = int(np.argmax(errors))
        if max(errors[q], floor) < best_error:
            best_error, best_weights = max(float(errors[q]), floor), state.weights()
        state.update(q, float(target[q]))
    return best_error, best_weights


def dp_best_mixture_error(problem: ReleaseProblem, eps_f: float, rng: np.random.Generator,
                          max_nonzeros: int = DEFAULT_LP_MAX_NONZEROS) -> float:
    """ε_f-DP release f + Laplace(1/(n·ε_f)) of the exact f (Lemma 4.2: sensitivity 1/n)."""
    value, _ = best_mixture_lp(problem.public_answerer, problem.true_answers, max_nonzeros)
    return float(privacy.laplace_mechanism(value, 1.0 / (problem.n * eps_f), rng))


def run_best_mixture(problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                     rng: np.random.Generator, method: str = "both", mw_iters: int = 100,
                     lp_max_nonzeros: int = DEFAULT_LP_MAX_NONZEROS,
                     lp_time_limit: float = DEFAULT_LP_TIME_LIMIT) -> Release:
    """Non-private reference: the best reweighting of X̂ (LP optimum, else the MW estimate).

    ``eps``, ``T`` and ``rng`` are ignored; ρ = 0 because nothing is released about D̃ beyond a
    reference line. The trace carries ``lp_value`` and ``mw_value`` (NaN when not computed or,
    with ``method="both"``, when the LP hits ``lp_time_limit``: the MW estimate is kept then).
    """
    if method not in METHODS:
        raise ValueError(f"unknown best_mixture method {method!r}; choose one of "
                         f"{', '.join(METHODS)}")
    start = time.perf_counter()
    answerer = problem.public_answerer
    lp_value = mw_value = float("nan")
    weights = None
    if method in ("mw", "both"):
        mw_value, weights = best_mixture_mw(answerer, problem.true_answers,
                                            problem.public_weights, mw_iters)
    if method in ("lp", "both"):
        try:
            lp_value, weights = best_mixture_lp(answerer, problem.true_answers,
                                                lp_max_nonzeros, lp_time_limit)
        except LPTimeLimitError:
            if method == "lp":
                raise
    return Release("best_mixture", weights=weights,
                   answers=answerer.expand(answerer.answer(weights)), rho=0.0,
                   eps=0.0, delta=delta, support=problem.public_support,
                   trace={"lp_value": lp_value, "mw_value": mw_value, "method": method},
                   runtime_s=time.perf_counter() - start)
