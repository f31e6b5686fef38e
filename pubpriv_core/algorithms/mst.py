"""MST (McKenna, Miklau & Sheldon 2021, "Winning the NIST Contest: A scalable and general approach
to differentially private synthetic data", JPC, arXiv 2108.04978), replace-one neighbours.

Select–measure–generate with a budget split in thirds:

1. ρ/3: every one-way marginal with Gaussian noise, σ₁ = sqrt(3d/ρ) (d marginals at 1/σ₁² each);
2. ρ/3: a maximum spanning tree on the attributes, built Kruskal-style in d − 1 exponential-
   mechanism picks at ε = sqrt(8(ρ/3)/(d − 1)) among the pairs joining two components, the
   weight of (a, b) being ‖M_ab(D) − M_ab(p̂)‖₁ (sensitivity 2) for the model p̂ fitted to the
   one-way measurements;
3. ρ/3: the d − 1 tree marginals with σ₂ = sqrt(3(d − 1)/ρ);
4. Private-PGM on all measurements (stddev σ₁, σ₂): the released model is a tree.

The add/remove σ's of the paper, sqrt(3d/(2ρ)) and sqrt(3(d − 1)/(2ρ)), grow by √2 at L2
sensitivity √2. The paper's domain compression (rare values merged after step 1) is not applied:
every attribute keeps all its values.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from pubpriv_core.algorithms import pgm
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho
from pubpriv_core.algorithms.select_measure import MeasurementSet, parse_options, release
from pubpriv_core.algorithms.settings import MSTOptions, check_positive_int
from pubpriv_core.privacy.private_data import REPLACE_ONE, CliqueScore, PrivateData


def parse_mst_options(problem: PublicProblem, options: dict) -> MSTOptions:
    """Parsed and checked options; a bad one is a one-line ValueError naming the fix."""
    opts = parse_options(MSTOptions, options)
    check_positive_int("iters", opts.iters, allow_none=False)
    check_positive_int("final_iters", opts.final_iters, allow_none=False)
    pgm.check_estimator(opts.estimator)
    d = len(problem.domain)
    if d < 2:
        raise ValueError(f"MST needs at least 2 attributes, the dataset has {d}; use algo=aim")
    return opts


def budget_scales(rho: float, d: int) -> tuple[float, float, float]:
    """(σ₁, ε, σ₂): the thirds of ρ over d one-way measurements, d − 1 edge picks and d − 1
    pair measurements (steps 1–3 of the module docstring)."""
    return (math.sqrt(3 * d / rho), math.sqrt(8 * rho / 3 / (d - 1)),
            math.sqrt(3 * (d - 1) / rho))


def check(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_mst`, without running: the options, d ≥ 2, ρ(ε, δ), and
    every step's scale and charge as positive finite numbers."""
    parse_mst_options(problem, options)
    sigma1, edge_eps, sigma2 = budget_scales(target_rho(eps, delta),
                                             len(problem.domain))
    l2 = REPLACE_ONE.marginal_l2
    check_steps(f"MST at eps={eps:g}", **{
        "one-way sigma": sigma1, "edge eps": edge_eps, "pair sigma": sigma2,
        "one-way charge": l2 ** 2 / (2 * sigma1 ** 2), "edge charge": edge_eps ** 2 / 8,
        "pair charge": l2 ** 2 / (2 * sigma2 ** 2)})


def spanning_tree(private: PrivateData, model, attributes: tuple[str, ...],
                  eps: float) -> list[pgm.Clique]:
    """Kruskal with private picks: d − 1 exponential-mechanism selections over the pairs that
    join two components, scored by ‖M_ab(D) − M_ab(p̂)‖₁ (sensitivity 2) by the handle."""
    marginals = pgm.ModelMarginals(model)
    pairs = list(itertools.combinations(attributes, 2))
    estimate = {p: marginals(p) for p in pairs}
    component = {a: a for a in attributes}
    tree: list[pgm.Clique] = []
    for step in range(len(attributes) - 1):
        joining = [p for p in pairs if component[p[0]] != component[p[1]]]
        scored = [CliqueScore(p, ((1.0, estimate[p]),)) for p in joining]
        a, b = joining[private.select_clique(scored, eps, f"edge {step + 1}")]
        old, new = component[b], component[a]
        component = {x: new if c == old else c for x, c in component.items()}
        tree.append((a, b))
    return tree


def run_mst(problem: PublicProblem, private: PrivateData, *, T: int,
            rng: np.random.Generator, **options) -> Release:
    """MST spending the private data's budget ρ(ε, δ); ``T`` is unused (d − 1 tree edges)."""
    start = time.perf_counter()
    opts = parse_mst_options(problem, options)
    attributes = problem.domain.attributes
    d = len(attributes)
    domain = pgm.to_mbi(problem.domain)
    measurements = MeasurementSet()
    sigma1, edge_eps, sigma2 = budget_scales(private.budget.rho_total, d)
    for a in attributes:
        measurements.add((a,), private.gaussian_clique((a,), sigma1, a), sigma1)
    model = pgm.fit(domain, measurements.measurements(), problem.n, opts.iters,
                    estimator=opts.estimator)
    tree = spanning_tree(private, model, attributes, edge_eps)
    for pair in tree:
        measurements.add(pair, private.gaussian_clique(pair, sigma2, str(pair)), sigma2)
    model = pgm.fit(domain, measurements.measurements(), problem.n, opts.final_iters,
                    warm_start=model, estimator=opts.estimator)
    trace = {"selected": [",".join(p) for p in tree], "sigma_one_way": sigma1,
             "sigma_two_way": sigma2}
    return release("mst", problem, model, start, d - 1, trace)
