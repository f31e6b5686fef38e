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

Two more groups of settings, chosen by ``--only``:

* ``liu2021 s=…`` — the |X̂| sweep of ``experiments/theory/liu2021.py`` (``support`` block of
  ``conf/experiment/theory_liu2021.yaml``: preset ``small``, all 120 3-way marginals, n = 10,000,
  ``core`` = 256 rows of the public model at shift 0.3 plus uniform decoys, A_0 uniform), built
  by the sweep's own :func:`~experiments.theory.liu2021.sweep_record` inputs for s = 1,024,
  2,048, 4,096 and every trial, solved by the route its ``best_mixture_error`` takes;
* ``liu2021 m=… shift=… trial=…`` — the exact LPs of the same preset's ``mixture`` block at its
  largest public sizes (m = 3,000 and 10,000 samples, n = 50,000), drawn as
  :func:`~experiments.theory.liu2021.mixture_record` draws them;
* ``paper scale shift=…`` — ``fig1_paper_scale``'s problem (synthetic ``acs_full``,
  n = 130,000, a 130,000-row public source per shift, W = 4,096), where the incidence matrix
  (532M non-zeros) is not built: the solver runs on the engine
  (:class:`~pubpriv_core.algorithms.mixture_operator.SupportIncidence`) and reports the
  certified interval [lower, upper] it reaches within the time limit (``on_time_limit=
  "interval"``), with the MW-100 estimate beside it.
