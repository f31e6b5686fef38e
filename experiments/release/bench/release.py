"""Benchmark the answer engine, PMW^Pub and MWEM on the paper's ADULT setting.

Setting (Liu et al. 2021, Fig. 2): ADULT, private 0.9N / public 0.1N rows drawn with replacement
(Δ = 0), 3-way marginals, W = 256 (≈ 300K queries over a ≈ 4K-row support), ε = 1, δ = 1/n²,
T = 100. Prints, single process:

* engine: time of one full answer vector over the weighted public support: the ≈ 47K present
  queries PMW^Pub keeps, those expanded to all ≈ 300K queries, and with every cell kept (≤ 2 ms);
* one PMW^Pub selection: permute-and-flip over the present queries' first-round scores and the
  absent queries' tied groups (median of 200 calls);
* PMW^Pub: time per iteration and max error with the §5.3 replay (paper default), without it,
  and with the research code's selection (target ≤ 0.5 ms per iteration with the default), after
  one untimed T = 10 release that loads the compiled kernels (its time is printed); beside the
  wall-clock mean and median per iteration, the process CPU time of each release ÷ T (its setup
  included), which waiting for a core on a loaded machine does not inflate;
* a plain numpy loop that recomputes every answer by ``bincount`` each iteration (the reference
  the spec quotes at ≈ 10 ms here), timed in the same run;
* MWEM on the NIST reduced domain (|X| = 97,200) with all 84 3-way marginals (target ≤ 3 ms per
  iteration), and its engine: one full answer vector by the reduction tree of
  :class:`~pubpriv_core.queries.DomainAnswerer` against the support engine run on all |X| records;
* peak memory (the process's max RSS; tracemalloc is not used, it would slow the timings), and
  the load average at start and end.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench.py release [--runs 5] [--T 100]``
"""
from __future__ import annotations

import os
import resource
import time

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import median_seconds
from pubpriv_core import privacy
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.multiplicative_weights import MWState
from pubpriv_core.data import biased, load_dataset
from pubpriv_core.queries import MarginalWorkload, SupportAnswerer, full_domain_records


#: PMW^Pub variants timed: the paper's default, without the §5.3 replay, and the selection of the
#: paper's research code (exponential mechanism at 2·ε0 under its ε²/8-zCDP bound).
VARIANTS = {"default": {}, "replay=False": {"replay": False},
            "selection=exponential_bounded_range": {"selection": "exponential_bounded_range"}}


def adult_problem(seed: int) -> ReleaseProblem:
    split = biased(load_dataset("adult"), np.random.default_rng(seed), delta=0.0)
    workload = MarginalWorkload.random(split.private.domain, 3, size=256, seed=0)
    return ReleaseProblem(split.private, workload, split.public.support.records,
                          split.public.weights, split.public.n_rows)


def time_engine(answerer: SupportAnswerer, weights: np.ndarray, repeats: int = 200,
                expand: bool = True) -> float:
    """Median time of one full answer vector: all |Q| queries, zeros included (``expand``), or
    only the queries the answerer keeps."""
    def one() -> np.ndarray:
        answers = answerer.answer(weights)
        return answerer.expand(answers) if expand else answers
    return median_seconds(one, repeats)


def time_selection(problem: ReleaseProblem, eps: float, delta: float, T: int,
                   repeats: int = 200) -> float:
    """Median time of one PMW^Pub selection: permute-and-flip at the run's ε0 (sensitivity 1/n)
    over the present queries' first-round scores, with the absent queries as tied groups."""
    candidates = problem.query_candidates(problem.public_answerer)
    y, Z = MWState(problem.public_answerer, problem.public_weights).unnormalised()
    scores = np.abs(y / Z - candidates.true_present)
    eps0 = privacy.per_step_eps(privacy.rho_from_eps(eps, delta), T)
    ties = (candidates.tie_values, candidates.tie_counts)
    rng = np.random.default_rng(0)
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        privacy.permute_and_flip(scores, eps0, 1.0 / problem.n, rng, ties=ties)
        times.append(time.perf_counter() - start)
    return float(np.median(times[1:]))


def plain_loop(problem: ReleaseProblem, eps: float, delta: float, T: int,
               rng: np.random.Generator) -> float:
    """Reference loop: all answers recomputed by bincount each round; median s per round."""
    ids = problem.public_answerer.cell_ids(np.arange(problem.support_size))
    flat, width, n = ids.ravel(), ids.shape[1], problem.n
    true = problem.true_answers
    eps0 = privacy.per_step_eps(privacy.rho_from_eps(eps, delta), T)
    weights = problem.public_weights.copy()
    times = []
    for _ in range(T):
        start = time.perf_counter()
        answers = np.bincount(flat, np.repeat(weights, width), minlength=true.size)
        q = privacy.permute_and_flip(np.abs(answers - true), eps0, 1.0 / n, rng)
        a = np.clip(privacy.gaussian_mechanism(true[q], 1.0 / (n * eps0), rng), 0, 1)
        rows = np.any(ids == q, axis=1)
        weights[rows] *= np.exp((a - answers[q]) / 2)
        weights /= weights.sum()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def report(label: str, values: list[float], unit: str = "ms", scale: float = 1e3) -> None:
    """Mean over runs of a per-run value, with its min and max over runs."""
    values = np.asarray(values) * scale
    print(f"{label:<68s} {values.mean():8.3f} {unit}  (min {values.min():.3f}, "
          f"max {values.max():.3f}, {values.size} runs)")


