"""PMW^Pub's cost at the paper's full-ACS scale against support size and workload.

The cost curve of PMW^Pub at the paper's full-ACS scale: time per iteration, build time and peak
memory against the public support size and the workload size.

Setting (Liu et al. 2021, Fig. 1 middle/bottom and Table 1's full-ACS row, on the embedded
``acs_full`` synthetic preset: the 67-attribute ACS domain shape): n = 130,000 private rows from
the private chain model; the public support is the distinct rows of m rows drawn from the public
model (shift 0.1), m ∈ {1K, 4K, 16K, 64K, 130K}; W ∈ {256, 1024, 4096} random 3-way marginals;
PMW^Pub with the paper's defaults (permute-and-flip, Gaussian, §5.3 replay), ε = 1, δ = 1/n²,
T = 20. Each configuration runs in a fresh process, so its peak RSS is its own.

With ``--reference-dir`` and ``--reference-python`` the paper's released code runs beside each
configuration on the same inputs (:mod:`~experiments.release.bench.research_pmwpub`; the order of
the two alternates over the grid) and the columns ``research_per_iter_s``,
``research_cpu_per_iter_s``, ``research_ratio`` (its wall time per iteration ÷ this harness's)
and ``research_cpu_ratio`` (the same for CPU time), with the load average before each, are
added.

Columns: ``cpu_per_iter_s`` (the process's CPU time of that release ÷ T, all threads: what a loaded
machine does not inflate), ``build_s`` (true answers over the n private rows, the support's present
cells, the answerer and its plan), ``warmup_s`` (an untimed first run of the same release — same T,
seed and draws — which loads every compiled kernel the timed run calls from numba's cache: a kernel
first called in the timed rounds, such as the selection's scan of tail survivors, would add its
≈ 15 ms load to them), ``per_iter_s`` (mean over the T rounds of the release that follows),
``passes`` and ``pass_s`` (the full answer passes of that release,
:meth:`~pubpriv_core.queries.SupportAnswerer.answer` — the first answers, those of rounds whose
changes touch more than |X̂|/4 rows, and the output's — and the median seconds of one; the rest of a
round is its selection, incremental changes, §5.3 replay updates and measurement), ``peak_rss_mib``,
``tables`` (super-marginals filled per pass, :mod:`pubpriv_core.queries.plan`), ``pass_bytes``
(bytes one full pass must read, :meth:`~pubpriv_core.queries.SupportAnswerer.pass_bytes`: the id
table and the 8-byte weights once per block with one table per marginal; with super-marginals the
rows' 2-byte table cells and the weights once per two tables, or each table's k code columns, one
byte per row each, where the cells are not kept) and ``bandwidth_s`` = pass_bytes ÷ this machine's
memory bandwidth, measured here by summing a 1 GiB array (the time one pass would take if every byte
it reads came from memory; its weights stay in cache, and
:mod:`~experiments.release.bench.pass_floor` times one read of its index alone). A round makes at
most one full pass (or a cheaper incremental one), plus the selection over all queries.

With ``--repeats R`` each point is measured R times (the order of the two codes still
alternating); scaling.csv keeps every measurement and the figure and the printed summary take
each point's medians (the ratio: the median of its paired ratios).

Usage: ``python scripts/bench.py scale [--sizes 1000,4000,...] [--workloads 256,1024,4096]
[--threads N] [--repeats R] [--out results/bench] [--reference-dir DIR --reference-python PY]``.
Prints the table; writes ``scaling.csv`` and
``scaling.png`` (log-log, with the paper's Table-1 point: 2.021 s per iteration, 130K-row
support, W = 4,096, one core of an i5-4690K).
"""
from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from experiments.console import ArgumentParser, positive_int, positive_ints, run_or_fail
from experiments.outputs import folder_arg
from experiments.release.bench import json_child

PAPER_POINT = {"support": 130_000, "W": 4096, "per_iter_s": 2.021}
N_PRIVATE, T, SHIFT = 130_000, 20, 0.1


def public_source(rows: int):
    """The grid's public source: the distinct rows of ``rows`` draws from the public model."""
    from pubpriv_core.data import public as public_sources
    from pubpriv_core.data.synthetic import load_synthetic

    return public_sources.from_dataset(load_synthetic("acs_full", role="public", n=rows,
                                                      shift=SHIFT))


