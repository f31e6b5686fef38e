"""AIM (McKenna, Mullins, Sheldon & Miklau 2022, "AIM: An Adaptive and Iterative Mechanism for
Differentially Private Synthetic Data", PVLDB 15(11), arXiv 2201.12677), replace-one neighbours
(``relation``: or add/remove, the paper's and its reference code's, for comparisons with them).

Algorithm 2 with Algorithms 3 (initialisation) and 4 (budget annealing):

* candidates C = downward closure of the workload, weight w_r = Σ_{s∈W} |r ∩ s| (line 8);
* budget scale T (``rounds``, paper 16d), measurement share α = 0.9: σ₀ = Δ₂·sqrt(T/(2αρ)) and
  ε₀ = sqrt(8(1 − α)ρ/T), so a round costs Δ₂²/(2σ²) + ε²/8 = ρ/T (lines 4, 9; Δ₂ = √2
  replace-one, 1 add/remove as in the paper);
* Alg. 3: every one-way marginal measured with σ₀, then the first model p̂₀;
* each round: the size filter JT-SIZE ≤ (ρ_used/ρ)·MAX-SIZE (line 13; cliques already inside
  the model always pass), the exponential mechanism on
  q_r = w_r·(‖M_r(D) − M_r(p̂)‖₁ − sqrt(2/π)·σ·n_r) with Δ = Δ₁·max w_r (line 14; Δ₁ = 2
  replace-one, 1 add/remove), a Gaussian
  measurement (line 15), a warm-started Private-PGM fit (line 16), and annealing: σ ← σ/2,
  ε ← 2ε when the new model moved M_r by at most sqrt(2/π)·σ·n_r (Alg. 4 lines 2–6);
* the last round spends exactly what is left (Alg. 4 lines 8–10), then a final fit.

``public_init``: the "pre-train on public data" baseline compared with JAM-PGM (Fuentes et al.
2024, §1): public proxies ŷ_r = n·M_r(D̂)/m enter the loss with stddev ``public_stddev`` from the
first model on; each is dropped once the private data measure its clique. Public data cost no
privacy. ``public_cliques`` picks the proxies: ``workload``, the workload marginals (as many as fit
in MAX-SIZE, in workload order), or ``tree``, the d − 1 pairs of a maximum spanning tree of the
public data, pair (a, b) weighted by ‖ŷ_ab − ŷ_a ⊗ ŷ_b / n‖₁ (Chow–Liu-like, computed on public
data only, so free), which keeps the pre-trained model a tree: on NIST reduced the workload
variant puts every 3-way marginal in one 97,200-cell junction-tree clique and a run takes minutes.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree

from pubpriv_core.algorithms import junction_size, pgm
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.algorithms.select_measure import (MeasurementSet, PublicMarginals,
                                                    check_model_size, expected_noise_l1,
                                                    model_total, parse_options, release)
from pubpriv_core.algorithms.settings import (PUBLIC_CLIQUES, AIMOptions, check_fraction,
                                              check_positive_int)
from pubpriv_core.privacy.private_data import CliqueScore, PrivateData, relation

def parse_aim_options(problem: PublicProblem, options: dict) -> AIMOptions:
    """Parsed and checked options; a bad one is a one-line ValueError naming the fix."""
    opts = parse_options(AIMOptions, options)
    check_aim_options(opts, len(problem.domain))
    check_model_size(problem.workload, opts.max_model_size)
    if opts.public_init and problem.public_support is None:
        raise ValueError("algo.public_init=true needs a public source; set public=... in the "
                         "config")
    return opts


def check_aim_options(opts: AIMOptions, d: int) -> None:
    check_positive_int("rounds", opts.rounds)
    if opts.rounds is not None and opts.rounds < d:
        raise ValueError(f"algo.rounds={opts.rounds} is below the {d} attributes: the "
                         f"one-way measurements alone would exceed the budget; pass >= {d}")
    check_fraction("alpha", opts.alpha)
    check_positive_int("iters", opts.iters, allow_none=False)
    check_positive_int("final_iters", opts.final_iters, allow_none=False)
    pgm.check_estimator(opts.estimator)
    if opts.public_init and not relation(opts.relation).public_n:
        raise ValueError("algo.public_init=true needs algo.relation=replace_one (a public "
                         "proxy would fix the private total); drop one of them")
    if opts.public_cliques not in PUBLIC_CLIQUES:
        raise ValueError(f"unknown algo.public_cliques={opts.public_cliques!r}; choose from "
                         f"{', '.join(PUBLIC_CLIQUES)}")
    if not opts.public_stddev > 0:
        raise ValueError(f"algo.public_stddev must be > 0, got {opts.public_stddev!r}; "
                         "pass e.g. 1.0")


def initial_scales(rho: float, d: int, opts: AIMOptions) -> tuple[float, float]:
    """(σ₀, ε₀) for the budget scale T = ``rounds`` (null: 16·d): σ₀ = Δ₂·sqrt(T/(2αρ)),
    ε₀ = sqrt(8(1 − α)ρ/T) (Alg. 2 lines 4, 9), so a round costs ρ/T."""
    scale = opts.rounds or 16 * d
    return (relation(opts.relation).marginal_l2 * math.sqrt(scale / (2 * opts.alpha * rho)),
            math.sqrt(8 * (1 - opts.alpha) * rho / scale))


def privacy_terms(options: dict) -> tuple[str, str]:
    """zCDP over the neighbouring relation of ``options["relation"]`` (replace-one default)."""
    return "zcdp", options.get("relation", "replace_one")


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_aim`, without running: the options, ρ(ε, δ), and the
    first round's σ₀, ε₀ and charges Δ₂²/(2σ₀²), ε₀²/8 as positive finite numbers."""
    opts = parse_aim_options(problem, options)
    sigma, eps0 = initial_scales(target_rho(eps, delta), len(problem.domain), opts)
    l2 = relation(opts.relation).marginal_l2
    check_steps(f"AIM at eps={eps:g}", sigma=sigma, eps=eps0,
                **{"measurement charge": l2 ** 2 / (2 * sigma ** 2),
                   "selection charge": eps0 ** 2 / 8})


