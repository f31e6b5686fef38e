"""Time and error of AIM, MST and JAM-PGM, on one problem or every artefact cell.

Setting: private MA-2019 (NIST CRC excerpts, reduced: 9 attributes, |X| = 97,200), all
C(9, 3) = 84 3-way marginals, ε = 1, δ = 1/n² (``--delta``), replace-one neighbours; JAM-PGM,
``aim_public_tree`` (AIM pre-trained on the pairs of a spanning tree of the public data) and
``aim_public_init`` (only with ``--algos``: its model holds all 84 workload cliques from the
first fit, so a run takes minutes) take MA-2018 as the public data. ``aim_add_remove`` is AIM
under the AIM paper's add/remove relation; ``jam_pgm_full_fits`` is JAM-PGM with 1,000
iterations per round compiled at XLA's default level (the authors' iteration count). Only the first run starts
from a fresh process: later runs reuse JAX's in-memory compiled programs where the model
structure repeats, as runs of one sweep do (the joint-table estimator, ``--estimator
full_table`` or ``auto`` on this domain, compiles nothing per clique set). Prints, per algorithm, the wall time of each run, the rounds,
the ρ and ε spent, and the max and mean error over all workload cells.

``--dataset adult``: the problem of ``conf/experiment/sota_adult.yaml`` at ``public.delta=0``,
repetition 0 (ADULT, 13 attributes, |X| ≈ 7.3·10¹¹; W = 256 random 3-way marginals, workload
seed 0; public = 0.1N rows drawn without bias), which ``auto`` fits on the junction tree
(``tree``).

Usage, one problem: ``PUBPRIV_DATA=../shared/data python scripts/bench.py pgm
[--dataset nist|adult] [--runs 3] [--eps 1] [--delta 1e-9]
[--algos aim mst aim_add_remove jam_pgm_full_fits aim_public_tree aim_public_init]
[--estimator auto|full_table|tree|mbi]``.

The grid: ``python scripts/bench.py pgm --grid artefacts|matched|all [--runs 1] [--only TEXT ...]
[--against-checkout DIR] [--out FILE.json]`` times every (algorithm, dataset, public, ε) cell
(:mod:`experiments.release.bench.pgm_grid`), one line per run with the load average, then a
Markdown table per cell; with ``--against-checkout`` every run also runs on that checkout's
code, interleaved, and the table gives both times and their ratio, followed by the run-by-run
comparison of selections and errors.
"""
from __future__ import annotations

import time

import numpy as np

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from experiments.release.configure.cli import compose_config
from pubpriv_core import problems
from pubpriv_core.algorithms.pgm import ESTIMATORS
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data import from_dataset, load_dataset
from pubpriv_core.privacy import default_delta
from pubpriv_core.queries import MarginalWorkload

VARIANTS = {"aim": ("aim", {}), "mst": ("mst", {}), "jam_pgm": ("jam_pgm", {}),
            "aim_add_remove": ("aim", {"relation": "add_remove"}),
            "jam_pgm_full_fits": ("jam_pgm", {"iters": 1000, "quick_compile": False}),
            "aim_public_tree": ("aim", {"public_init": True, "public_cliques": "tree"}),
            "aim_public_init": ("aim", {"public_init": True})}


def nist_problem() -> ReleaseProblem:
    private = load_dataset("nist_acs", region="ma", year=2019, reduced=True)
    public = from_dataset(load_dataset("nist_acs", region="ma", year=2018, reduced=True))
    workload = MarginalWorkload.random(private.domain, 3, None, 0)
    return ReleaseProblem(private, workload, public.support.records, public.weights,
                          public.n_rows)


def adult_problem() -> ReleaseProblem:
    """Repetition 0 of ``experiment=sota_adult public.delta=0`` (the run configs' problem)."""
    return problems.config_problem(compose_config(["experiment=sota_adult", "public.delta=0"]), 0)


PROBLEMS = {"nist": nist_problem, "adult": adult_problem}


