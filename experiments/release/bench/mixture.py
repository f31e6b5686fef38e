"""Time the exact best mixture error (Liu et al. 2021, Def. 4.1) on the figures' public sources.

For each setting — ADULT (Fig. 2: 3-way, W = 256, every public bias Δ) and every public source of
``fig1_nist``, ``fig3_nist`` and ``nist_shift`` — builds the problem of repetition 0 exactly as the
sweep does, solves the LP by constraint generation
(:func:`~pubpriv_core.algorithms.best_mixture.best_mixture_exact`) and prints the support size,
the present cells, the floor c (largest answer of an absent cell), the certified value with its
lower bound and whether that bound is c itself (f = c) or a restricted LP's value, the rounds
(0: certified by the first-order start alone), working and active cells, the wall and CPU
seconds of the whole call (incidence matrix and solve; they differ when other processes share
the cores) and the wall seconds of the solve alone, the load average at the end of the solve,
and the paper's MW estimate (100 rounds).

    PUBPRIV_DATA=../shared/data python scripts/bench_mixture.py [--only nist] [--no-mw]
        [--time-limit 60]
"""
from __future__ import annotations

import os
import time

from experiments.release.problems import build_problem, data_context
from experiments.release.sweep import compose_exact
from pubpriv_core.algorithms.best_mixture import _split, best_mixture_exact, best_mixture_mw
from pubpriv_core.algorithms.mixture_lp import LPTimeLimitError

_NIST = ["experiment=fig1_nist", "algo=best_mixture"]
_FULL = [*_NIST, "dataset.reduced=false", "workload.k=3"]
_MA_PUBLICS = ("{year:2018}", "{region:national}", "{region:tx}")
_TX_PUBLICS = ("{year:2018}", "{region:national}", "{region:ma}")
_NATIONAL_PUBLICS = ("{region:ma}", "{region:tx}", "{year:2018}")
#: Fig. 2's public biases Δ (``conf/experiment/fig2_adult_bias_mixture.yaml``)
_DELTAS = (0.0, -0.05, 0.05, -0.1, 0.1, -0.2, 0.2, 0.3, 0.45, 0.65)

#: (label, Hydra overrides) of every timed setting.
SETTINGS = [
    *[(f"ADULT Δ={d:g}", ["experiment=fig2_adult_bias_mixture", f"public.delta={d}"])
      for d in _DELTAS],
    *[(f"NIST reduced MA-2019, public {p}", [*_NIST, f"public={p}"]) for p in _MA_PUBLICS],
    *[(f"NIST full MA-2019, public {p}", [*_FULL, f"public={p}"]) for p in _MA_PUBLICS],
    *[(f"NIST full TX-2019, public {p}", [*_FULL, "dataset.region=tx", f"public={p}"])
      for p in _TX_PUBLICS],
    *[(f"NIST full MA-2019, public {p} p={f}",
       ["experiment=fig3_nist", "algo=best_mixture", f"public={p}", f"public.fraction={f}"])
      for p in ("{year:2018}", "{region:national}") for f in (0.1, 0.01, 0.001)],
    *[(f"NIST full national-2019, public {p}", [*_FULL, "dataset.region=national", f"public={p}"])
      for p in _NATIONAL_PUBLICS],
]


def measure(overrides: list[str], with_mw: bool, time_limit: float) -> str:
    """One result line for the problem of repetition 0 of the composed config."""
    cfg = compose_exact(overrides)
    with data_context(cfg.get("data_root")):
        problem = build_problem(cfg, 0)
    answerer = problem.public_answerer
    present, floor = _split(answerer, problem.true_answers)
    line = f"support {answerer.size:6d}  present {present.size:7d}  floor {floor:.6f}  "
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        solution = best_mixture_exact(answerer, problem.true_answers, problem.public_weights,
                                      time_limit)
    except LPTimeLimitError:
        line += f"not certified within {time_limit:g} s ({time.process_time() - cpu:.1f} s CPU)"
    else:
        relation = "= c" if solution.lower == floor else "> c"
        line += (f"f {solution.value:.6f} (lower {solution.lower:.6f}, {relation})  rounds "
                 f"{solution.rounds:2d}  working {solution.working_cells:6d}  active "
                 f"{solution.active_cells:5d}  {time.perf_counter() - wall:6.1f} s wall "
                 f"({time.process_time() - cpu:.1f} s CPU; solve {solution.runtime_s:.1f} s)")
    line += f"  load {os.getloadavg()[0]:.1f}"
    if with_mw:
        start = time.perf_counter()
        mw, _ = best_mixture_mw(answerer, problem.true_answers, problem.public_weights, 100)
        line += f"  | MW-100 {mw:.6f} ({time.perf_counter() - start:.1f} s)"
    return line


def run_benchmark(only: str = "", with_mw: bool = True, time_limit: float = 60.0) -> None:
    """Time every setting whose label contains ``only``; one line each."""
    for label, overrides in SETTINGS:
        if only.lower() in label.lower():
            print(f"{label:55s} {measure(overrides, with_mw, time_limit)}", flush=True)
