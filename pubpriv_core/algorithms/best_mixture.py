"""Best mixture error of a public support (Liu et al. 2021, Definition 4.1 and Lemma 4.2).

    f_{D̃,Q}(X̂) = min_{μ ∈ Δ(X̂)} max_{q∈Q} | q(D̃) − Σ_{x∈X̂} μ_x q(x) |

is the smallest max error any reweighting of X̂ can reach, hence a floor for PMW^Pub. Routes:

* ``lp``: the exact linear program  min t  s.t.  −t ≤ q(D̃) − Σ_x μ_x q(x) ≤ t,  μ ≥ 0,  Σμ = 1,
  solved by HiGHS by constraint generation (:mod:`~pubpriv_core.algorithms.mixture_lp`),
  certified to 1e-9; :func:`best_mixture_lp` solves it in one piece (small problems). Cells no
  support row satisfies have Σ_x μ_x q(x) = 0, so they only give the constant floor
  t ≥ max q(D̃) over them and are not rows of the LP.
* ``mw``: the paper's estimate, non-private multiplicative weights (exact argmax selection, exact
  answers) stopped after ``mw_iters`` = 100 rounds; the smallest max error among its iterates is an
  upper estimate of f.

Lemma 4.2: f has sensitivity 1/n in D̃, so f + Laplace(1/(n·ε_f)) is ε_f-DP
(:func:`dp_best_mixture_error`; the paper suggests ε_f = 0.01 as a cheap quality check).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import scipy.sparse as sp

from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.mixture_lp import (OPERATOR_JOIN_NONZEROS, TOL,  # noqa: F401
                                                LPTimeLimitError, MixtureSolution,
                                                constraint_generation, plain_lp)
from pubpriv_core.algorithms.mixture_operator import SupportIncidence
from pubpriv_core.algorithms.multiplicative_weights import MWState
from pubpriv_core.algorithms.settings import LP_TIME_LIMIT, METHODS, BestMixtureOptions
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.queries.engine import SupportAnswerer

DEFAULT_LP_MAX_NONZEROS = 50_000_000
DEFAULT_LP_TIME_LIMIT = LP_TIME_LIMIT


def best_mixture_lp(answerer: SupportAnswerer, true_answers: np.ndarray,
                    max_nonzeros: int = DEFAULT_LP_MAX_NONZEROS,
                    time_limit: float = DEFAULT_LP_TIME_LIMIT) -> tuple[float, np.ndarray]:
    """Exact f(X̂) and an optimal μ by the whole LP of Definition 4.1 (one HiGHS solve)."""
    present, floor = _split(answerer, true_answers)
    nonzeros = 2 * answerer.size * answerer.workload.num_marginals
    if nonzeros > max_nonzeros:
        raise ValueError(f"the best-mixture LP would have {nonzeros} non-zeros (> {max_nonzeros});"
                         " use best_mixture_exact (constraint generation) or method=mw")
    solution = plain_lp(present_incidence(answerer), true_answers[present], floor, time_limit)
    return solution.value, solution.weights


def best_mixture_exact(answerer: SupportAnswerer, true_answers: np.ndarray,
                       anchor: np.ndarray,
                       time_limit: float = DEFAULT_LP_TIME_LIMIT,
                       on_time_limit: str = "raise",
                       max_nonzeros: int = DEFAULT_LP_MAX_NONZEROS,
                       join_nonzeros: int = OPERATOR_JOIN_NONZEROS,
                       progress=None) -> MixtureSolution:
    """Exact f(X̂) by constraint generation from ``anchor`` (the public distribution A_0); the
    cells joining per round are spread over the marginals. Its active cells count the absent
    cells at the value too (where f = c, those are the cells that set it). At ``time_limit``:
    raise, or (``on_time_limit="interval"``) return the certified interval [lower, value]
    reached (:func:`~.mixture_lp.constraint_generation`). Past ``max_nonzeros`` (|X̂|·W) the
    incidence matrix is not built: the engine serves as the operator
    (:class:`~.mixture_operator.SupportIncidence`), and at most ``join_nonzeros`` of its
    non-zeros join per round. ``progress`` is passed on to
    :func:`~.mixture_lp.constraint_generation`."""
    present, floor = _split(answerer, true_answers)
    too_big = answerer.size * answerer.workload.num_marginals > max_nonzeros
    matrix = SupportIncidence(answerer) if too_big else present_incidence(answerer)
    solution = constraint_generation(matrix, true_answers[present], floor, anchor, time_limit,
                                     groups=answerer.workload.marginal_of(present),
                                     join_nonzeros=join_nonzeros, on_time_limit=on_time_limit,
                                     progress=progress)
    absent = np.delete(true_answers, present)
    at_value = int(np.count_nonzero(absent >= solution.value - TOL))
    return dataclasses.replace(solution, active_cells=solution.active_cells + at_value)


def present_incidence(answerer: SupportAnswerer) -> sp.csr_matrix:
    """0/1 matrix [q(x)] over the answerer's queries × support rows. Each support row lies in
    exactly one cell of each marginal, so the matrix is built column by column (W non-zeros per
    row of X̂, |X̂|·W in all; no dense |Q|×|X̂| table)."""
    ids = answerer.cell_ids(np.arange(answerer.size))
    width = ids.shape[1]
    indptr = np.arange(0, ids.size + 1, width, dtype=np.int64)
    matrix = sp.csc_matrix((np.ones(ids.size), ids.ravel(), indptr),
                           shape=(answerer.num_queries, answerer.size))
    return matrix.tocsr()


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


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_best_mixture`, without solving: the method and a public
    source."""
    _check_method(BestMixtureOptions(**options).method)
    if problem.public_support is None:
        raise ValueError("best_mixture needs a public source; set public=... in the config")


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown best_mixture method {method!r}; choose one of "
                         f"{', '.join(METHODS)}")


