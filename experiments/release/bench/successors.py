"""GEM / GEM^Pub against the authors' PyTorch code on ADULT; cost per round.

Three commands:

* ``python scripts/bench.py successors reference --checkout DPQR --python VENV/bin/python
  [--algo gem|gem_pub] [--runs 5 | --seeds 0,2,4] [--code both|pubpriv|reference] [--T 50]
  [--pretrain-steps N] --out runs.jsonl [--table table.md]``: both codes on the same problem,
  interleaved seed by seed (below); prints the comparison table of every run in ``--out``
  (:func:`table`). ``--seeds`` runs only those seeds, so that two processes (one per core) can
  share the seeds of one table; ``--code`` runs only one code's runs. ``DPQR`` is the user's
  checkout of ``terranceliu/dp-query-release`` (with its ``datasets/``), ``VENV`` a virtual
  environment with PyTorch and its requirements; neither is part of this project.
* ``python scripts/bench.py successors replay --checkout DPQR --trace DIR [--python
  VENV/bin/python --seed 0 --T 50 --rounds R] [--jitter N] [--table table.md]``: the reference's
  GEM run once with its randomness traced into ``DIR`` (initial weights, noise, selections,
  measurements; skipped when ``DIR`` holds a trace), then replayed in this harness's GEM update
  (:mod:`experiments.release.bench.successors_replay`); prints both codes' Adam steps, error EMA
  and true max error per round; ``--jitter N`` adds N replays from the same draws with the
  initial weights moved by one float32 rounding step (how far rounding alone moves a run).
* ``python scripts/bench.py successors time [--runs N] -- OVERRIDES...``: repetitions 0..N−1 of
  ``python run.py OVERRIDES`` timed (seconds per round, pre-training, peak memory, max error;
  :func:`~experiments.release.bench.timed_runs.time_line`), one JSON line each (GEM^Pub's public
  pre-training is paid once per process); e.g. ``time -- experiment=fig1_paper_scale
  algo=gem_pub public.shift=0.3 T=100``.

The comparison: GEM and GEM^Pub here against the authors' code
(``terranceliu/dp-query-release``) on its ADULT setting, side by side, interleaved run by run.

The problem is the reference's own: its preprocessed ``datasets/adult.csv`` (48,842 rows) and
``datasets/domain/adult-domain.json``, projected on the 13 attributes its loader keeps for
``adult`` (in its order, :data:`REFERENCE_COLUMNS`), all C(13, 3) = 286 3-way marginals
(312,798 cells), δ = 1/n², ε = 1, T = 50, α = 0.5 and its ADULT script's GEM hyper-parameters
(K = 1000, noise dimension 256, two residual layers of 256, loss_p 2, lr 1e−4, max_iters 100,
max_idxs 10,000; GEM^Pub: layers of 512 and the weight EMA, as its GEM^Pub script). Its rows are
loaded into this harness's :class:`~pubpriv_core.data.domain.Dataset` unchanged (the data are
read from the user's checkout, never copied into the project). GEM^Pub's public data are a
seeded 10% subsample of the same rows, written as ``datasets/adult_pub.csv`` in the checkout for
the reference; both codes pre-train on it for the same number of steps (the reference's own
non-private script, :func:`reference_pretrain_command`, checkpoint ``best.pt`` chosen on public
error, no private data).

Per run (seed s): this harness's release (``run_algorithm``; rng ``default_rng(s)``) and one
reference run (``--test_seed`` s; :mod:`experiments.release.bench.successors_reference`, a
subprocess in the reference's venv), alternating which goes first. Recorded: max and mean error
of the released distribution's answers over all cells, the time of the T rounds (this harness:
the release's ``runtime_s``; the reference: its ``fit``), per round, the steps per round and the
load average.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from experiments.console import ArgumentParser, positive_int, run_or_fail, seed_list
from experiments.release.bench import successors_replay
from experiments.release.bench.timed_runs import time_line
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

#: the attributes the reference's ``get_data("adult")`` keeps, in its order
REFERENCE_COLUMNS = ("sex", "income>50K", "race", "relationship", "marital-status", "workclass",
                     "occupation", "education", "native-country", "capital-gain",
                     "capital-loss", "hours-per-week", "age")
#: the reference ADULT script's GEM options, in this harness's names
GEM_OPTIONS = {"alpha": 0.5, "K": 1000, "embedding": 256, "hidden": 256, "loss_p": 2,
               "lr": 1e-4, "eta_min": None, "max_iters": 100, "max_idxs": 10000,
               "ema_weights": False}
GEM_PUB_OPTIONS = {**GEM_OPTIONS, "hidden": 512, "ema_weights": True, "ema_weights_beta": 0.9,
                   "pretrain_lr": 5e-4, "pretrain_eta_min": 1e-7, "pretrain_refresh": 1}
PUBLIC_SHARE = 0.1
DRIVER = Path(__file__).with_name("successors_reference.py")


def reference_data(checkout: Path, name: str = "adult") -> Dataset:
    """The reference's preprocessed rows and domain, projected as its loader does."""
    csv = checkout / "datasets" / f"{name}.csv"
    domain_file = checkout / "datasets" / "domain" / "adult-domain.json"
    for path in (csv, domain_file):
        if not path.is_file():
            raise ValueError(f"{path} is missing; pass --checkout of dp-query-release with its "
                             "datasets/ folder checked out")
    sizes = json.loads(domain_file.read_text())
    frame = pd.read_csv(csv)[list(REFERENCE_COLUMNS)]
    domain = Domain(REFERENCE_COLUMNS, [sizes[c] for c in REFERENCE_COLUMNS])
    return Dataset(frame.to_numpy(dtype=np.int64), domain)