def public_tree(public: PublicMarginals, domain) -> list[pgm.Clique]:
    """The pairs of a maximum spanning tree over the attributes, pair (a, b) weighted by the
    public proxies' dependence ‖ŷ_ab − ŷ_a ⊗ ŷ_b / n‖₁ (no private data read)."""
    attributes = domain.attributes
    weights = np.zeros((len(attributes), len(attributes)))
    for i, j in itertools.combinations(range(len(attributes)), 2):
        a, b = attributes[i], attributes[j]
        pair = public((a, b))
        independent = np.outer(public((a,)), public((b,))).ravel() / pair.sum()
        weights[i, j] = np.abs(pair - independent).sum() + 1e-12   # 0 would mean "no edge"
    tree = minimum_spanning_tree(-weights).tocoo()
    return [pgm.canonical(domain, (attributes[i], attributes[j]))
            for i, j in zip(tree.row, tree.col)]


class AIMRun:
    """The state of one AIM run: measurements, model and noise scales; the private data's
    handle charges the harness's ledger."""

    def __init__(self, problem: PublicProblem, private: PrivateData, opts: AIMOptions):
        self.problem, self.private_data, self.opts = problem, private, opts
        self.rho = private.budget.rho_total
        self.domain = pgm.to_mbi(problem.domain)
        self.public_marginal = PublicMarginals(problem)
        self.relation = private.relation
        workload = pgm.workload_cliques(problem.workload)
        self.candidates = pgm.downward_closure(workload, problem.domain)
        self.weight = {r: sum(len(set(r) & set(s)) for s in workload) for r in self.candidates}
        self.sigma, self.eps = initial_scales(self.rho, len(self.domain), opts)
        self.private = MeasurementSet()
        self.public = MeasurementSet()
        if opts.public_init:
            self._add_public_proxies(workload if opts.public_cliques == "workload"
                                     else public_tree(self.public_marginal, problem.domain))
        self.selected: list[pgm.Clique] = []
        self.model = None

    def _add_public_proxies(self, cliques: list[pgm.Clique]) -> None:
        for clique in cliques:
            size = pgm.model_size_mb(self.domain, [*self.public.cliques, clique])
            if size <= self.opts.max_model_size:
                self.public.add(clique, self.public_marginal(clique), self.opts.public_stddev)

    def measure(self, clique: pgm.Clique) -> None:
        """Gaussian measurement of ``clique`` at the current σ; it supersedes a public proxy."""
        noisy = self.private_data.gaussian_clique(clique, self.sigma, str(clique))
        self.private.add(clique, noisy, self.sigma)
        self.public.discard(clique)

    def fit(self, iters: int) -> None:
        self.model = pgm.fit(self.domain,
                             self.private.measurements() + self.public.measurements(),
                             model_total(self.relation, self.problem), iters,
                             warm_start=self.model,
                             estimator=self.opts.estimator)

    def model_cliques(self) -> list[pgm.Clique]:
        return self.private.cliques + self.public.cliques

    def eligible(self, limit_mb: float) -> list[pgm.Clique]:
        """Candidates inside a modelled clique, or keeping JT-SIZE ≤ ``limit_mb`` (line 13;
        :func:`~pubpriv_core.algorithms.junction_size.within_limit`: ``mbi``'s junction-tree
        size, computed exactly on attribute bitsets)."""
        keep = junction_size.within_limit(self.domain, self.model_cliques(), self.candidates,
                                          limit_mb)
        return [r for r, ok in zip(self.candidates, keep) if ok]

    def round_cost(self) -> float:
        return self.relation.marginal_l2 ** 2 / (2.0 * self.sigma ** 2) + self.eps ** 2 / 8.0

    def plan_round(self) -> bool:
        """Alg. 4 lines 8–10: spend all that is left if less than two rounds remain; True then."""
        remaining = self.rho - self.private_data.budget.spent
        if remaining > 2.0 * self.round_cost():
            return False
        self.sigma = self.relation.marginal_l2 * math.sqrt(1.0 / (2.0 * self.opts.alpha * remaining))
        self.eps = math.sqrt(8.0 * (1.0 - self.opts.alpha) * remaining)
        return True

    def select(self) -> tuple[pgm.Clique, np.ndarray]:
        """Line 14: the exponential mechanism over the eligible candidates, scored
        w_r·(‖M_r(D) − M_r(p̂)‖₁ − sqrt(2/π)·σ·n_r) by the handle."""
        used = self.private_data.budget.spent + self.round_cost()
        eligible = self.eligible(used / self.rho * self.opts.max_model_size)
        marginals = pgm.ModelMarginals(self.model)
        estimates = [marginals(r) for r in eligible]
        scored = [CliqueScore(r, ((1.0, est),),
                              -expected_noise_l1(self.sigma, self.problem.domain.size(r)),
                              float(self.weight[r])) for r, est in zip(eligible, estimates)]
        pick = self.private_data.select_clique(scored, self.eps,
                                               f"round {len(self.selected) + 1}")
        return eligible[pick], estimates[pick]

    def run_rounds(self) -> None:
        """Alg. 3 (every one-way marginal measured, the first fit p̂₀), then rounds (lines
        11–17) until the budget is spent; the final fit is left to the caller."""
        for clique in self.candidates:
            if len(clique) == 1:
                self.measure(clique)
        self.fit(self.opts.iters)
        while not self.step():
            pass

    def step(self) -> bool:
        """One round (lines 11–17); True after the last one."""
        last = self.plan_round()
        clique, before = self.select()
        self.selected.append(clique)
        self.measure(clique)
        self.fit(self.opts.iters)
        moved = np.abs(pgm.ModelMarginals(self.model)(clique) - before).sum()
        if moved <= expected_noise_l1(self.sigma, self.problem.domain.size(clique)):
            self.sigma, self.eps = self.sigma / 2.0, self.eps * 2.0
        return last


def run_aim(problem: PublicProblem, private: PrivateData, *, T: int,
            rng: np.random.Generator, **options) -> Release:
    """AIM spending the private data's budget ρ(ε, δ); ``T`` is unused: the rounds follow from
    the budget scale ``rounds`` and the annealing."""
    start = time.perf_counter()
    opts = parse_aim_options(problem, options)
    run = AIMRun(problem, private, opts)
    run.run_rounds()
    run.fit(opts.final_iters)
    trace = {"public_init": opts.public_init, "public_proxies": len(run.public.cliques),
             "selected": [",".join(c) for c in run.selected], "final_sigma": run.sigma}
    return release("aim", problem, run.model, start, len(run.selected), trace)