"""
from __future__ import annotations

import os
import time

from experiments.release.running.problems import build_problem, data_context
from experiments.release.running.sweep import compose_exact
from pubpriv_core.algorithms.best_mixture import _split, best_mixture_exact, best_mixture_mw
from pubpriv_core.algorithms.mixture_lp import OPERATOR_JOIN_NONZEROS, LPTimeLimitError

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


#: liu2021's |X̂| sweep: support sizes and trials timed (the sweep's own trials: 5)
LIU2021_SIZES, LIU2021_TRIALS = (1024, 2048, 4096), 5
#: fig1_paper_scale's public shifts
PAPER_SHIFTS = (0.0, 0.1, 0.3, 0.6)
SETTINGS += [(f"liu2021 s={s} trial={r}", ("liu2021", s, r))
             for s in LIU2021_SIZES for r in range(LIU2021_TRIALS)]
#: liu2021's mixture-vs-m sweep: its exact LPs at the largest public sizes (lp_max_m)
LIU2021_M = (3000, 10000)
SETTINGS += [(f"liu2021 m={m} shift={shift:g} trial={r}", ("liu2021-m", m, shift, r))
             for m in LIU2021_M for shift in (0.0, 0.3, 0.6) for r in range(LIU2021_TRIALS)]
SETTINGS += [(f"paper scale shift={shift:g}", ["experiment=fig1_paper_scale", "algo=best_mixture",
                                               f"public.shift={shift}"])
             for shift in PAPER_SHIFTS]


def liu2021_problem(s: int, trial: int):
    """The problem of trial ``trial`` at |X̂| = s of liu2021's ``support`` sweep, as
    :func:`~experiments.theory.liu2021.sweep_record` builds it from the preset."""
    from experiments.theory.runner import compose, seeded_rng
    from pubpriv_core.learning import liu2021 as lv

    cfg = compose(["experiment=theory_liu2021"]).experiment
    p = cfg.support
    pair = lv.padded_pair(cfg.preset, 0, float(p.shift), cfg.model_seed)
    return lv.support_problem(pair, int(p.n), s, seeded_rng(cfg, 4, 0, s, trial), k=cfg.k,
                              workload_size=p.workload_size, core=p.core,
                              workload_seed=cfg.seed)


def liu2021_mixture_problem(m: int, shift: float, trial: int):
    """The problem of trial ``trial`` with m public samples at ``shift`` of liu2021's
    ``mixture`` sweep, as :func:`~experiments.theory.liu2021.mixture_record` draws it."""
    from experiments.theory.runner import compose, stream_rng
    from pubpriv_core.learning import liu2021 as lv

    cfg = compose(["experiment=theory_liu2021"]).experiment
    setting = lv.Setting(cfg.preset, float(shift), cfg.model_seed, cfg.k)
    return lv.draw_problem(setting, int(cfg.mixture.n), m,
                           stream_rng(cfg.seed, 1, int(1000 * shift), m, trial))


def _progress(cpu: float, floor: float):
    """A callback printing the interval after the descent and each round, with the wall and
    CPU seconds of the solve so far (so a loaded run tells what a quiet one gets in its time)."""
    def show(interval) -> None:
        print(f"    after {interval.runtime_s:7.1f} s wall, {time.process_time() - cpu:7.1f} s CPU: "
              f"f in [{interval.lower:.6f}, {interval.value:.6f}] (gap "
              f"{interval.value - interval.lower:.6f}, floor c {floor:.6f}); rounds "
              f"{interval.rounds}, working {interval.working_cells}; load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    return show


def measure(overrides, with_mw: bool, time_limit: float, show_progress: bool = False,
            join_nonzeros: int = OPERATOR_JOIN_NONZEROS) -> str:
    """One result line for the problem of repetition 0 of the composed config (or of a
    liu2021 trial)."""
    if overrides[0] == "liu2021":
        problem = liu2021_problem(*overrides[1:])
    elif overrides[0] == "liu2021-m":
        problem = liu2021_mixture_problem(*overrides[1:])
    else:
        cfg = compose_exact(overrides)
        with data_context(cfg.get("data_root")):
            problem = build_problem(cfg, 0)
    answerer = problem.public_answerer
    present, floor = _split(answerer, problem.true_answers)
    line = f"support {answerer.size:6d}  present {present.size:7d}  floor {floor:.6f}  "
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        solution = best_mixture_exact(answerer, problem.true_answers, problem.public_weights,
                                      time_limit, on_time_limit="interval",
                                      join_nonzeros=join_nonzeros,
                                      progress=_progress(cpu, floor) if show_progress else None)
    except LPTimeLimitError:
        line += f"not certified within {time_limit:g} s ({time.process_time() - cpu:.1f} s CPU)"
    else:
        if not solution.certified:
            line += (f"not certified within {time_limit:g} s: f in [{solution.lower:.6f}, "
                     f"{solution.value:.6f}] (gap {solution.value - solution.lower:.6f}; "
                     f"lower {'= c' if solution.lower == floor else '> c'})  rounds "
                     f"{solution.rounds:2d}  working {solution.working_cells:6d}  "
                     f"{time.perf_counter() - wall:6.1f} s wall "
                     f"({time.process_time() - cpu:.1f} s CPU)  load {os.getloadavg()[0]:.1f}")
            return line + _mw_part(answerer, problem, with_mw)
        relation = "= c" if solution.lower == floor else "> c"
        line += (f"f {solution.value:.6f} (lower {solution.lower:.6f}, {relation})  rounds "
                 f"{solution.rounds:2d}  working {solution.working_cells:6d}  active "
                 f"{solution.active_cells:5d}  {time.perf_counter() - wall:6.1f} s wall "
                 f"({time.process_time() - cpu:.1f} s CPU; solve {solution.runtime_s:.1f} s)")
    line += f"  load {os.getloadavg()[0]:.1f}"
    return line + _mw_part(answerer, problem, with_mw)


def _mw_part(answerer, problem, with_mw: bool) -> str:
    if not with_mw:
        return ""
    start = time.perf_counter()
    mw, _ = best_mixture_mw(answerer, problem.true_answers, problem.public_weights, 100)
    return f"  | MW-100 {mw:.6f} ({time.perf_counter() - start:.1f} s)"


def run_benchmark(only: str = "", with_mw: bool = True, time_limit: float = 60.0,
                  show_progress: bool = False,
                  join_nonzeros: int = OPERATOR_JOIN_NONZEROS) -> None:
    """Time every setting whose label contains ``only``; one line each (with ``show_progress``,
    the interval after every round too). ``join_nonzeros``: the non-zeros joining per round on
    the engine operator (the paper-scale settings)."""
    for label, overrides in SETTINGS:
        if only.lower() in label.lower():
            if show_progress:
                print(label, flush=True)
            line = measure(overrides, with_mw, time_limit, show_progress, join_nonzeros)
            print(f"{label:55s} {line}", flush=True)