def run_best_mixture(problem: PublicProblem, private: PrivateData, *, T: int,
                     rng: np.random.Generator, **options) -> Release:
    """Non-private reference: the best reweighting of X̂ (LP optimum, else the best found).

    It reads the exact private answers through the handle's escape hatch (a declared reference
    line: its record says ``non-private reference``, and it spends ρ = 0); ``T`` and ``rng``
    are not used. The trace carries ``lp_value`` (certified to 1e-9; NaN when the LP was not
    run or not certified within ``lp_time_limit``), ``lp_lower``, the constraint generation's
    ``lp_rounds``, ``lp_working_cells``, ``lp_active_cells``, ``lp_seconds`` and ``lp_stopped``
    (what ended an uncertified LP: "time limit" or HiGHS's failure; "" if certified), ``mw_value``
    (the paper's MW estimate; NaN when not computed), and the interval f ∈ [``mixture_lower``,
    ``mixture_upper``] with ``mixture_certified`` (upper − lower ≤ 1e-9): the lower bound is the
    LP's level τ (at least the absent-cell floor c, the bound with no LP), the upper bound the
    smallest max error of any reweighting found (the LP's μ, the MW estimate's best iterate).
    """
    o = BestMixtureOptions(**options)
    method, mw_iters, lp_time_limit = o.method, o.mw_iters, o.lp_time_limit
    _check_method(method)
    start = time.perf_counter()
    answerer = problem.public_answerer
    true_answers = private.unverified("the non-private best mixture reference").true_answers
    trace = {"lp_value": float("nan"), "mw_value": float("nan"), "method": method}
    lower, upper, weights = _split(answerer, true_answers)[1], np.inf, None
    if method in ("mw", "both"):
        trace["mw_value"], weights = best_mixture_mw(answerer, true_answers,
                                                     problem.public_weights, mw_iters)
        upper = trace["mw_value"]
    if method in ("lp", "both"):
        solution = best_mixture_exact(answerer, true_answers, problem.public_weights,
                                      lp_time_limit, on_time_limit="interval")
        trace.update(_lp_trace(solution))
        lower = max(lower, solution.lower)
        if solution.value <= upper:
            upper, weights = solution.value, solution.weights
    trace.update({"mixture_lower": lower, "mixture_upper": upper,
                  "mixture_certified": bool(upper - lower <= TOL)})
    return Release("best_mixture", weights=weights,
                   answers=answerer.expand(answerer.answer(weights)),
                   support=problem.public_support, trace=trace,
                   runtime_s=time.perf_counter() - start)


def _lp_trace(solution: MixtureSolution) -> dict:
    return {"lp_value": solution.value if solution.certified else float("nan"),
            "lp_lower": solution.lower, "lp_rounds": solution.rounds,
            "lp_working_cells": solution.working_cells,
            "lp_active_cells": solution.active_cells, "lp_seconds": solution.runtime_s,
            "lp_stopped": solution.stopped}
