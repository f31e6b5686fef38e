"""The reference AIM code on NIST reduced over seeds, against this harness's AIM.

The reference is ``mechanisms/aim.py`` of Private-PGM (McKenna et al. 2022, Alg. 2; its ``mbi``-2
form, ``estimation.MirrorDescent().estimate(..., potentials=...)``, with its ``mechanism.py`` and
``cdp2adp.py``). It is not part of this project: ``reference_dir`` is the user's own checkout of
that ``mechanisms`` folder, loaded as it is. Setting of :mod:`experiments.release.bench.aim_gap`:
private MA-2019 reduced (|X| = 97,200), all 84 3-way marginals with weight 1, ε = 1, δ = 1e-9,
the reference's defaults otherwise (T = 16d, α = 0.9, 80 MB, 1,000 iterations per fit and for the
final fit, add/remove: total estimated by ``mbi``'s minimum-variance rule).

Only the reference's ``estimation`` name is replaced, by :class:`Estimation`:

* ``mbi``: ``mbi``'s ``MirrorDescent`` itself, ``potentials=`` passed on as ``mbi`` 2.0.0's
  ``warm_start=`` (the one renamed argument); JAX's compiled programs are dropped before each fit
  (the reference's ``model.project`` compiles one per candidate clique and round, which otherwise
  exhausts the process's memory mappings within a run on this machine);
* ``joint``: the same mirror descent on the joint table
  (:func:`~pubpriv_core.algorithms.pgm_joint.fit`, iterates equal to ``mbi``'s up to rounding),
  its model seen through :class:`JointView`; selection, budget and annealing stay the reference's.

Seeding: the reference draws its noise and its exponential-mechanism picks from NumPy's global
generator (``prng`` left at its default ``np.random``), and ``mbi``'s ``synthetic_data`` draws from
it too; each seed ``[s, 13]`` seeds it through an explicit ``Generator`` for the run and the
global state is restored afterwards. The reference orders its candidates by set iteration, which
depends on ``PYTHONHASHSEED`` (recorded per row). JAX runs in float64 (:mod:`pgm` is imported
before ``mbi``).

Per seed, one JSON line: the max error over all workload cells (fractions of the total, as the
harness's metric) of the final model's marginals (``model``) and of its synthetic records
(``synthetic``, what the reference script scores; also its "Average Error"), the rounds, the
picked cliques, whether one holds both RAC1P and OWN_RENT, the model's worst cell, and the time.

    PUBPRIV_DATA=../shared/data python scripts/bench.py aim_reference --reference-dir
        PRIVATE_PGM/mechanisms --out aim_reference.jsonl [--seeds 0 1 2 ...]
        [--estimator joint|mbi] [--ours aim_gap.jsonl] [--eps 1] [--delta 1e-9]

``--reference-dir`` is the user's own checkout of Private-PGM's ``mechanisms`` folder (``aim.py``,
``mechanism.py``, ``cdp2adp.py`` in their ``mbi``-2 form). Seeds already in ``--out`` with the
same estimator are not run again; ``--ours`` is an ``aim_gap`` output to compare with. Started
with another ``PYTHONHASHSEED`` than 0, the benchmark runs in a child process that has 0.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import jax
import numpy as np
from scipy import stats

from experiments.console import ArgumentParser, positive_float, run_or_fail
from experiments.outputs import file_arg
from experiments.release.bench.aim_gap import as_mbi_model, average_tv, record_answers, worst_cell
from experiments.release.bench.pgm import nist_problem
from pubpriv_core.algorithms import pgm, pgm_joint  # pgm first: it sets JAX up before mbi loads
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.queries.errors import error_summary

import mbi  # noqa: E402  (after pgm)
from mbi import estimation  # noqa: E402

ESTIMATORS = ("mbi", "joint")
TARGETS = (0.0142, 0.0118)
REFERENCE_FILES = ("aim.py", "mechanism.py", "cdp2adp.py")


def check_estimator(name: str) -> None:
    """Refuse an estimator not in :data:`ESTIMATORS`."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown --estimator {name!r}; choose from {', '.join(ESTIMATORS)}")