def grid_workload(domain, W: int):
    """The grid's workload: W random 3-way marginals (seed 0)."""
    from pubpriv_core.queries import MarginalWorkload

    return MarginalWorkload.random(domain, 3, W, 0)


def one_configuration(rows: int, W: int, inputs: str | None = None) -> dict:
    """Build and run one configuration in this process; its numbers as a dict. With ``inputs``,
    first write the configuration's data there for the released code
    (:mod:`experiments.release.bench.research_pmwpub`)."""
    from pubpriv_core.harness import ReleaseProblem, run_algorithm
    from pubpriv_core.data.synthetic import load_synthetic

    private = load_synthetic("acs_full", role="private", n=N_PRIVATE, shift=SHIFT)
    source = public_source(rows)
    start = time.perf_counter()
    workload = grid_workload(private.domain, W)
    problem = ReleaseProblem(private, workload, public_support=source.support.records,
                             public_weights=source.weights, public_rows=source.n_rows)
    problem.query_candidates(problem.public_answerer)
    build = time.perf_counter() - start
    if inputs:
        write_inputs(inputs, private, problem)

    def run():
        return run_algorithm("pmwpub", problem, eps=1.0, delta=1.0 / N_PRIVATE ** 2, T=T,
                             rng=np.random.default_rng(0))

    start = time.perf_counter()
    run()
    warmup = time.perf_counter() - start
    cpu = time.process_time()
    with pass_timer(problem.public_answerer) as passes:
        release = run()
    cpu = (time.process_time() - cpu) / T
    plan = problem.public_answerer.plan
    pass_bytes = problem.public_answerer.pass_bytes()
    return {"rows_drawn": rows, "support": problem.support_size, "W": W,
            "queries": workload.num_queries, "present": problem.public_answerer.num_queries,
            "tables": plan.num_tables, "build_s": build, "warmup_s": warmup,
            "per_iter_s": release.per_iter_s, "cpu_per_iter_s": cpu,
            "passes": len(passes), "pass_s": float(np.median(passes)) if passes else np.nan,
            "max_error": release.errors(problem.true_answers)["max_error"],
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 10,
            "pass_bytes": pass_bytes}


@contextlib.contextmanager
def pass_timer(answerer):
    """The seconds of each full answer pass (``answerer.answer``) made while the block runs, in
    a list filled as they happen."""
    spent = []
    answer = answerer.answer

    def timed(weights):
        start = time.perf_counter()
        try:
            return answer(weights)
        finally:
            spent.append(time.perf_counter() - start)

    answerer.answer = timed
    try:
        yield spent
    finally:
        del answerer.answer


def write_inputs(path: str, private, problem) -> None:
    """The configuration as :mod:`~experiments.release.bench.research_pmwpub` reads it."""
    marginals = problem.workload.marginals
    padded = np.full((len(marginals), max(len(m) for m in marginals)), -1, dtype=np.int64)
    for w, attributes in enumerate(marginals):
        padded[w, :len(attributes)] = attributes
    np.savez(path, private=private.records, support=problem.public_support,
             weights=problem.public_weights, shape=np.asarray(private.domain.shape),
             marginals=padded, true_answers=problem.true_answers)


