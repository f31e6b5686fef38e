"""Time the paper's released PMW^Pub code (Liu et al. 2021, github terranceliu/pmw-pub) on inputs
written by :mod:`experiments.release.bench.scale`.

Run as a script by the reference code's own interpreter (``--reference-python``: a separate
environment with NumPy < 2 and pandas, which that code needs, e.g. for ``np.infty``); it imports
nothing of this project, only the user's checkout of the released code (``--reference-dir``),
loaded as it is:

    REFERENCE_PYTHON research_pmwpub.py REFERENCE_DIR INPUTS.npz T SEED

``INPUTS.npz`` holds the private and public-support records (rows × attributes, integer codes),
the domain shape, the public weights A_0, the workload's marginals (attribute indices, ascending)
and this harness's true answers (query order: marginal after marginal, C order within each, which
is also the released code's order). The child builds the released code's own objects from them
(``mbi.Dataset``/``Domain``, ``Util.qm.QueryManager`` with ``setup_query_attr`` and
``setup_xy`` on the support), checks that its answers of the first marginals on the private data
equal the harness's, and times ``mwem.generate`` with ``permute=True`` (the paper's ACS scripts
run ``pmw_pub.py --permute``) and ε0 = sqrt(2ρ)/sqrt(2T), ρ from ε = 1, δ = 1/n² (its
``pmw_pub.py``). ``generate`` recomputes every answer each round (one ``bincount`` per marginal),
scores and samples all queries in float128, and updates A on the support. Prints one JSON line:
``per_iter_s`` (the time of ``generate`` ÷ T, its tqdm bar included), ``cpu_per_iter_s`` (its
CPU time ÷ T), ``setup_s`` and
``max_error`` (of the average iterate, as the harness measures its own).
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import time

import numpy as np
import pandas as pd

CHECKED_MARGINALS = 4


def main(reference_dir: str, inputs: str, T: int, seed: int) -> dict:
    sys.path.insert(0, reference_dir)
    from mbi import Dataset, Domain          # the released code's own copy of mbi
    from Util.cdp2adp import cdp_rho
    from Util.qm import QueryManager
    from mwem import generate

    data = np.load(inputs)
    shape = [int(s) for s in data["shape"]]
    names = [f"a{j}" for j in range(len(shape))]
    domain = Domain(names, shape)
    marginals = [tuple(names[j] for j in row[row >= 0]) for row in data["marginals"]]
    private = Dataset(pd.DataFrame(data["private"], columns=names), domain)
    public = Dataset(pd.DataFrame(data["support"], columns=names), domain)
    true_answers = data["true_answers"]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        manager = QueryManager(domain, marginals)
        check = QueryManager(domain, marginals[:CHECKED_MARGINALS]).get_answer(private)
        manager.setup_query_attr()
        manager.setup_xy(public)
    setup = time.perf_counter() - start
    if manager.num_queries != true_answers.size or \
            not np.allclose(check, true_answers[:check.size], rtol=0, atol=1e-12):
        raise SystemExit("the released code's queries are not in the harness's order")
    n = len(private.df)
    eps0 = (2 * cdp_rho(1.0, 1.0 / n ** 2)) ** 0.5 / (2 * T) ** 0.5
    np.random.seed(seed)
    start, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        average, _, _ = generate(public, true_answers.copy(), data["weights"], manager, n, T,
                                 eps0, permute=True)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    answers = manager.get_answer_weights(average)
    return {"per_iter_s": elapsed / T, "cpu_per_iter_s": cpu / T, "setup_s": setup,
            "max_error": float(np.abs(answers - true_answers).max())}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
