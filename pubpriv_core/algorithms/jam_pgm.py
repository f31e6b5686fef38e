"""JAM-PGM (Fuentes, Mullins, McKenna, Miklau & Sheldon 2024, "Joint Selection: Adaptively
Incorporating Public Information for Private Synthetic Data", AISTATS, arXiv 2403.07797).

Each round chooses, in one private selection, between measuring a marginal on the private data
and taking it from the public data:

* joint candidates C × {private, public}, C the downward closure of the workload;
* public proxy ŷ_r = n·M_r(D̂)/m, noise-free and free of privacy cost once chosen;
* round t = 0..T−1 (T = ``rounds``, paper default 30): ρ_t = (ρ − ρ_used)/(T − t), selection
  ε_t = sqrt(8αρ_t) (α = 0.2), measurement σ_t = √2/sqrt(2(1 − α)ρ_t) (replace-one, L2 √2); a
  public pick leaves (1 − α)ρ_t to later rounds ("frugal budgeting");
* expected-improvement scores s(r, m) = ‖M_r(D) − M_r(p̂)‖₁ − e_r^m with
  e_r^priv = sqrt(2/π)·σ_t·n_r and e_r^pub = ‖M_r(D) − ŷ_r‖₁ (the public bias, seen only through
  the selection); no model before the first round, so s = −e_r^m then; sensitivity 4 (the
  public score is a difference of two L1 terms of sensitivity 2);
* size filter JT-SIZE ≤ (ρ_used + ρ_t)/ρ · MAX-SIZE (MAX-SIZE/T in the first round); a candidate
  that fails is dropped for the rest of the run;
* private and public measurements enter the Private-PGM loss with equal weight (stddev 1, as in
  the authors' code); the model is refitted each round, warm-started from the last round's
  potentials with ``iters`` iterations (250 here: the round's model only scores the next
  selection; the authors' code refits from scratch with 1,000), and once more at the end with
  ``final_iters`` (1,000). With ``mbi``'s estimator (``estimator=mbi``) each round's new clique
  set is a new compiled program, which dominates the run time (``quick_compile``, read by that
  estimator only, compiles it at XLA level 0:
  :class:`~pubpriv_core.algorithms.pgm.QuickCompileMirrorDescent`); the joint-table and NumPy
  junction-tree estimators (``auto``: the table on domains of ≤ 2·10⁶ cells, else the tree)
  compile nothing per clique set.
"""
from __future__ import annotations

import math
import time

import numpy as np

from pubpriv_core.algorithms import junction_size, pgm
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.algorithms.select_measure import (MARGINAL_L1, MeasurementSet, PublicMarginals,
                                                    check_model_size, expected_noise_l1,
                                                    parse_options, release)
from pubpriv_core.algorithms.settings import JAMOptions, check_fraction, check_positive_int
from pubpriv_core.privacy.private_data import CliqueScore, PrivateData

PUBLIC_SCORE_SENSITIVITY = 2 * MARGINAL_L1


def parse_jam_options(problem: PublicProblem, options: dict) -> JAMOptions:
    """Parsed and checked options; a bad one is a one-line ValueError naming the fix."""
    opts = parse_options(JAMOptions, options)
    check_positive_int("rounds", opts.rounds, allow_none=False)
    check_fraction("alpha", opts.alpha)
    check_positive_int("iters", opts.iters, allow_none=False)
    check_positive_int("final_iters", opts.final_iters, allow_none=False)
    pgm.check_estimator(opts.estimator)
    check_model_size(problem.workload, opts.max_model_size)
    if problem.public_support is None:
        raise ValueError("jam_pgm needs a public source; set public=... in the config")
    return opts