def bench(problem: ReleaseProblem, variant: str, runs: int, eps: float, delta: float,
          estimator: str) -> None:
    name, options = VARIANTS[variant]
    options = {**options, "estimator": estimator}
    times, max_errors, mean_errors = [], [], []
    for run in range(runs):
        start = time.perf_counter()
        release = run_algorithm(name, problem, eps=eps, delta=delta, T=1,
                                rng=np.random.default_rng([run, 13]), **options)
        times.append(time.perf_counter() - start)
        errors = release.errors(problem.true_answers)
        max_errors.append(errors["max_error"])
        mean_errors.append(errors["mean_error"])
        print(f"  {variant} run {run}: {times[-1]:.1f} s, {release.iterations} rounds, "
              f"rho={release.rho:.5g} eps={release.eps:.4g}, max_error={errors['max_error']:.4f}"
              f" mean_error={errors['mean_error']:.5f}", flush=True)
    print(f"{variant}: time mean {np.mean(times):.1f} s (max {np.max(times):.1f}), max_error "
          f"mean {np.mean(max_errors):.4f} (sd {np.std(max_errors, ddof=1) if runs > 1 else 0:.4f})"
          f", mean_error mean {np.mean(mean_errors):.5f}", flush=True)


def run_benchmark(algos: list[str], runs: int = 3, eps: float = 1.0,
                  delta: float | None = None, estimator: str = "auto",
                  dataset: str = "nist") -> None:
    """Time ``runs`` releases of each of ``algos`` (keys of ``VARIANTS``) on ``dataset`` (a key
    of ``PROBLEMS``) at (ε, δ) with Private-PGM's ``estimator``; δ None: 1/n² (the AIM and
    JAM-PGM reference codes use 1e-9)."""
    problem = PROBLEMS[dataset]()
    if delta is not None and not 0 < delta < 1:
        raise ValueError(f"--delta must lie in (0, 1), got {delta}; pass e.g. 1e-9")
    delta = default_delta(problem.n) if delta is None else delta
    setting = ("NIST MA-2019 reduced" if dataset == "nist" else
               f"ADULT (|X| = {problem.private.domain.size():.3g})")
    public = "MA-2018" if dataset == "nist" else "unbiased 0.1N"
    print(f"{setting}: n={problem.n}, {problem.workload.describe()}, eps={eps}, "
          f"delta={delta:.3g}; public {public} (m={problem.public_rows}); estimator {estimator}",
          flush=True)
    for variant in algos:
        bench(problem, variant, runs, eps, delta, estimator)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="nist", choices=list(PROBLEMS),
                        help="nist: MA-2019 reduced; adult: sota_adult at public.delta=0")
    parser.add_argument("--runs", type=positive_int, default=None,
                        help="runs per algorithm (one problem: default 3) or per grid cell "
                             "(default: the cell's own count)")
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=None,
                        help="δ (default 1/n²; the reference codes use 1e-9)")
    parser.add_argument("--algos", nargs="+", default=["aim", "mst", "jam_pgm"],
                        choices=list(VARIANTS))
    parser.add_argument("--estimator", default="auto", choices=list(ESTIMATORS),
                        help="Private-PGM's estimator (auto: the cheaper of full_table and "
                             "tree per fit)")
    parser.add_argument("--grid", choices=["artefacts", "matched", "all"],
                        help="time every cell the artefacts run (and/or the matched-signal ε)")
    parser.add_argument("--only", nargs="+", default=[],
                        help="with --grid: keep the cells whose label contains all these texts")
    parser.add_argument("--against-checkout", help="with --grid: also run every job on the "
                        "code of this checkout, interleaved")
    parser.add_argument("--out", help="with --grid: write every run's record to this JSON file")
    args = parser.parse_args(argv)
    if args.grid:
        from experiments.release.bench.pgm_grid import run_grid_benchmark
        run_or_fail(run_grid_benchmark, args.grid, args.runs, args.only,
                    args.against_checkout, args.out)
        return
    run_or_fail(run_benchmark, args.algos, args.runs or 3, args.eps, args.delta,
                args.estimator, args.dataset)
