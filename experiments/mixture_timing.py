"""The exact best mixture error (Liu et al. 2021, Def. 4.1) of a problem, timed: the part the
release wing's ``mixture`` benchmark (:mod:`experiments.release.bench.mixture`, the figures'
public sources) and the theory wing's ``mixture_theory`` benchmark
(:mod:`experiments.theory.bench_mixture`, liu2021's LPs) share; it uses the library alone.

Per setting one line: the support size, the present cells, the floor c (largest answer of an
absent cell), the certified value with its lower bound and whether that bound is c itself
(f = c) or a restricted LP's value, the rounds (0: certified by the first-order start alone),
working and active cells, the wall and CPU seconds of the whole call (incidence matrix and
solve; they differ when other processes share the cores) and the wall seconds of the solve
alone, the load average at the end of the solve, and the paper's MW estimate (100 rounds). A
solve that reaches the time limit reports the certified interval [lower, upper] it reached
(``on_time_limit="interval"``).
"""
from __future__ import annotations

import os
import time
from typing import Callable, Sequence

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from pubpriv_core.algorithms.best_mixture import _split, best_mixture_exact, best_mixture_mw
from pubpriv_core.algorithms.mixture_lp import OPERATOR_JOIN_NONZEROS, LPTimeLimitError


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


def measure(problem, with_mw: bool, time_limit: float, show_progress: bool = False,
            join_nonzeros: int = OPERATOR_JOIN_NONZEROS) -> str:
    """One result line for ``problem`` (module docstring)."""
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


#: (label, what ``build`` turns into a problem) of every setting of a benchmark
Settings = Sequence[tuple[str, object]]


def run_benchmark(settings: Settings, build: Callable, only: str = "", with_mw: bool = True,
                  time_limit: float = 60.0, show_progress: bool = False,
                  join_nonzeros: int = OPERATOR_JOIN_NONZEROS) -> None:
    """Time every setting whose label contains ``only`` (its problem: ``build(spec)``); one line
    each (with ``show_progress``, the interval after every round too). ``join_nonzeros``: the
    non-zeros joining per round on the engine operator (paper-scale settings)."""
    chosen = [(label, spec) for label, spec in settings if only.lower() in label.lower()]
    if not chosen:
        raise ValueError(f"no setting's label contains {only!r}; drop --only or pass part of a "
                         f"label, e.g. {settings[0][0]!r}")
    for label, spec in chosen:
        if show_progress:
            print(label, flush=True)
        line = measure(build(spec), with_mw, time_limit, show_progress, join_nonzeros)
        print(f"{label:55s} {line}", flush=True)


def main(settings: Settings, build: Callable, description: str,
         argv: list[str] | None = None) -> None:
    """The command line of a mixture benchmark over ``settings``."""
    parser = ArgumentParser(description=description)
    parser.add_argument("--only", default="", help="run the settings whose label contains this")
    parser.add_argument("--no-mw", action="store_true", help="skip the MW estimate")
    parser.add_argument("--time-limit", type=positive_float, default=60.0,
                        help="seconds per solve (the target); slower solves are reported")
    parser.add_argument("--progress", action="store_true",
                        help="print the certified interval after every round")
    parser.add_argument("--join-nonzeros", type=positive_int, default=OPERATOR_JOIN_NONZEROS,
                        help="non-zeros of the cells joining per round on the engine operator "
                             f"(paper-scale settings; default {OPERATOR_JOIN_NONZEROS:,})")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, settings, build, args.only, not args.no_mw, args.time_limit,
                args.progress, args.join_nonzeros)
