"""Milliseconds per call of GEM's and RAP^softmax's product-mixture kernels.

The kernels are those of :mod:`pubpriv_core.algorithms.product_kernels`, on an artefact's
problem. The plan holds ``--marginals`` k-way marginals drawn with seed 0 from the artefacts'
workload (NIST reduced MA-2019: all C(9, k); NIST full national-2019: all C(20, k); ADULT: the
W = 256 3-way workload), Pᵀ random rows, ``coef`` random on every cell (``gradient``) or on
10,000 of them (``gradient, 10k cells``: RAP^softmax's ``max_idxs`` subset), as float32; the
listed cells are those 10,000 (``cell_answers`` takes the full pass when it is cheaper). Run it
with ``PYTHONPATH`` at another checkout to time that tree's kernels on the same inputs.

    PUBPRIV_DATA=../shared/data python scripts/bench.py product_kernels
        [--dataset nist|nist-full|adult] [--k 3] [--marginals 50] [--K 1000] [--repeats 50]
"""
from __future__ import annotations

import time

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench.mixture_problems import DATASETS, mixture_problem

SUBSET = 10_000


def per_call_ms(fn, repeats: int) -> float:
    fn()                                            # compile / load the cached kernels
    tick = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - tick) / repeats * 1e3


def bench(args) -> None:
    from pubpriv_core.algorithms import product_kernels as pk
    workload = mixture_problem(args.dataset, args.k).workload
    rng = np.random.default_rng(0)
    chosen = np.sort(rng.choice(workload.num_marginals, min(args.marginals,
                                                            workload.num_marginals),
                                replace=False))
    plan = pk.ProductPlan(workload, chosen)
    Pt = (rng.random((plan.dim, args.K)) / 3).astype(np.float32)
    coef = rng.standard_normal(plan.cells)
    cells = np.sort(rng.choice(plan.cells, min(plan.cells, SUBSET), replace=False))
    sparse = np.zeros(plan.cells)
    sparse[cells] = coef[cells]
    print(f"{args.dataset}: {len(chosen)} marginals, {plan.cells} cells, D = {plan.dim}, "
          f"K = {args.K}")
    for name, fn in (("answers", lambda: pk.answers(Pt, plan)),
                     ("gradient", lambda: pk.gradient(Pt, plan, coef)),
                     (f"gradient, {len(cells)} cells", lambda: pk.gradient(Pt, plan, sparse)),
                     (f"answers of {len(cells)} listed cells",
                      lambda: pk.cell_answers(Pt, plan, cells))):
        print(f"  {name}: {per_call_ms(fn, args.repeats):.2f} ms per call")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=DATASETS, default="nist")
    parser.add_argument("--k", type=positive_int, default=3, help="marginal order (NIST)")
    parser.add_argument("--marginals", type=positive_int, default=50)
    parser.add_argument("--K", type=positive_int, default=1000)
    parser.add_argument("--repeats", type=positive_int, default=50)
    run_or_fail(bench, parser.parse_args(argv))

