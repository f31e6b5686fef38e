"""Where a Private-PGM run's calibration time goes, and smaller junction trees.

The overrides are one ``run.py`` cell, its first ``--runs`` repetitions run in this process
(records under a temporary folder) with
:meth:`~pubpriv_core.algorithms.pgm_calibrate.CalibrationPlan.calibrate` timed per tree: the
calls, the clique cells swept and the nanoseconds per cell. Then, for the largest tree, its
clique cells are set beside those of min-fill elimination and of ``--orders`` randomised greedy
orders (each step a random attribute among those whose closed neighbourhood is within 4× the
least cells) over the same measured cliques, to say whether another elimination order would give
a smaller junction tree: an exact junction tree sweeps every cell of its maximal cliques up and
down at each calibration, so the cells are the work.

    PUBPRIV_DATA=../shared/data python scripts/bench.py calibration [--orders 300] [--runs 1]
        -- experiment=sota_adult algo=jam_pgm eps=0.1 public.delta=0.0
"""
from __future__ import annotations

import math
import random
import runpy
import sys
import tempfile
import time
from collections import defaultdict

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import REPO
from pubpriv_core.algorithms import pgm_calibrate


def timed_run(overrides: list[str], runs: int = 1) -> tuple[dict, float]:
    """Run the cell's first ``runs`` repetitions; per tree (its plan) the calls and seconds of
    calibration, and the wall."""
    calls: dict = defaultdict(lambda: [0, 0.0])
    plans: dict = {}
    calibrate = pgm_calibrate.CalibrationPlan.calibrate

    def counted(plan, theta, total, out):
        tick = time.perf_counter()
        result = calibrate(plan, theta, total, out)
        entry = calls[id(plan)]
        entry[0] += 1
        entry[1] += time.perf_counter() - tick
        plans[id(plan)] = plan
        return result

    pgm_calibrate.CalibrationPlan.calibrate = counted
    argv, tick = sys.argv, time.perf_counter()
    with tempfile.TemporaryDirectory() as records:
        sys.argv = ["run.py", *overrides, f"runs={runs}", f"results_dir={records}",
                    "hydra.sweeper.params={}", "progress=false"]
        try:
            runpy.run_path(str(REPO / "run.py"), run_name="__main__")
        except SystemExit as done:
            if done.code:
                raise ValueError(f"run.py {' '.join(overrides)} failed (status {done.code})")
        finally:
            pgm_calibrate.CalibrationPlan.calibrate, sys.argv = calibrate, argv
    return {key: (plans[key], *value) for key, value in calls.items()}, time.perf_counter() - tick


def tree_cells(measured: list[tuple], sizes: dict, choose) -> int:
    """Σ cells of the maximal cliques of the elimination ``choose`` makes on the interaction
    graph of the ``measured`` cliques."""
    neighbours = defaultdict(set)
    for clique in measured:
        for a in clique:
            neighbours[a] |= set(clique) - {a}
    left, cliques = {a for clique in measured for a in clique}, []
    while left:
        a = choose(left, neighbours, sizes)
        cliques.append(frozenset({a} | neighbours[a]))
        for b in neighbours[a]:
            neighbours[b] |= neighbours[a] - {b}
            neighbours[b].discard(a)
        left.discard(a)
    maximal = {c for c in cliques if not any(c < d for d in cliques)}
    return sum(math.prod(sizes[a] for a in c) for c in maximal)


def _closed_cells(a, neighbours, sizes) -> int:
    return math.prod(sizes[b] for b in neighbours[a] | {a})


def min_fill(left, neighbours, sizes):
    """The attribute whose elimination adds the fewest edges (then the fewest cells)."""
    def fill(a):
        near = sorted(neighbours[a])
        return sum(1 for i, b in enumerate(near) for c in near[i + 1:] if c not in neighbours[b])
    return min(sorted(left), key=lambda a: (fill(a), _closed_cells(a, neighbours, sizes)))


def randomised(rng: random.Random):
    def choose(left, neighbours, sizes):
        costs = {a: _closed_cells(a, neighbours, sizes) for a in sorted(left)}
        least = min(costs.values())
        return rng.choice([a for a, cost in costs.items() if cost <= 4 * least])
    return choose


def report(overrides: list[str], orders: int, runs: int = 1) -> None:
    trees, wall = timed_run(overrides, runs)
    if not trees:
        raise ValueError(f"{' '.join(overrides)} ran no junction-tree calibration; pass a "
                         "Private-PGM cell (algo=aim, mst or jam_pgm)")
    calls = sum(t[1] for t in trees.values())
    seconds = sum(t[2] for t in trees.values())
    swept = sum(t[0].cells * t[1] for t in trees.values())
    print(f"{' '.join(overrides)}: wall {wall:.1f} s; {calls:,} calibrations on {len(trees)} "
          f"trees, {seconds:.1f} s ({seconds / wall:.0%} of the wall), "
          f"{1e9 * seconds / swept:.2f} ns per clique cell swept")
    plan, count, spent = max(trees.values(), key=lambda t: t[2])
    sizes, hosted = plan.sizes, plan.maximal
    rng = random.Random(0)
    best = min(tree_cells(hosted, sizes, randomised(rng)) for _ in range(orders))
    print(f"largest tree: {len(plan.cliques)} cliques, {plan.cells:,} cells ({count:,} calls, "
          f"{spent:.1f} s, {1e3 * spent / count:.2f} ms each); measured cliques "
          f"{sum(math.prod(sizes[a] for a in c) for c in hosted):,} cells; min-fill order "
          f"{tree_cells(hosted, sizes, min_fill):,} cells; best of {orders} randomised greedy "
          f"orders {best:,} cells")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=positive_int, default=300)
    parser.add_argument("--runs", type=positive_int, default=1,
                        help="repetitions of the cell (0 … runs − 1), their trees all timed")
    parser.add_argument("overrides", nargs="+", help="run.py overrides of one cell (after --)")
    args = parser.parse_args(argv)
    run_or_fail(report, args.overrides, args.orders, args.runs)