def public_rows(data: Dataset, seed: int = 0) -> np.ndarray:
    """A seeded ``PUBLIC_SHARE`` subsample of the rows (without replacement)."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(len(data), int(PUBLIC_SHARE * len(data)), replace=False))


def write_public(checkout: Path, data: Dataset, rows: np.ndarray) -> str:
    """The public rows as the reference's ``datasets/adult_pub.csv`` (+ its domain file)."""
    frame = pd.read_csv(checkout / "datasets" / "adult.csv").iloc[rows]
    frame.to_csv(checkout / "datasets" / "adult_pub.csv", index=False)
    domain = checkout / "datasets" / "domain"
    (domain / "adult_pub-domain.json").write_text((domain / "adult-domain.json").read_text())
    return "adult_pub"


def problem(data: Dataset, public: np.ndarray | None = None) -> ReleaseProblem:
    """All 3-way marginals of ``data``; with ``public``, those rows as the public source."""
    workload = MarginalWorkload.random(data.domain, 3, size=None, seed=0)
    if public is None:
        return ReleaseProblem(data, workload)
    support, counts = np.unique(data.records[public], axis=0, return_counts=True)
    return ReleaseProblem(data, workload, support, counts / counts.sum(), len(public))


def run_ours(prob: ReleaseProblem, algo: str, seed: int, T: int, pretrain_steps: int) -> dict:
    options = dict(GEM_PUB_OPTIONS, pretrain_steps=pretrain_steps) if algo == "gem_pub" \
        else dict(GEM_OPTIONS)
    start = time.perf_counter()
    release = run_algorithm(algo, prob, eps=1.0, delta=1.0 / prob.n ** 2, T=T,
                            rng=np.random.default_rng(seed), **options)
    errors = release.errors(prob.true_answers)
    return {"code": "pubpriv", "algo": algo, "seed": seed, "T": T,
            "fit_s": release.runtime_s, "per_round_s": release.per_iter_s,
            "cpu_per_round_s": release.trace["rounds_cpu_s"] / T,
            "wall_s": time.perf_counter() - start, "steps": release.trace["steps"],
            "max_error": errors["max_error"], "mean_error": errors["mean_error"],
            "pretrain_s": release.trace.get("pretrain_s"), "rho": release.rho,
            "eps0": release.trace["eps0"], "load": os.getloadavg()[0]}