def memory_bandwidth(gib: float = 1.0, repeats: int = 5) -> float:
    """Bytes per second read by ``numpy.sum`` over a ``gib``-GiB float64 array (best of repeats)."""
    data = np.ones(int(gib * 2 ** 30) // 8)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        data.sum()
        best = min(best, time.perf_counter() - start)
    return data.nbytes / best


def run_child(rows: int, W: int, threads: int | None, inputs: str | None = None) -> dict:
    """One configuration in a fresh process (``python -m`` this module), so its peak RSS is its
    own; with ``inputs`` it also writes its data there for the released code."""
    env = dict(os.environ)
    if threads:
        env["NUMBA_NUM_THREADS"] = str(threads)
    command = [sys.executable, "-m", "experiments.release.bench.scale", f"{rows},{W}"]
    return json_child(command + ([inputs] if inputs else []), f"the point {rows},{W}", env=env)


def run_research(reference: tuple[str, str], inputs: str) -> dict:
    """The released code (``reference`` = (its interpreter, its checkout)) on the inputs one
    :func:`run_child` wrote: :mod:`~experiments.release.bench.research_pmwpub` in a fresh
    process of that interpreter, T = 20 as here."""
    python, directory = reference
    return json_child([python, str(Path(__file__).with_name("research_pmwpub.py")), directory,
                       inputs, str(T), "0"], f"the released code on {inputs}")


def check_reference(reference: tuple[str, str] | None) -> None:
    """Refuse a reference interpreter or checkout that cannot be what the child runs."""
    if reference is None:
        return
    python, directory = reference
    if not Path(python).is_file():
        raise ValueError(f"--reference-python {python} is not a file; give the interpreter of "
                         "an environment with numpy<2 and pandas")
    missing = [f for f in ("mwem.py", "Util/qm.py", "mbi/dataset.py")
               if not (Path(directory) / f).is_file()]
    if missing:
        raise ValueError(f"--reference-dir {directory} lacks {', '.join(missing)}; point it at a "
                         "checkout of the paper's released code (terranceliu/pmw-pub)")


def plot(frame, out: Path) -> None:
    """Seconds per iteration against |X̂| (with the released code's where measured) and, then,
    the released code's time over this harness's (the 10x target drawn)."""
    import matplotlib.pyplot as plt

    research = "research_per_iter_s" in frame
    fig, axes = plt.subplots(1, 2 if research else 1, figsize=(12 if research else 7, 4.5),
                             squeeze=False)
    ax = axes[0, 0]
    for (W, group), color in zip(frame.groupby("W"), ("C0", "C1", "C2")):
        group = group.sort_values("support")
        ax.plot(group["support"], group["per_iter_s"], "o-", color=color,
                label=f"PMW^Pub, W = {W}")
        ax.plot(group["support"], group["bandwidth_s"], ":", color=color,
                label=f"memory-bandwidth limit, W = {W}")
        if research:
            ax.plot(group["support"], group["research_per_iter_s"], "s--", color=color,
                    label=f"released research code, W = {W}")
            axes[0, 1].plot(group["support"], group["research_ratio"], "o-", color=color,
                            label=f"W = {W}, wall time")
            axes[0, 1].plot(group["support"], group["research_cpu_ratio"], "x--", color=color,
                            label=f"W = {W}, CPU time")
    ax.plot(PAPER_POINT["support"], PAPER_POINT["per_iter_s"], "k*", markersize=12,
            label="paper, Table 1 (full ACS, W = 4,096)")
    ax.set(xscale="log", yscale="log", xlabel="public support size |X̂| (distinct rows)",
           ylabel="seconds per iteration",
           title="PMW^Pub on the full-ACS shape (67 attributes, 3-way), T = 20")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    if research:
        ratio = axes[0, 1]
        ratio.axhline(10, color="k", linestyle=":", label="10x")
        ratio.set(xscale="log", yscale="log", xlabel="public support size |X̂| (distinct rows)",
                  ylabel="released code's time / this harness's",
                  title="speed-up over the released code, same inputs")
        ratio.legend(fontsize=7)
        ratio.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=150)


def measure(rows: int, W: int, threads: int | None, reference: tuple[str, str] | None,
            first_research: bool) -> dict:
    """This harness's run of one configuration and, with ``reference``, the released code's on
    the same inputs, in the order given (alternated over the grid), each with its load."""
    if reference is None:
        return {**run_child(rows, W, threads), "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as scratch:
        inputs = str(Path(scratch) / "inputs.npz")
        if first_research:      # the inputs come from a run of this harness: write them first
            run_child(rows, W, threads, inputs)
            research_load = os.getloadavg()[0]
            research = run_research(reference, inputs)
        load = os.getloadavg()[0]
        record = run_child(rows, W, threads, None if first_research else inputs)
        if not first_research:
            research_load = os.getloadavg()[0]
            research = run_research(reference, inputs)
    return {**record, "load": load, "research_per_iter_s": research["per_iter_s"],
            "research_cpu_per_iter_s": research["cpu_per_iter_s"],
            "research_setup_s": research["setup_s"],
            "research_max_error": research["max_error"], "research_load": research_load,
            "research_ratio": research["per_iter_s"] / record["per_iter_s"],
            "research_cpu_ratio": research["cpu_per_iter_s"] / record["cpu_per_iter_s"]}


def run_benchmark(sizes: list[int], workloads: list[int], threads: int | None = None,
                  out: str = "results/bench",
                  reference: tuple[str, str] | None = None, repeats: int = 1) -> None:
    """Run every (support size, W) ``repeats`` times, each in its own process (and the released
    code beside it, when ``reference`` is given); print, write scaling.csv (one row per
    measurement, ``repeat`` numbering them) and scaling.png (the medians)."""
    import pandas as pd

    check_reference(reference)
    print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    records = []
    for W in workloads:
        for rows in sizes:
            for repeat in range(repeats):
                record = measure(rows, W, threads, reference, len(records) % 2 == 1)
                record.update(threads=threads or os.cpu_count(), repeat=repeat)
                records.append(record)
                print_measurement(record)
    # measured last: a child inherits the parent's peak RSS through fork + exec
    bandwidth = memory_bandwidth()
    frame = pd.DataFrame(records)
    frame["bandwidth_gbs"] = bandwidth / 1e9
    frame["bandwidth_s"] = frame["pass_bytes"] / bandwidth
    medians = frame.groupby(["W", "rows_drawn"], as_index=False).median(numeric_only=True)
    print_medians(medians, bandwidth, repeats)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "scaling.csv", index=False)
    plot(medians, out)
    print(f"wrote {out / 'scaling.csv'} and {out / 'scaling.png'}; load average "
          f"{os.getloadavg()[0]:.2f}")