def round_scales(rho_t: float, alpha: float) -> tuple[float, float]:
    """(selection ε_t, measurement σ_t) of a round with budget ρ_t: ε_t = sqrt(8αρ_t) and
    σ_t = √2/sqrt(2(1 − α)ρ_t) (replace-one, L2 √2)."""
    return math.sqrt(8.0 * alpha * rho_t), 1.0 / math.sqrt((1.0 - alpha) * rho_t)


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_jam_pgm`, without running: the options, a public source,
    ρ(ε, δ), the first round's ε_t, σ_t and charges as positive finite numbers, and a candidate
    within the first round's size limit MAX-SIZE/T."""
    opts = parse_jam_options(problem, options)
    rho_t = target_rho(eps, delta) / opts.rounds
    eps_t, sigma_t = round_scales(rho_t, opts.alpha)
    check_steps(f"JAM-PGM at eps={eps:g} over algo.rounds={opts.rounds}", **{
        "budget rho_t": rho_t, "selection eps": eps_t, "sigma": sigma_t,
        "selection charge": eps_t ** 2 / 8, "measurement charge": 1.0 / sigma_t ** 2})
    limit_mb = opts.max_model_size / opts.rounds
    candidates = pgm.downward_closure(pgm.workload_cliques(problem.workload),
                                      problem.domain)
    if not junction_size.within_limit(pgm.to_mbi(problem.domain), [], candidates,
                                      limit_mb).any():
        raise _no_candidate(opts, limit_mb)


def _no_candidate(opts: JAMOptions, limit_mb: float) -> ValueError:
    return ValueError(f"algo.max_model_size={opts.max_model_size:g} MB leaves no candidate "
                      f"within the first round's limit MAX-SIZE/T = {limit_mb:.3g} MB "
                      f"(T = algo.rounds = {opts.rounds}); raise it or lower algo.rounds")


class JAMRun:
    """The state of one JAM-PGM run; the private data's handle charges the harness's ledger."""

    def __init__(self, problem: PublicProblem, private: PrivateData, opts: JAMOptions):
        self.problem, self.private, self.opts = problem, private, opts
        self.rho = private.budget.rho_total
        self.domain = pgm.to_mbi(problem.domain)
        self.public = PublicMarginals(problem)
        self.candidates = pgm.downward_closure(pgm.workload_cliques(problem.workload),
                                               problem.domain)
        self.measurements = MeasurementSet()
        self.model = None
        self.picks: list[tuple[pgm.Clique, str]] = []

    def eligible(self, limit_mb: float) -> list[pgm.Clique]:
        """Keep the candidates inside a modelled clique or within JT-SIZE ≤ ``limit_mb`` (AIM
        Alg. 2 line 13; :func:`~pubpriv_core.algorithms.junction_size.within_limit`: ``mbi``'s
        junction-tree size, computed exactly on attribute bitsets); drop the rest. Only the
        first round can leave none (later, a measured clique passes as inside itself)."""
        keep = junction_size.within_limit(self.domain, self.measurements.cliques,
                                          self.candidates, limit_mb)
        if not keep.any():
            raise _no_candidate(self.opts, limit_mb)
        self.candidates = [r for r, ok in zip(self.candidates, keep) if ok]
        return self.candidates

    def joint_candidates(self, eligible: list[pgm.Clique], sigma: float) -> list[CliqueScore]:
        """[s(r, private) for r] + [s(r, public) for r]: ‖M_r(D) − M_r(p̂)‖₁ − e_r^m, the
        model term left out before the first fit (module docstring)."""
        model = [] if self.model is None else [pgm.ModelMarginals(self.model)]
        improvement = {r: tuple((1.0, marginals(r)) for marginals in model) for r in eligible}
        private = [CliqueScore(r, improvement[r],
                               -expected_noise_l1(sigma, self.problem.domain.size(r)))
                   for r in eligible]
        public = [CliqueScore(r, improvement[r] + ((-1.0, self.public(r)),)) for r in eligible]
        return private + public

    def step(self, t: int) -> None:
        """Round t: budget, joint selection, measurement or public proxy, refit."""
        spent = self.private.budget.spent
        rho_t = (self.rho - spent) / (self.opts.rounds - t)
        eps, sigma = round_scales(rho_t, self.opts.alpha)
        eligible = self.eligible((spent + rho_t) / self.rho * self.opts.max_model_size)
        pick = self.private.select_clique(self.joint_candidates(eligible, sigma), eps,
                                          f"round {t + 1}",
                                          sensitivity=PUBLIC_SCORE_SENSITIVITY)
        clique = eligible[pick % len(eligible)]
        if pick < len(eligible):
            self.measurements.add(clique, self.private.gaussian_clique(clique, sigma,
                                                                       str(clique)), 1.0)
            self.picks.append((clique, "private"))
        else:
            self.measurements.add(clique, self.public(clique), 1.0)
            self.picks.append((clique, "public"))
        self.fit(self.opts.iters)

    def fit(self, iters: int) -> None:
        self.model = pgm.fit(self.domain, self.measurements.measurements(), self.problem.n, iters,
                             warm_start=self.model, quick_compile=self.opts.quick_compile,
                             estimator=self.opts.estimator)


def run_jam_pgm(problem: PublicProblem, private: PrivateData, *, T: int,
                rng: np.random.Generator, **options) -> Release:
    """JAM-PGM spending the private data's budget ρ(ε, δ); ``T`` is unused (``rounds`` is
    JAM-PGM's own round count)."""
    start = time.perf_counter()
    opts = parse_jam_options(problem, options)
    run = JAMRun(problem, private, opts)
    for t in range(opts.rounds):
        run.step(t)
    run.fit(opts.final_iters)
    kinds = [kind for _, kind in run.picks]
    trace = {"public_picks": kinds.count("public"), "private_picks": kinds.count("private"),
             "selected": [f"{','.join(c)}:{kind}" for c, kind in run.picks]}
    return release("jam_pgm", problem, run.model, start, opts.rounds, trace)