def reference_pretrain_command(python: str, public: str, steps: int) -> list[str]:
    """The reference's non-private generator fit on the public rows (its ACS GEM^Pub recipe:
    lr 5e−4 → 1e−7, 10,000 cells ∝ error per step, best public max error kept)."""
    return [python, "examples/run/nondp/run_gen_nn.py", "--dataset", public, "--marginal", "3",
            "--workload", "286", "--workload_seed", "0", "--K", "1000", "--dim", "256",
            "--T", str(steps), "--lr", "5e-4", "--eta_min", "1e-7", "--loss_p", "2",
            "--max_idxs", "10000", "--max_iters", "1", "--log_freq", "1", "--sample_by_error",
            "--save_best", "--test_seed", "0"]


def reference_pretrain(python: str, checkout: Path, public: str, steps: int) -> None:
    """:func:`reference_pretrain_command` run in ``checkout`` (:func:`in_reference`)."""
    in_reference(reference_pretrain_command(python, public, steps), checkout,
                 "public pre-training")


#: torch threads of the reference: one (with OMP_NUM_THREADS=1) ran a generator step 4–6×
#: faster than two on this shared 2-core machine (load 30–40: OpenMP's spinning threads)
REFERENCE_THREADS = 1


def run_reference(python: str, checkout: Path, algo: str, seed: int, T: int,
                  public: str | None, extra: tuple[str, ...] = ()) -> dict:
    """One reference run through :data:`DRIVER` (``extra``: more driver options, e.g.
    ``--trace``); its JSON line."""
    command = [python, str(DRIVER), "--algo", algo, "--seed", str(seed), "--T", str(T),
               "--threads", str(REFERENCE_THREADS), *extra]
    if public:
        command += ["--dataset-pub", public]
    lines = [line for line in in_reference(command, checkout, "run").splitlines()
             if line.startswith("{")]
    if not lines:
        raise RuntimeError("the reference run printed no result line")
    return json.loads(lines[-1])


def in_reference(command: list[str], checkout: Path, what: str) -> str:
    """``command`` run in ``checkout`` with its ``src`` package on the path and
    :data:`REFERENCE_THREADS` threads; its stdout. A failure is a ``RuntimeError`` naming
    ``what`` and the reference's last line of stderr."""
    threads = str(REFERENCE_THREADS)
    env = dict(os.environ, PYTHONPATH=str(checkout), OMP_NUM_THREADS=threads,
               MKL_NUM_THREADS=threads)
    done = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=False,
                          env=env)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the reference's {what} failed ({done.returncode}): {last}")
    return done.stdout


CODES = ("pubpriv", "reference")


def interleave(python: str, checkout: Path, algo: str, seeds: list[int], T: int, out: Path,
               pretrain_steps: int, codes: tuple[str, ...] = CODES) -> list[dict]:
    """Both codes (or only ``codes``) on each seed (this harness first on even seeds, the
    reference on odd); one JSON line per run appended to ``out`` (runs already there are kept
    and skipped)."""
    data = reference_data(checkout)
    rows = public_rows(data) if algo == "gem_pub" else None
    public = None
    if rows is not None and "reference" in codes:     # the reference's public pre-training
        public = write_public(checkout, data, rows)
        target = checkout / "save" / "Gen_NN_NonDP" / public
        if not any(target.rglob("best.pt")):
            reference_pretrain(python, checkout, public, pretrain_steps)
    prob = problem(data, rows)
    done = {(r["code"], r["seed"]) for r in read(out) if r["algo"] == algo and r["T"] == T}
    for seed in seeds:
        order = ("pubpriv", "reference") if seed % 2 == 0 else ("reference", "pubpriv")
        for code in order:
            if (code, seed) in done or code not in codes:
                continue
            row = run_ours(prob, algo, seed, T, pretrain_steps) if code == "pubpriv" else \
                run_reference(python, checkout, algo, seed, T, public)
            with out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(f"{code} {algo} seed {seed}: max error {row['max_error']:.4f}, "
                  f"{row['per_round_s']:.3f} s/round (load {row['load']:.1f})", file=sys.stderr)
    return read(out)


