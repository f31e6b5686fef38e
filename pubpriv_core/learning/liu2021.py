"""Liu, Vietri, Steinke, Ullman, Wu (ICML 2021) theory checks on synthetic data with known models.

The synthetic pair (``pubpriv_core.data.synthetic``) gives a private chain model μ and a public
chain model ν = mix(μ, R; shift) with exact D_2(μ‖ν) and D_∞(μ‖ν).  Here:

- :func:`draw_problem`: D̃ ∼ μ^n, D̂ ∼ ν^m, the k-way marginal workload Q and the release problem;
- :func:`best_mixture_error`: f_{D̃,Q}(X̂) of Def 4.1 (the lead's exact LP, or its MW upper estimate);
- :func:`prop43_alpha`: the accuracy Prop 4.3 certifies at a public size m, i.e. the α solving
  m = (32·e^{D2}/α² + 8·e^{D∞}/(3α))·ln((4|Q| + 4)/β) (the registered bound inverted);
- :func:`pmwpub_max_error`: PMW^Pub's max error on Q (Alg. 1, the lead's implementation).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from pubpriv_core.algorithms import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.best_mixture import best_mixture_lp, best_mixture_mw
from pubpriv_core.bounds import evaluate
from pubpriv_core.data.public import from_dataset
from pubpriv_core.data.synthetic import SyntheticPair, make_pair
from pubpriv_core.queries import marginal_workload


@dataclass(frozen=True)
class Setting:
    """Synthetic pair (preset, shift, model seed) and the k-way marginal workload (all sets)."""

    preset: str = "small"
    shift: float = 0.3
    model_seed: int = 0
    k: int = 3

    def pair(self) -> SyntheticPair:
        return make_pair(self.preset, self.shift, self.model_seed)


def draw_problem(setting: Setting, n: int, m: int, rng: np.random.Generator) -> ReleaseProblem:
    """D̃ ∼ μ^n and D̂ ∼ ν^m (fresh draws from the exact models) with X̂, A_0 and Q."""
    if n < 1 or m < 1:
        raise ValueError(f"n and m must be >= 1, got n={n}, m={m}; pass positive sample sizes")
    pair = setting.pair()
    private = pair.private.sample(int(n), rng)
    public = from_dataset(pair.public.sample(int(m), rng))
    workload = marginal_workload(private.domain, setting.k, None, 0)
    return ReleaseProblem(private, workload, public.support.records, public.weights, int(m))


def best_mixture_error(problem: ReleaseProblem, method: str = "lp") -> float:
    """f_{D̃,Q}(X̂) (Def 4.1): exact by linear programming (``lp``) or the paper's upper
    estimate, non-private MW stopped after 100 rounds (``mw``, for supports too large for the LP)."""
    if method == "lp":
        return best_mixture_lp(problem.public_answerer, problem.true_answers)[0]
    if method == "mw":
        return best_mixture_mw(problem.public_answerer, problem.true_answers, problem.public_weights, 100)[0]
    raise ValueError(f"unknown best-mixture method {method!r}; use 'lp' or 'mw'")


def prop43_alpha(m: int, beta: float, Q_size: int, D2: float, Dinf: float) -> float:
    """Smallest α ∈ (0, 1) with liu2021.prop4.3.m(α) ≤ m (NaN if even α → 1 needs more than m)."""
    def need(a: float) -> float:
        return evaluate("liu2021.prop4.3.m", alpha=a, beta=beta, Q_size=Q_size, D2=D2, Dinf=Dinf).value

    hi = 1 - 1e-12
    if need(hi) > m:
        return float("nan")
    return brentq(lambda a: math.log(need(a)) - math.log(m), 1e-9, hi, xtol=1e-12)


def pmwpub_max_error(problem: ReleaseProblem, eps: float, T: int, rng: np.random.Generator,
                     delta: float | None = None) -> float:
    """Max error over Q of PMW^Pub (average iterate, as in the paper) at (ε, δ = 1/n² default)."""
    delta = 1.0 / problem.n ** 2 if delta is None else delta
    release = run_algorithm("pmwpub", problem, eps=eps, delta=delta, T=int(T), rng=rng)
    return release.errors(problem.true_answers)["max_error"]