def print_measurement(record: dict) -> None:
    research = "" if "research_ratio" not in record else (
        f"  released code {record['research_per_iter_s']:.4f} s "
        f"({record['research_ratio']:.1f}x; CPU time {record['research_cpu_ratio']:.1f}x;"
        f" load {record['research_load']:.1f})")
    print(f"support {record['support']:>7,}  W {record['W']:>5}  tables {record['tables']:>5}  "
          f"build {record['build_s']:6.2f} s  per iteration {record['per_iter_s']:.4f} s"
          f" ({record['passes']} passes of {record['pass_s']:.4f} s; load "
          f"{record['load']:.1f})  peak RSS {record['peak_rss_mib']:7.1f} MiB  "
          f"max error {record['max_error']:.4f}{research}", flush=True)


def print_medians(medians, bandwidth: float, repeats: int) -> None:
    """Each point's median time per iteration (and ratio to the released code), and the time one
    full pass would take if it were limited by reading memory alone."""
    print(f"median of {repeats} measurement(s) per point; memory bandwidth (numpy sum over "
          f"1 GiB): {bandwidth / 1e9:.1f} GB/s")
    for row in medians.itertuples():
        research = "" if "research_ratio" not in medians else (
            f"  released code {row.research_per_iter_s:.4f} s ({row.research_ratio:.1f}x)")
        print(f"  support {row.support:>9,.0f}  W {row.W:>5}: {row.per_iter_s:.4f} s per "
              f"iteration{research}; bandwidth limit of a pass {row.bandwidth_s:.3g} s "
              f"(measured {row.per_iter_s / row.bandwidth_s:.1f}x that per iteration)")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=positive_ints, default="1000,4000,16000,64000,130000")
    parser.add_argument("--workloads", type=positive_ints, default="256,1024,4096")
    parser.add_argument("--threads", type=positive_int, default=None,
                        help="numba threads per configuration (default: all cores)")
    parser.add_argument("--repeats", type=positive_int, default=1,
                        help="measurements per configuration (the summary takes medians)")
    parser.add_argument("--out", type=folder_arg, default="results/bench")
    parser.add_argument("--reference-dir", default=None,
                        help="a checkout of the paper's released code (terranceliu/pmw-pub): "
                             "time it beside each configuration on the same inputs")
    parser.add_argument("--reference-python", default=None,
                        help="the interpreter of an environment with numpy<2 and pandas for "
                             "the released code (required with --reference-dir)")
    args = parser.parse_args(argv)
    if (args.reference_dir is None) != (args.reference_python is None):
        parser.error("--reference-dir and --reference-python go together")
    reference = None if args.reference_dir is None else (args.reference_python,
                                                         args.reference_dir)
    run_or_fail(run_benchmark, args.sizes, args.workloads, args.threads, args.out, reference,
                args.repeats)


if __name__ == "__main__":  # the child process of run_child: ROWS,W [INPUTS] -> one JSON line
    print(json.dumps(one_configuration(*positive_ints(sys.argv[1]), *sys.argv[2:3])))
