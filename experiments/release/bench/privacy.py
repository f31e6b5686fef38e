"""One private selection over ~300K candidates (PMW^Pub's inner step), timed.

Setting (Liu et al. 2021, ADULT, ε = 1, δ = 1/n², T = 100): ε0 = 0.0120 per selection and score
sensitivity Δ = 1/43944. Score vectors:

* ``uniform``: 300,000 scores uniform on [0, 0.3] (many candidates near the maximum: the hard case
  for the head/tail split of ``permute_and_flip``);
* ``adult``: the first-round PMW^Pub scores |q(D̃) − q(A_0)| of 256 random 3-way ADULT marginals
  (≈ 283K cells), private = 0.9N rows and public = 0.1N rows drawn with replacement (Fig. 2,
  Δ_bias = 0). Needs the raw ADULT files (env ``PUBPRIV_DATA`` or ../shared/data); skipped if
  they are absent.

Prints min and median wall time of one call per mechanism (single process).
Usage: ``python scripts/bench.py privacy [--repeats 300] [--seed 0]``
"""
from __future__ import annotations

import itertools
import os
import statistics
import time
from pathlib import Path

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from pubpriv_core.data import adult, paths
from pubpriv_core.privacy import exponential_mechanism, permute_and_flip, report_noisy_max

EPS0, SENSITIVITY = 0.0120, 1 / 43944
MECHANISMS = {"permute_and_flip": permute_and_flip,
              "exponential_mechanism": exponential_mechanism,
              "report_noisy_max": report_noisy_max}


def uniform_scores(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0.0, 0.3, size=300_000)


def adult_scores(rng: np.random.Generator, workloads: int = 256, way: int = 3) -> np.ndarray:
    """|private marginal − public marginal| over every cell of ``workloads`` random k-way sets."""
    data = adult.load_adult()
    n = len(data)
    private = data.records[rng.integers(n, size=int(0.9 * n))]
    public = data.records[rng.integers(n, size=int(0.1 * n))]
    sets = list(itertools.combinations(range(len(data.domain)), way))
    chosen = rng.choice(len(sets), size=min(workloads, len(sets)), replace=False)
    errors = []
    for attrs in (sets[i] for i in chosen):
        shape = [data.domain.shape[a] for a in attrs]
        size = int(np.prod(shape))

        def marginal(records):
            cells = np.ravel_multi_index(records[:, list(attrs)].T, shape)
            return np.bincount(cells, minlength=size) / len(records)

        errors.append(np.abs(marginal(private) - marginal(public)))
    return np.concatenate(errors)


def time_call(mechanism, scores: np.ndarray, repeats: int, rng: np.random.Generator):
    mechanism(scores, EPS0, SENSITIVITY, rng)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        mechanism(scores, EPS0, SENSITIVITY, rng)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def use_local_data() -> bool:
    """Point the data layer at PUBPRIV_DATA or ../shared/data; True if ADULT is there."""
    if "PUBPRIV_DATA" not in os.environ:
        sibling = Path(__file__).resolve().parents[4] / "shared" / "data"
        if sibling.is_dir():
            paths.set_data_root(sibling)
    return paths.local_path("adult.data").is_file()


def run_benchmark(repeats: int = 300, seed: int = 0) -> None:
    """Time each mechanism on each score vector; print min and median per call."""
    rng = np.random.default_rng(seed)
    vectors = {"uniform": uniform_scores(rng)}
    if use_local_data():
        vectors["adult"] = adult_scores(rng)
    else:
        print("adult: skipped (raw ADULT files not found; set PUBPRIV_DATA)")
    print(f"load average (1 min) {os.getloadavg()[0]:.2f}; eps0={EPS0}, sensitivity=1/43944")
    for name, scores in vectors.items():
        print(f"{name}: N={scores.size}, max score {scores.max():.4f}, "
              f"median {np.median(scores):.2e}")
        for label, mechanism in MECHANISMS.items():
            fastest, median = time_call(mechanism, scores, repeats, rng)
            print(f"  {label:22s} min {fastest * 1e3:7.3f} ms   median {median * 1e3:7.3f} ms")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive_int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.repeats, args.seed)
