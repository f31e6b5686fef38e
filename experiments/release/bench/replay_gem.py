"""One seeded GEM / GEM^Pub run saved, or two saved runs compared (before/after).

Two commands:

* ``python scripts/bench.py replay_gem run OUT.npz -- OVERRIDES...``: repetition 0 of
  ``python run.py OVERRIDES`` (nothing written to records;
  :func:`~experiments.release.bench.timed_runs.timed_repetition`), its released answers,
  selected marginals, Adam steps per round and wall time saved to ``OUT.npz``; one JSON line
  printed. Run it once per tree (``PYTHONPATH`` selects the tree). The line splits the rounds'
  wall time into selection (the generator's answers on the workload, the scores and the
  exponential mechanism), fitting (the Adam steps) and the rest (measurement), and gives the wall
  time of one forward + backward of the generator alone (median of 10, dummy loss), so
  ``steps × generator_vjp_ms`` shows how much of the fitting is the network itself.
* ``python scripts/bench.py replay_gem compare A.npz B.npz [--tol 1e-5]``: whether both runs
  chose the same marginals, and the largest difference of their released answers and of their
  max errors; exit 1 when the selections differ or a difference exceeds ``--tol``.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from experiments.console import ArgumentParser, non_negative_float, run_or_fail
from experiments.release.bench.timed_runs import timed_repetition


class Timers:
    """Wall seconds spent in wrapped methods (patched on the class for one run)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, owner, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            tick = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - tick

        setattr(owner, name, timed)


def generator_vjp_ms(problem, options: dict) -> float:
    """Median wall time of one forward + backward of GEM's generator (dummy linear loss)."""
    import jax
    import jax.numpy as jnp

    from pubpriv_core.algorithms import gem, generators
    from pubpriv_core.algorithms.select_measure import parse_options

    opts = parse_options(gem.GEMOptions, options)
    params, z = gem._initial(problem, opts, generators.jax_key(np.random.default_rng(0)))
    probs = gem._fitter(tuple(problem.workload.domain.shape)).probs
    weights = jnp.asarray(np.random.default_rng(1).normal(size=(opts.K, sum(
        problem.workload.domain.shape))), jnp.float32)
    vjp = jax.jit(jax.value_and_grad(lambda p: jnp.sum(probs(p, z) * weights)))
    jax.block_until_ready(vjp(params))
    times = []
    for _ in range(10):
        tick = time.perf_counter()
        jax.block_until_ready(vjp(params))
        times.append(time.perf_counter() - tick)
    return 1e3 * float(np.median(times))


def run(out: Path, overrides: list[str]) -> None:
    from pubpriv_core.algorithms import gem
    from pubpriv_core.algorithms.adaptive_measurements import Rounds

    timers = Timers()
    timers.wrap(gem.GeneratorModel, "answers", "select_s")
    timers.wrap(Rounds, "select", "select_s")
    timers.wrap(gem.GeneratorModel, "update", "fit_s")
    cfg, problem, release, _, _, wall = timed_repetition(overrides, 0)
    options = {k: v for k, v in cfg["algo"].items() if k != "name"}
    vjp_ms = generator_vjp_ms(problem, options)
    max_error = float(np.abs(release.answers - problem.true_answers).max())
    np.savez(out, answers=release.answers, marginals=np.asarray(release.trace["marginals"]),
             steps=np.asarray(release.trace["steps"]), max_error=max_error, wall_s=wall)
    print(json.dumps({"overrides": " ".join(overrides), "wall_s": round(wall, 2),
                      "rounds_s": round(release.runtime_s, 2),
                      "rounds_cpu_s": round(release.trace["rounds_cpu_s"], 2),
                      "pretrain_s": release.trace.get("pretrain_s"),
                      **{k: round(v, 2) for k, v in timers.seconds.items()},
                      "steps": int(np.sum(release.trace["steps"])),
                      "generator_vjp_ms": round(vjp_ms, 1),
                      "max_error": max_error, "mean_steps": release.trace["mean_steps"],
                      "load": os.getloadavg()[0]}))


def compare(a: Path, b: Path, tol: float) -> int:
    """Print how two saved repetitions differ; 0 when they agree within ``tol``, else 1."""
    for path in (a, b):
        if not path.is_file():
            raise ValueError(f"{path} is not a file; pass two OUT.npz files of `replay_gem run`")
    x, y = np.load(a), np.load(b)
    same = np.array_equal(x["marginals"], y["marginals"])
    answers = float(np.abs(x["answers"] - y["answers"]).max())
    errors = abs(float(x["max_error"]) - float(y["max_error"]))
    print(json.dumps({"same_marginals": same, "max_answer_diff": answers,
                      "max_error_diff": errors, "max_error": [float(x["max_error"]),
                                                              float(y["max_error"])],
                      "steps_equal": np.array_equal(x["steps"], y["steps"]),
                      "wall_s": [float(x["wall_s"]), float(y["wall_s"])]}))
    return 0 if same and answers <= tol and errors <= tol else 1


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("run", help="one seeded repetition saved to OUT.npz")
    one.add_argument("out", type=Path)
    one.add_argument("overrides", nargs="+")
    two = sub.add_parser("compare", help="two saved repetitions compared")
    two.add_argument("a", type=Path)
    two.add_argument("b", type=Path)
    two.add_argument("--tol", type=non_negative_float, default=1e-5)
    args = parser.parse_args(argv)
    if args.command == "run":
        run_or_fail(lambda: run(args.out, args.overrides))
        return 0
    return run_or_fail(compare, args.a, args.b, args.tol)

