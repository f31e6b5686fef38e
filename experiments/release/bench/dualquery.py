"""Time per DualQuery round on ADULT (Liu et al. 2021, Fig. 2: 3-way, W = 256).

Uses the real ADULT rows when the raw files are found (``PUBPRIV_DATA`` or ../shared/data next to
the repository), otherwise a uniformly random Dataset over the same 13-attribute domain
(|X| ≈ 7.32e11). Prints the calibrated rounds, the time per round (wall clock and CPU, and the share
spent in the best-response integer program) and the max error of the release.

    python scripts/bench.py dualquery [--eps 1] [--eta 2] [--samples 200] [--max-T T]
        [--workload 256] [--random [--rows 43911]] [--seed 0]
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data.adult import DOMAIN, load_adult
from pubpriv_core.data.domain import Dataset
from pubpriv_core.data.paths import DataUnavailableError, set_data_root
from pubpriv_core.privacy import default_delta
from pubpriv_core.queries import MarginalWorkload

_SIBLING = Path(__file__).resolve().parents[4] / "shared" / "data"


def private_dataset(random: bool, rows: int, rng: np.random.Generator) -> tuple[Dataset, str]:
    """Real ADULT if available (and not ``random``), else ``rows`` uniform records on its domain."""
    if not random:
        if "PUBPRIV_DATA" not in os.environ and _SIBLING.is_dir():
            set_data_root(_SIBLING)
        try:
            return load_adult(), "ADULT"
        except DataUnavailableError as err:
            print(f"ADULT unavailable ({err}); using random records")
    return Dataset(rng.integers(0, DOMAIN.shape, size=(rows, len(DOMAIN))), DOMAIN), "random"


def run_benchmark(eps: float = 1.0, eta: float = 2.0, samples: int = 200,
                  max_T: int | None = None, workload: int = 256, random: bool = False,
                  rows: int = 43_911, seed: int = 0) -> None:
    """Calibrate and run one DualQuery release; print its rounds, timings and error."""
    rng = np.random.default_rng(seed)
    data, source = private_dataset(random, rows, rng)
    problem = ReleaseProblem(data, MarginalWorkload.random(data.domain, 3, workload, 0))
    delta = default_delta(problem.n)
    print(f"{source}: n={problem.n}, |X|={data.domain.size():.3e}, "
          f"{problem.workload.describe()}, delta=1/n^2")
    true = problem.true_answers          # computed (and cached) before the clock starts
    cpu = time.process_time()
    release = run_algorithm("dualquery", problem, eps=eps, delta=delta, T=0, rng=rng,
                            eta=eta, samples=samples, max_T=max_T)
    cpu = time.process_time() - cpu
    rounds, solves = release.trace["round_s"], release.trace["oracle_s"]
    print(f"eta={eta} s={samples} eps={eps}: T={release.iterations} rounds, "
          f"eps spent={release.eps:.4f}, rho={release.rho:.3g}")
    print(f"time per round: mean {1e3 * release.per_iter_s:.1f} ms, median "
          f"{1e3 * np.median(rounds):.1f} ms, max {1e3 * rounds.max():.1f} ms (wall clock); "
          f"{1e3 * cpu / release.iterations:.1f} ms CPU; best-response solver "
          f"{100 * solves.sum() / rounds.sum():.0f}% of the round time")
    print(f"max error {release.errors(true)['max_error']:.4f}, "
          f"distinct records {release.trace['distinct_records']}")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--eta", type=positive_float, default=2.0)
    parser.add_argument("--samples", type=positive_int, default=200)
    parser.add_argument("--max-T", type=positive_int, default=None)
    parser.add_argument("--workload", type=positive_int, default=256,
                        help="W, number of 3-way marginals")
    parser.add_argument("--random", action="store_true", help="random records instead of ADULT")
    parser.add_argument("--rows", type=positive_int, default=43_911,
                        help="rows of the random dataset")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.eps, args.eta, args.samples, args.max_T, args.workload,
                args.random, args.rows, args.seed)