def read(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def table(rows: list[dict]) -> str:
    """Markdown: per (algorithm, code) the runs, max / mean error (mean ± sd, min–max), seconds
    per round (mean, and the load range), then per algorithm the paired differences and the
    speed ratio (reference time / this harness's time, per seed), and the two codes' max errors
    compared unpaired (Welch's 95% interval of the difference of means: the codes draw their
    randomness from unrelated generators, so a seed pairs nothing but the time slot)."""
    frame = pd.DataFrame(rows)
    if "cpu_per_round_s" not in frame:
        frame["cpu_per_round_s"] = np.nan
    lines = ["| algorithm | code | runs | max error mean ± sd [min, max] | mean error | "
             "s / round, wall (mean) | CPU s / round (mean) | steps / round | load |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (algo, code), part in frame.groupby(["algo", "code"]):
        steps = np.mean([np.mean(s) for s in part["steps"]])
        lines.append(f"| {algo} | {code} | {len(part)} | {part.max_error.mean():.4f} ± "
                     f"{part.max_error.std():.4f} [{part.max_error.min():.4f}, "
                     f"{part.max_error.max():.4f}] | {part.mean_error.mean():.5f} | "
                     f"{part.per_round_s.mean():.3f} | {part.cpu_per_round_s.mean():.3f} | "
                     f"{steps:.1f} | "
                     f"{part.load.min():.1f}–{part.load.max():.1f} |")
    lines += ["", "| algorithm | paired seeds | max error: this − reference, mean [min, max] | "
              "unpaired: difference of means, Welch 95% CI (p) | "
              "speed-up per round, wall (reference / this), mean [min, max] | speed-up, CPU "
              "time |", "|---|---|---|---|---|---|"]
    for algo, part in frame.groupby("algo"):
        pivot = part.pivot_table(index="seed", columns="code", dropna=False,
                                 values=["max_error", "per_round_s", "cpu_per_round_s"])
        pivot = pivot[pivot["max_error"].notna().all(axis=1)]
        if pivot.empty:
            continue
        diff = pivot["max_error"]["pubpriv"] - pivot["max_error"]["reference"]
        ratio = pivot["per_round_s"]["reference"] / pivot["per_round_s"]["pubpriv"]
        cpu = pivot["cpu_per_round_s"]["reference"] / pivot["cpu_per_round_s"]["pubpriv"]
        lines.append(f"| {algo} | {len(pivot)} | {diff.mean():+.4f} [{diff.min():+.4f}, "
                     f"{diff.max():+.4f}] | {welch(part)} | "
                     f"{ratio.mean():.1f}× [{ratio.min():.1f}, "
                     f"{ratio.max():.1f}] | {cpu.mean():.1f}× [{cpu.min():.1f}, "
                     f"{cpu.max():.1f}] |")
    return "\n".join(lines)


def welch(part: pd.DataFrame) -> str:
    """Mean max error of this harness − the reference's over all their runs, with Welch's 95%
    interval and p-value ('n/a' without spread)."""
    ours = part.max_error[part.code == "pubpriv"].to_numpy()
    theirs = part.max_error[part.code == "reference"].to_numpy()
    test = stats.ttest_ind(ours, theirs, equal_var=False)
    low, high = test.confidence_interval(0.95)
    if not np.isfinite([low, high]).all():
        return "n/a"
    return (f"{ours.mean() - theirs.mean():+.4f} [{low:+.4f}, {high:+.4f}] "
            f"(p = {test.pvalue:.2f})")


def reference(args) -> None:
    """The ``reference`` command: interleaved runs, then the table of every run in ``--out``."""
    seeds = args.seeds if args.seeds is not None else list(range(args.runs))
    codes = CODES if args.code == "both" else (args.code,)
    rows = interleave(args.python, args.checkout, args.algo, seeds, args.T, args.out,
                      args.pretrain_steps, codes)
    _show(table(rows), args.table)


def replay(args) -> None:
    """The ``replay`` command: the reference's GEM traced (unless traced), replayed here."""
    if successors_replay.missing_files(args.trace):
        if not args.python:
            raise ValueError(f"{args.trace} holds no trace; pass --python (the reference's "
                             "venv) to trace its run")
        extra = ("--trace", str(args.trace.resolve()),
                 *(("--rounds", str(args.rounds)) if args.rounds else ()))
        run_reference(args.python, args.checkout, "gem", args.seed, args.T, None, extra)
    trace = successors_replay.load(args.trace)
    prob = problem(reference_data(args.checkout))
    text = successors_replay.table(successors_replay.replay(trace, prob, args.T, GEM_OPTIONS))
    finals = [successors_replay.replay(trace, prob, args.T, GEM_OPTIONS,
                                       np.random.default_rng(j))[-1]["max_error"]
              for j in range(args.jitter or 0)]
    if finals:
        text += ("\n\nThis harness from the same draws, its initial weights moved by at most "
                 f"one float32 rounding step (seeds 0–{args.jitter - 1}): true max error after "
                 f"the last round {', '.join(f'{e:.5f}' for e in finals)}.")
    _show(text, args.table)


def _show(text: str, path: Path | None) -> None:
    print(text)
    if path:
        path.write_text(text + "\n")


def timing(args) -> None:
    """The ``time`` command: one JSON line per repetition."""
    for run in range(args.runs):
        print(json.dumps(dict(time_line(args.overrides, run), run=run)), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ref = sub.add_parser("reference", help="side by side with the authors' code")
    ref.add_argument("--checkout", type=Path, required=True)
    ref.add_argument("--python", required=True, help="the reference venv's python")
    ref.add_argument("--algo", choices=("gem", "gem_pub"), default="gem")
    ref.add_argument("--runs", type=positive_int, default=5, help="seeds 0..runs-1")
    ref.add_argument("--seeds", type=seed_list, help="these seeds instead of --runs")
    ref.add_argument("--code", choices=("both", *CODES), default="both",
                     help="run only this code's runs (the table still reads every run)")
    ref.add_argument("--T", type=positive_int, default=50)
    ref.add_argument("--pretrain-steps", type=positive_int, default=200)
    ref.add_argument("--out", type=Path, required=True)
    ref.add_argument("--table", type=Path)
    rep = sub.add_parser("replay", help="the reference's GEM traced, replayed here")
    rep.add_argument("--checkout", type=Path, required=True)
    rep.add_argument("--trace", type=Path, required=True, help="the trace's folder")
    rep.add_argument("--python", help="the reference venv's python (to make the trace)")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--T", type=positive_int, default=50)
    rep.add_argument("--rounds", type=positive_int, help="trace only the first R rounds")
    rep.add_argument("--jitter", type=positive_int,
                     help="N more replays from the weights moved by one rounding step")
    rep.add_argument("--table", type=Path)
    times = sub.add_parser("time", help="timed repetitions of run.py OVERRIDES")
    times.add_argument("--runs", type=positive_int, default=1,
                       help="repetitions 0..N-1 in this process (a public pre-training once)")
    times.add_argument("overrides", nargs="+")
    args = parser.parse_args(argv)
    command = {"reference": reference, "replay": replay, "time": timing}[args.command]
    run_or_fail(command, args)
