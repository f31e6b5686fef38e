"""Time per DualQuery round on ADULT (Liu et al. 2021, §5.2 / Fig 2 setting: 3-way, W = 256).

Uses the real ADULT rows when the raw files are found (``PUBPRIV_DATA`` or ../shared/data next to
the repository), otherwise a uniformly random Dataset over the same 13-attribute domain
(|X| ≈ 7.32e11). Prints the calibrated rounds, the time per round (wall clock and CPU, and the share
spent in the best-response integer program) and the max error of the release.

    python scripts/bench_dualquery.py --eps 1 --samples 200
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from pubpriv_core.algorithms import ReleaseProblem, run_algorithm
from pubpriv_core.data.adult import DOMAIN, load_adult
from pubpriv_core.data.domain import Dataset
from pubpriv_core.data.paths import DataUnavailableError, set_data_root
from pubpriv_core.privacy import default_delta
from pubpriv_core.queries import MarginalWorkload

_SIBLING = Path(__file__).resolve().parents[2] / "shared" / "data"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--eta", type=float, default=2.0)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--max-T", type=int, default=None)
    parser.add_argument("--workload", type=int, default=256, help="W, number of 3-way marginals")
    parser.add_argument("--random", action="store_true", help="random records instead of ADULT")
    parser.add_argument("--rows", type=int, default=43_911, help="rows of the random dataset")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    data, source = private_dataset(args.random, args.rows, rng)
    problem = ReleaseProblem(data, MarginalWorkload.random(data.domain, 3, args.workload, 0))
    delta = default_delta(problem.n)
    print(f"{source}: n={problem.n}, |X|={data.domain.size():.3e}, "
          f"{problem.workload.describe()}, delta=1/n^2")
    true = problem.true_answers          # computed (and cached) before the clock starts
    cpu = time.process_time()
    release = run_algorithm("dualquery", problem, eps=args.eps, delta=delta, T=0, rng=rng,
                            eta=args.eta, samples=args.samples, max_T=args.max_T)
    cpu = time.process_time() - cpu
    rounds, solves = release.trace["round_s"], release.trace["oracle_s"]
    print(f"eta={args.eta} s={args.samples} eps={args.eps}: T={release.iterations} rounds, "
          f"eps spent={release.eps:.4f}, rho={release.rho:.3g}")
    print(f"time per round: mean {1e3 * release.per_iter_s:.1f} ms, median "
          f"{1e3 * np.median(rounds):.1f} ms, max {1e3 * rounds.max():.1f} ms (wall clock); "
          f"{1e3 * cpu / release.iterations:.1f} ms CPU; best-response solver "
          f"{100 * solves.sum() / rounds.sum():.0f}% of the round time")
    print(f"max error {release.errors(true)['max_error']:.4f}, "
          f"distinct records {release.trace['distinct_records']}")


if __name__ == "__main__":
    main()
