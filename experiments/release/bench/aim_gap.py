"""AIM against the reference code's own choices, paired by seed (NIST reduced).

Setting of :mod:`experiments.release.bench.pgm`: private MA-2019 reduced (|X| = 97,200), all 84
3-way marginals, ε = 1, δ = 1e-9 by default, add/remove neighbours (the reference code's), the
harness's defaults otherwise (T = 16d, α = 0.9, 80 MB, 1,000 iterations per fit). Each seed
``[s, 13]`` runs AIM once (Alg. 2 of McKenna et al. 2022: ``AIMRun.run_rounds``, as in
``run_aim``) and reads from that one run, paired:

* ``model``: the max error of the final model's marginals (what ``algo=aim`` releases);
* ``final_2500``: the final fit with 2,500 iterations instead of 1,000, warm-started from the same
  last-round model (the final fit of the mbi-1 reference code);
* ``synthetic``: the max error of the records ``mbi``'s ``MarkovRandomField.synthetic_data``
  draws from the final model (randomised rounding, the model's total in rows): what the
  reference script evaluates. ``mbi`` draws from NumPy's global generator; it is seeded from the
  run's generator and restored afterwards.

Also per seed: the reference script's "Average Error" on the synthetic records (mean over the
workload of ½‖X/ΣX − Y/ΣY‖₁), the rounds, whether a selected clique holds both RAC1P and
OWN_RENT, and the worst cell of the model. One JSON line per seed is appended to ``out`` (seeds
already there are skipped), then the paired summary is printed.

    PUBPRIV_DATA=../shared/data python scripts/bench.py aim_gap --out aim_gap.jsonl
        [--seeds 0 1 2 ...] [--eps 1] [--delta 1e-9]
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import t as student

from experiments.console import ArgumentParser, positive_float, run_or_fail
from experiments.outputs import file_arg
from experiments.release.bench.pgm import nist_problem
from pubpriv_core.algorithms import aim, pgm  # pgm first: it sets JAX up before mbi loads
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.algorithms.pgm_joint import JointModel
from pubpriv_core.algorithms.pgm_tree import TreeModel
from pubpriv_core.algorithms.select_measure import release
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.queries.errors import error_summary

from mbi import CliqueVector, Factor, MarkovRandomField  # noqa: E402  (after pgm)

REFERENCE_FINAL_ITERS = 2500
VARIANTS = ("final_2500", "synthetic")


def as_mbi_model(model, domain) -> MarkovRandomField:
    """The fitted model as an ``mbi.MarkovRandomField`` (a joint-table model becomes one
    potential on all attributes, a junction-tree model keeps its cliques' potentials: the same
    distribution)."""
    if isinstance(model, TreeModel):
        cliques = [tuple(c) for c in model.cliques]
        potentials = CliqueVector(domain, cliques, {
            c: Factor(domain.project(c), model.potentials[c]) for c in cliques})
        marginals = CliqueVector(domain, cliques, {
            c: Factor(domain.project(c), model.marginal(c)) for c in cliques})
        return MarkovRandomField(potentials=potentials, marginals=marginals, total=model.total)
    if not isinstance(model, JointModel):
        return model
    attrs = tuple(domain.attributes)
    table = model.log_table - model.log_table.max()
    potentials = CliqueVector(domain, [attrs], {attrs: Factor(domain, table)})
    marginals = CliqueVector(domain, [attrs], {attrs: Factor(domain, model.counts())})
    return MarkovRandomField(potentials=potentials, marginals=marginals, total=model.total)


def synthetic_records(model, problem: ReleaseProblem, seed: int) -> np.ndarray:
    """Records from ``mbi``'s ``synthetic_data`` on ``model`` (columns in the domain's order)."""
    domain = pgm.to_mbi(problem.private.domain)
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        data = as_mbi_model(model, domain).synthetic_data()
    finally:
        np.random.set_state(state)
    return np.stack([np.asarray(data.data[a]) for a in problem.private.domain.attributes], 1)


def record_answers(records: np.ndarray, problem: ReleaseProblem) -> np.ndarray:
    """Every workload cell as a fraction of the records, in the workload's query order."""
    domain = problem.private.domain
    cliques = pgm.workload_cliques(problem.workload)
    return np.concatenate([pgm.marginal(records, domain, c) for c in cliques]) / len(records)


def average_tv(problem: ReleaseProblem, answers: np.ndarray) -> float:
    """The reference script's "Average Error": mean over marginals of ½‖X/ΣX − Y/ΣY‖₁."""
    sizes = problem.workload.marginal_sizes
    gaps = np.abs(problem.true_answers - answers)
    return float(np.mean([0.5 * part.sum() for part in np.split(gaps, np.cumsum(sizes)[:-1])]))