def run_benchmark(runs: int = 5, T: int = 100) -> None:
    """Time the engine, PMW^Pub (its variants), a plain loop and MWEM; print each line."""
    print(f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    start = time.perf_counter()
    problems = [adult_problem(run) for run in range(runs)]
    problem = problems[0]
    delta = 1.0 / problem.n ** 2
    for problem_run in problems:
        problem_run.query_candidates(problem_run.public_answerer)
    print(f"ADULT: n={problem.n}, support={problem.support_size}, "
          f"queries={problem.workload.num_queries}; setup of {runs} splits "
          f"{time.perf_counter() - start:.2f} s")
    weights = problem.public_weights
    report("engine: the present queries over the support (the vector a PMW^Pub round keeps)",
           [time_engine(problem.public_answerer, weights, expand=False)])
    report("engine: all queries over the support (present-only + expand)",
           [time_engine(problem.public_answerer, weights)])
    report("engine: all queries over the support (all cells kept, no present-only numbering)",
           [time_engine(SupportAnswerer(problem.workload, problem.public_support), weights)])
    start = time.perf_counter()
    run_algorithm("pmwpub", problem, eps=1.0, delta=delta, T=10, rng=np.random.default_rng(runs))
    print(f"first PMW^Pub release of the process, T = 10 (loads the compiled kernels from numba's "
          f"cache; not part of the timings below): {(time.perf_counter() - start) * 1e3:.1f} ms")
    report("PMW^Pub one selection (permute-and-flip over the present scores and tied groups)",
           [time_selection(problem, 1.0, delta, T)])
    for label, options in VARIANTS.items():
        per_iter, median_iter, cpu_iter, errors = [], [], [], []
        for run, problem_run in enumerate(problems):
            cpu = time.process_time()
            release = run_algorithm("pmwpub", problem_run, eps=1.0, delta=delta, T=T,
                                    rng=np.random.default_rng(run), **options)
            cpu_iter.append((time.process_time() - cpu) / T)
            per_iter.append(release.per_iter_s)
            median_iter.append(float(np.median(release.trace["iteration_s"])))
            errors.append(release.errors(problem_run.true_answers)["max_error"])
        report(f"PMW^Pub per iteration, mean ({label})", per_iter)
        report(f"PMW^Pub per iteration, median ({label})", median_iter)
        report(f"PMW^Pub CPU time per iteration, release's process time / T ({label})",
               cpu_iter)
        report(f"PMW^Pub max error ({label})", errors, unit="", scale=1)
    plain = [plain_loop(problem, 1.0, delta, T, np.random.default_rng(r))
             for r in range(2)]
    report("plain numpy loop per iteration (bincount each round)", plain)
    mwem_benchmark(T, runs)
    print(f"peak memory (max RSS of the process, all of the above) "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.1f} MiB")
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def mwem_benchmark(T: int, runs: int) -> None:
    """MWEM (paper defaults, replay on) on the NIST reduced domain, and its answer engine."""
    private = load_dataset("nist_acs", region="ma", year=2019, reduced=True)
    workload = MarginalWorkload.random(private.domain, 3)
    problem = ReleaseProblem(private, workload)
    uniform = np.full(private.domain.size(), 1.0 / private.domain.size())
    report("engine: all queries over all of X (reduction tree, NIST reduced)",
           [time_engine(problem.domain_answerer, uniform)])
    report("engine: all queries over all of X (support engine on all |X| records, NIST reduced)",
           [time_engine(SupportAnswerer(workload, full_domain_records(private.domain.shape)),
                        uniform, repeats=20)])
    per_iter, median_iter, updates = [], [], []
    for run in range(runs):
        release = run_algorithm("mwem", problem, eps=1.0, delta=1.0 / len(private) ** 2, T=T,
                                rng=np.random.default_rng(run))
        per_iter.append(release.per_iter_s)
        median_iter.append(float(np.median(release.trace["iteration_s"])))
        updates.append(float(np.mean(release.trace["updates"])))
    report("MWEM per iteration, mean (NIST reduced, |X|=97,200, 84 3-way)", per_iter)
    report("MWEM per iteration, median (NIST reduced, |X|=97,200, 84 3-way)", median_iter)
    report("MWEM multiplicative updates per iteration (replay)", updates, unit="", scale=1)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=positive_int, default=5,
                        help="releases timed per line (PMW^Pub: one per ADULT split)")
    parser.add_argument("--T", type=positive_int, default=100, help="rounds of each release")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.runs, args.T)