def load_reference(directory: Path) -> ModuleType:
    """The reference ``aim.py`` of ``directory`` as a module (its folder on ``sys.path`` for its
    own ``mechanism`` / ``cdp2adp`` imports)."""
    missing = [f for f in REFERENCE_FILES if not (directory / f).is_file()]
    if missing:
        raise ValueError(f"--reference-dir {directory} lacks {', '.join(missing)}; point it at "
                         "a Private-PGM checkout's mechanisms folder")
    sys.path.insert(0, str(directory))
    spec = importlib.util.spec_from_file_location("reference_aim", directory / "aim.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "AIM") or not hasattr(module, "estimation"):
        raise ValueError(f"{directory / 'aim.py'} is not the mbi-2 form of AIM (it has no AIM "
                         "class or no mbi.estimation import)")
    return module


def mbi_dataset(problem: ReleaseProblem) -> mbi.Dataset:
    """The private records as an ``mbi.Dataset`` (one integer column per attribute)."""
    domain = problem.private.domain
    columns = {a: problem.private.records[:, i].astype(np.int64)
               for i, a in enumerate(domain.attributes)}
    return mbi.Dataset(columns, pgm.to_mbi(domain))


def reference_workload(problem: ReleaseProblem) -> list[tuple[tuple[str, ...], float]]:
    """The workload in the reference's form: (clique, weight 1.0) per marginal."""
    return [(clique, 1.0) for clique in pgm.workload_cliques(problem.workload)]


class _Marginal:
    """A model marginal in the reference's ``model.project(cl)`` form."""

    def __init__(self, values: np.ndarray):
        self.values = values

    def datavector(self) -> np.ndarray:
        return self.values.ravel()


class JointView:
    """A :class:`~pubpriv_core.algorithms.pgm_joint.JointModel` with what the reference reads
    of an ``mbi`` model: ``domain``, ``cliques``, ``total``, ``project``, ``potentials.expand``
    (the warm start: the table itself) and ``synthetic_data`` (``mbi``'s, on the same
    distribution)."""

    def __init__(self, model: pgm_joint.JointModel):
        self.model = model
        self.domain, self.cliques, self.total = model.domain, model.cliques, model.total
        self.potentials = self
        self._counts = model.counts()

    def expand(self, cliques) -> pgm_joint.JointModel:
        return self.model

    def project(self, clique) -> _Marginal:
        return _Marginal(self.model.marginal(tuple(clique), self._counts))

    def synthetic_data(self, rows: int | None = None) -> mbi.Dataset:
        return as_mbi_model(self.model, self.domain).synthetic_data(rows=rows)


class Estimation:
    """Stands for ``mbi.estimation`` inside the reference: ``MirrorDescent().estimate`` fits with
    ``estimator`` and keeps the cliques of the measurements it was given (the last call holds
    them all)."""

    def __init__(self, estimator: str):
        check_estimator(estimator)
        self.estimator = estimator
        self.cliques: list[tuple[str, ...]] = []

    def MirrorDescent(self) -> "Estimation":  # noqa: N802  (the name the reference calls)
        return self

    def estimate(self, domain, measurements, iters=1000, potentials=None):
        self.cliques = [tuple(m.clique) for m in measurements]
        if self.estimator == "mbi":
            jax.clear_caches()   # a program per projected clique: a run outgrows vm.max_map_count
            return estimation.MirrorDescent().estimate(domain, measurements, iters=iters,
                                                       warm_start=potentials)
        return JointView(pgm_joint.fit(domain, measurements, None, iters, potentials))


def model_answers(model, problem: ReleaseProblem) -> np.ndarray:
    """The model's marginals on every workload cell, as fractions of its total."""
    return pgm.workload_answers(model.model if isinstance(model, JointView) else model,
                                problem.workload)


def run_seed(reference: ModuleType, problem: ReleaseProblem, seed: int, eps: float,
             delta: float, estimator: str) -> dict:
    """One run of the reference AIM (global NumPy state seeded from ``[seed, 13]``) and its
    readings (module docstring)."""
    start = time.perf_counter()
    fits = Estimation(estimator)
    reference.estimation = fits
    mechanism = reference.AIM(eps, delta)
    state = np.random.get_state()
    np.random.seed(int(np.random.default_rng([seed, 13]).integers(2 ** 32)))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            model, synth = mechanism.run(mbi_dataset(problem), reference_workload(problem))
    finally:
        np.random.set_state(state)
    answers = model_answers(model, problem)
    records = np.stack([np.asarray(synth.data[a]) for a in problem.private.domain.attributes], 1)
    synthetic = record_answers(records, problem)
    selected = fits.cliques[len(problem.private.domain.attributes):]
    return {"seed": seed, "estimator": estimator, "rounds": len(selected), "rho": mechanism.rho,
            "model": error_summary(problem.true_answers, answers)["max_error"],
            "synthetic": error_summary(problem.true_answers, synthetic)["max_error"],
            "synthetic_average_tv": average_tv(problem, synthetic), "synthetic_rows": len(records),
            "race_own": any({"RAC1P", "OWN_RENT"} <= set(c) for c in selected),
            "worst": worst_cell(problem, answers), "selected": [",".join(c) for c in selected],
            "hash_seed": os.environ.get("PYTHONHASHSEED"),
            "seconds": time.perf_counter() - start}


def describe(values: np.ndarray) -> str:
    """Mean, median, quartiles and the shares at or below :data:`TARGETS`."""
    q1, q3 = np.percentile(values, [25, 75])
    shares = ", ".join(f"{int((values <= t).sum())}/{len(values)} <= {t}" for t in TARGETS)
    return (f"mean {values.mean():.4f}, median {np.median(values):.4f}, quartiles {q1:.4f} "
            f"{q3:.4f}, min {values.min():.4f}, max {values.max():.4f}, {shares}")


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """mean(a) − mean(b) and its 95% Welch interval."""
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    diff, half = a.mean() - b.mean(), stats.t.ppf(0.975, df) * np.sqrt(va + vb)
    return diff, diff - half, diff + half


def compare(rows: list[dict], ours: list[dict]) -> list[str]:
    """Lines comparing the reference's rows with ours (``aim_gap`` rows), per reading."""
    lines = []
    for key in ("model", "synthetic"):
        ref = np.array([r[key] for r in rows])
        lines.append(f"reference {key} ({len(ref)} runs): {describe(ref)}")
        if not ours or len(ref) < 2:
            continue
        mine = np.array([r[key] for r in ours])
        diff, low, high = welch(ref, mine)
        rank = stats.mannwhitneyu(ref, mine, alternative="two-sided").pvalue
        lines.append(f"ours {key} ({len(mine)} runs): {describe(mine)}")
        lines.append(f"  reference - ours {key}: {diff:+.4f} [{low:+.4f}, {high:+.4f}] (Welch "
                     f"95%), Mann-Whitney p = {rank:.3f}")
    race = [r for r in rows if r["race_own"]]
    if race and len(race) < len(rows):
        lines.append(f"reference model max error, median: with a RAC1P+OWN_RENT clique "
                     f"{np.median([r['model'] for r in race]):.4f} ({len(race)} runs), without "
                     f"{np.median([r['model'] for r in rows if not r['race_own']]):.4f}")
    return lines


def read_rows(path: Path | None) -> list[dict]:
    """The JSON lines of ``path`` (none if it is None or absent)."""
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_reference(reference_dir: Path, seeds: list[int], out: Path, eps: float = 1.0,
                  delta: float = 1e-9, estimator: str = "joint",
                  ours: Path | None = None) -> None:
    """Run the seeds not yet in ``out`` with ``estimator``, append their lines, print the
    comparison with ``ours`` (an ``aim_gap`` output)."""
    check_estimator(estimator)
    if ours is not None and not ours.is_file():
        raise ValueError(f"--ours {ours} is not a file; pass the --out of `scripts/bench.py "
                         "aim_gap`")
    try:
        out.open("a").close()
    except OSError as err:
        raise ValueError(f"cannot write --out {out} ({err.strerror}); pass a writable path") \
            from None
    reference = load_reference(reference_dir)
    done = {(r["seed"], r["estimator"]): r for r in read_rows(out)}
    problem = nist_problem()
    for seed in seeds:
        if (seed, estimator) in done:
            continue
        row = run_seed(reference, problem, seed, eps, delta, estimator)
        with out.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        done[seed, estimator] = row
        print(f"seed {seed} ({estimator}): {row['rounds']} rounds, model {row['model']:.4f}, "
              f"synthetic {row['synthetic']:.4f}, race_own {row['race_own']}, "
              f"{row['seconds']:.0f} s", flush=True)
    rows = [done[s, estimator] for s in seeds]
    for line in compare(rows, read_rows(ours)):
        print(line)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-dir", type=Path, required=True,
                        help="a Private-PGM checkout's mechanisms folder")
    parser.add_argument("--out", type=file_arg, required=True, help="JSON lines, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(20)))
    parser.add_argument("--estimator", choices=ESTIMATORS, default="joint")
    parser.add_argument("--ours", type=Path, help="aim_gap's JSON lines to compare with")
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=1e-9)
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":     # the reference iterates over sets
        return subprocess.run([sys.executable, "-m", "experiments.release.bench.aim_reference",
                               *argv], env={**os.environ, "PYTHONHASHSEED": "0"}).returncode
    run_or_fail(run_reference, args.reference_dir, args.seeds, args.out, args.eps, args.delta,
                args.estimator, args.ours)
    return 0


if __name__ == "__main__":
    sys.exit(main())