def worst_cell(problem: ReleaseProblem, answers: np.ndarray) -> str:
    """The worst workload cell, as ``attribute=value`` pairs with true and released shares."""
    cell = int(np.argmax(np.abs(problem.true_answers - answers)))
    cliques = pgm.workload_cliques(problem.workload)
    sizes = [problem.private.domain.size(c) for c in cliques]
    index = int(np.searchsorted(np.cumsum(sizes), cell, side="right"))
    clique, offset = cliques[index], cell - sum(sizes[:index])
    shape = [problem.private.domain.size((a,)) for a in clique]
    values = np.unravel_index(offset, shape)
    return (",".join(f"{a}={v}" for a, v in zip(clique, values))
            + f" true={problem.true_answers[cell]:.4f} released={answers[cell]:.4f}")


def run_seed(problem: ReleaseProblem, seed: int, eps: float, delta: float, **options) -> dict:
    """One AIM run (``AIMRun.run_rounds``, as ``run_aim``; add/remove, further ``options`` as
    ``algo.*``) and the paired readings of the module docstring."""
    start = time.perf_counter()
    rng = np.random.default_rng([seed, 13])
    opts = aim.parse_aim_options(problem.public, {"relation": "add_remove", **options})
    ledger = Ledger(eps, delta, relation="add_remove")
    run = aim.AIMRun(problem.public, PrivateData(problem, ledger, rng), opts)
    run.run_rounds()
    last_round = run.model
    run.fit(opts.final_iters)
    final = run.model
    released = release("aim", problem.public, final, start, len(run.selected), {})
    run.model = last_round
    run.fit(REFERENCE_FINAL_ITERS)
    longer = release("aim", problem.public, run.model, start, 0, {})
    synthetic = record_answers(synthetic_records(final, problem, int(rng.integers(2 ** 32))),
                               problem)
    errors = error_summary(problem.true_answers, synthetic)
    return {"seed": seed, "rounds": len(run.selected), "rho": ledger.spent,
            "model": released.errors(problem.true_answers)["max_error"],
            "final_2500": longer.errors(problem.true_answers)["max_error"],
            "synthetic": errors["max_error"], "synthetic_mean": errors["mean_error"],
            "synthetic_average_tv": average_tv(problem, synthetic),
            "model_average_tv": average_tv(problem, released.answers),
            "race_own": any({"RAC1P", "OWN_RENT"} <= set(c) for c in run.selected),
            "worst": worst_cell(problem, released.answers),
            "selected": [",".join(c) for c in run.selected],
            "seconds": time.perf_counter() - start}


def paired(rows: list[dict], key: str, target: float) -> str:
    """Mean, median, share ≤ ``target`` of ``key``, and its paired difference from ``model``
    (mean with a 95% t interval)."""
    values = np.array([r[key] for r in rows])
    line = (f"{key}: mean {values.mean():.4f}, median {np.median(values):.4f}, "
            f"{int((values <= target).sum())}/{len(values)} <= {target}")
    if key == "model" or len(rows) < 2:
        return line
    diff = values - np.array([r["model"] for r in rows])
    half = student.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
    return line + (f"; {key} - model {diff.mean():+.4f} [{diff.mean() - half:+.4f}, "
                   f"{diff.mean() + half:+.4f}]")


def run_gap(seeds: list[int], out: Path, eps: float = 1.0, delta: float = 1e-9,
            target: float = 0.0142) -> None:
    """Run the seeds not yet in ``out``, append their lines, print the paired summary."""
    try:
        out.open("a").close()
    except OSError as err:
        raise ValueError(f"cannot write --out {out} ({err.strerror}); pass a writable path") \
            from None
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[row["seed"]] = row
    problem = nist_problem()
    for seed in seeds:
        if seed in done:
            continue
        row = run_seed(problem, seed, eps, delta)
        with out.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        done[seed] = row
        print(f"seed {seed}: {row['rounds']} rounds, model {row['model']:.4f}, final_2500 "
              f"{row['final_2500']:.4f}, synthetic {row['synthetic']:.4f}, race_own "
              f"{row['race_own']}, {row['seconds']:.0f} s", flush=True)
    rows = [done[s] for s in seeds]
    for key in ("model", *VARIANTS):
        print(paired(rows, key, target))
    print(f"reference 'Average Error' on synthetic records: mean "
          f"{np.mean([r['synthetic_average_tv'] for r in rows]):.5f}; on the model's marginals "
          f"{np.mean([r['model_average_tv'] for r in rows]):.5f}")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=file_arg, required=True, help="JSON lines, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(20)))
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=1e-9)
    args = parser.parse_args(argv)
    run_or_fail(run_gap, args.seeds, args.out, args.eps, args.delta)
