"""The release problems the product-mixture benchmarks (``scripts/bench.py product_kernels``,
``scripts/bench.py fit_step``) time GEM's and RAP^softmax's kernels and steps on: the
artefacts' NIST problems (private MA-2019 reduced, as ``sota`` and ``fig1_nist_matched``'s
reduced rows; private national-2019 full, as ``nist_shift_matched``; public MA-2018) with all
k-way marginals, and ADULT with the W = 256 3-way workload of ``sota_adult``."""
from __future__ import annotations

from pubpriv_core.harness import ReleaseProblem

NIST = {"nist": {"region": "ma", "year": 2019, "reduced": True},
        "nist-full": {"region": "national", "year": 2019, "reduced": False}}
DATASETS = (*NIST, "adult")


def mixture_problem(dataset: str, k: int = 3) -> ReleaseProblem:
    """The problem of ``dataset`` (one of :data:`DATASETS`); ``k`` is the NIST marginals'
    order (ADULT's workload is 3-way)."""
    from pubpriv_core import api
    if dataset in NIST:
        data = api.load("nist_acs", "dataset", public_options={"year": 2018},
                        dataset_options=NIST[dataset])
        return api.problem(data, api.workload(data, k=k, size=None))
    data = api.load("adult")
    return api.problem(data, api.workload(data, k=3, size=256))
