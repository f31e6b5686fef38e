#!/usr/bin/env python
"""Regenerate one artefact of Liu et al. 2021 (PMW^Pub) with one command: sweep, collect, plot.

    python scripts/reproduce.py fig2            # ADULT, PMW^Pub(Δ) vs DualQuery (Fig. 2)
    python scripts/reproduce.py fig1_nist       # Fig. 1 on the offline NIST ACS excerpts
    python scripts/reproduce.py fig3_nist       # Fig. 3 (public fraction) on the NIST excerpts
    python scripts/reproduce.py nist_shift      # NIST: private national-2019 / TX-2019, publics
                                                #   from other populations (MA, TX, 2018)
    python scripts/reproduce.py table1          # Table 1, per-iteration run time
    python scripts/reproduce.py fig1_acs        # Fig. 1 on ACS via folktables (needs internet)
    python scripts/reproduce.py fig3_fraction   # Fig. 3 on ACS via folktables (needs internet)
    options: --quick (1 run, 2 ε, first value of the other axes)
             --tuning paper|best_average|validation (paper, §5.4: PMW^Pub on validation data
             where it was run, the baselines by their best average)
             --jobs N --set key=value (replace an axis in every block) --data-root DIR
             --results-dir DIR (records) --out DIR (CSV, PNG, summary) --no-run (collect + plot)

An artefact is a list of *blocks*: an experiment preset (``conf/experiment``) plus overrides,
i.e. exactly ``python run.py -m experiment=<preset> <overrides>``, tagged with the figure row it
feeds and its role (test or validation). All blocks run as one sweep (:mod:`experiments.sweep`:
shared problems, resumable); the records are collected (``scripts/collect.py``), the
hyper-parameters selected (:mod:`experiments.tuning`) and the figure drawn
(``scripts/plot_figures.py``). The wall time is printed and written to ``summary.md``.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

from artefact_summary import build, selected_table, summary_text  # noqa: E402
from collect import collect  # noqa: E402
from plot_figures import line_labels, plot_artefact, runtime_table  # noqa: E402

from experiments.cli import (EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, UserError,  # noqa: E402
                             interrupted, write_failure)
from experiments.store import config_hash  # noqa: E402
from experiments.sweep import expand, compose_jobs, run_sweep  # noqa: E402
from experiments.tuning import METHODS  # noqa: E402

EPS = "0.1,0.15,0.2,0.25,0.5,1.0"


@dataclass(frozen=True)
class Block:
    """``run.py -m experiment=<preset> <overrides>``, feeding figure row ``row`` as ``role``."""

    preset: str
    overrides: tuple[str, ...] = ()
    row: str = ""
    role: str = "test"


@dataclass(frozen=True)
class Artefact:
    """A figure or table: its blocks, output folder, default tuning and kind (errors | runtime)."""

    name: str
    out: str
    blocks: tuple[Block, ...]
    tuning: str = "paper"
    kind: str = "errors"
    title: str = ""
    needs_internet: bool = False
    notes: Callable[[list[dict]], list[str]] | None = None   # extra summary.md lines
    quick_keep: tuple[str, ...] = field(default=("public", "public.delta", "public.fraction",
                                                 "algo"))


def _baselines(preset: str, row: str, role: str, extra: tuple[str, ...], public: str,
               mwem: bool, zcdp: bool = False) -> list[Block]:
    """DualQuery (η, s grid; with ``zcdp`` also under zCDP accounting), optionally MWEM, on
    ``row``; their public is irrelevant but fixed to ``public`` so they share the problem of
    that PMW^Pub line."""
    fixed = (*extra, f"public={public}", "public.fraction=1.0")
    blocks = [Block(preset, (*fixed, "algo=dualquery", "T=1", *DQ_GRID), row, role)]
    if zcdp:
        blocks.append(Block(preset, (*fixed, "algo=dualquery", "T=1", *DQ_GRID,
                                     "algo.accounting=zcdp"), row, role))
    if mwem:
        blocks.append(Block(preset, (*fixed, "algo=mwem"), row, role))
    return blocks


def _references(preset: str, row: str, extra: tuple[str, ...] = ()) -> list[Block]:
    """The ε-free lines of every public of the row: the public data alone (public only) and its
    best mixture error (exact LP and the paper's MW estimate, non-private)."""
    fixed = (*extra, "eps=1.0", "T=1")
    return [Block(preset, (*fixed, "algo=public_only"), row),
            Block(preset, (*fixed, *MIXTURE), row)]


#: the best mixture blocks: exact LP within 60 s (else the MW estimate stands, labelled) on
#: repetition 0 only, to bound the sweep's time.
MIXTURE = ("algo=best_mixture", "algo.method=both", "algo.lp_time_limit=60", "runs=1")


#: DualQuery's (η, s) grid; the optimum sat at η = 4, s = 25 (largest η, smallest s) of
#: {2, 4} × {25, 50}, so the grid extends both ways.
DQ_GRID = ("algo.eta=2.0,4.0,8.0", "algo.samples=10,25")


def paper_scale_divergences(configs: list[dict]) -> list[str]:
    """The exact D_2 and D_∞ (and KL) of each synthetic public model from the private one."""
    from pubpriv_core.data.synthetic import make_pair, renyi_divergence

    lines = ["", "Exact divergences of each public model Q (shift λ) from the private model P "
             "(chain models, computed exactly; nats):", "",
             "| shift λ | D_1 (KL) | D_2 | D_∞ |", "|---|---|---|---|"]
    shifts = sorted({c["public"]["shift"] for c in configs if c["algo"]["name"] == "pmwpub"})
    base = next(c["dataset"] for c in configs)
    for shift in shifts:
        pair = make_pair(base["preset"], shift, base["seed"], base["concentration"])
        kl, d2, dinf = (renyi_divergence(pair.private, pair.public, a) for a in (1, 2, np.inf))
        lines.append(f"| {shift:g} | {kl:.4f} | {d2:.4f} | {dinf:.4f} |")
    return lines


def _row(preset: str, row: str, extra: tuple[str, ...] = (), *, public0: str, mwem: bool,
         role: str = "test", publics: str | None = None) -> list[Block]:
    """PMW^Pub on ``row``; on test rows also the references and the baselines (the paper tunes
    the baselines by their best average, so they need no validation runs)."""
    extra = (*extra, f"public={publics}") if publics else extra
    if role == "validation":
        return [Block(preset, extra, row, role)]
    return [Block(preset, extra, row, role), *_references(preset, row, extra),
            *_baselines(preset, row, role, tuple(e for e in extra if not e.startswith("public=")),
                        public0, mwem)]


def _fraction_rows(preset: str, publics: dict[str, str]) -> list[Block]:
    """Fig. 3: one row per public source (the preset sweeps its fraction p), each with its
    references and the (shared) baselines, DualQuery under both accountings."""
    blocks = []
    for row, public in publics.items():
        blocks += [Block(preset, (f"public={public}",), row),
                   *_references(preset, row, (f"public={public}",)),
                   *_baselines(preset, row, "test", (), next(iter(publics.values())), False,
                               zcdp=True)]
    return blocks


_PAPER_SCALE_ROW = "full-ACS shape, synthetic"
_NIST_FULL = ("dataset.reduced=false", "workload.k=3")
_NIST_TX = ("dataset.region=tx",)
_SHIFT_EPS = ("eps=0.1,0.25,0.5,1.0",)
_SHIFT_NATIONAL = (*_NIST_FULL, "dataset.region=national", *_SHIFT_EPS)
_SHIFT_TX = (*_NIST_FULL, *_NIST_TX, *_SHIFT_EPS)
_ACS_FULL = ("dataset.reduced=false", "workload.k=3", "workload.size=4096")
_ACS_GA = ("dataset.state=GA",)
_ACS_GA_PUBLICS = "{year:2014},{state:NC},{state:CA},{state:TX},{state:NY},{state:FL},{state:IL}"
_ACS_LARGE = ("CA", "TX", "NY", "FL", "IL")
_ACS_VAL_PA = ",".join(f"{{state:{s},year:2018}}" for s in ("OH", *_ACS_LARGE))
_ACS_VAL_GA = ",".join(f"{{state:{s},year:2018}}" for s in ("NC", *_ACS_LARGE))

ARTEFACTS = {a.name: a for a in [
    Artefact("fig2", "results/fig2_adult_bias", (
        Block("fig2_adult_bias", (), "ADULT"),
        Block("fig2_adult_bias", ("algo=public_only", "eps=1.0", "T=1"), "ADULT"),
        Block("fig2_adult_bias_dualquery", (), "ADULT"),
        Block("fig2_adult_bias_mixture", MIXTURE[2:], "ADULT")),
        title="ADULT, 3-way marginals, W = 256: PMW^Pub(Δ) vs DualQuery"),
    Artefact("fig1_nist", "results/fig1_nist", (
        *_row("fig1_nist", "reduced, private MA-2019", public0="{year:2018}", mwem=True),
        *_row("fig1_nist", "full, private MA-2019", _NIST_FULL, public0="{year:2018}",
              mwem=False),
        *_row("fig1_nist", "full, private TX-2019", (*_NIST_FULL, *_NIST_TX),
              public0="{year:2018}", mwem=False,
              publics="{year:2018},{region:national},{region:ma}"),
        # validation: the 2018 file of the same region treated as private, same public files
        *_row("fig1_nist", "reduced, private MA-2019", ("dataset.year=2018",),
              public0="{region:national,year:2019}", mwem=True, role="validation",
              publics="{region:national,year:2019},{region:tx,year:2019}"),
        *_row("fig1_nist", "full, private MA-2019", (*_NIST_FULL, "dataset.year=2018"),
              public0="{region:national,year:2019}", mwem=False, role="validation",
              publics="{region:national,year:2019},{region:tx,year:2019}"),
        *_row("fig1_nist", "full, private TX-2019", (*_NIST_FULL, *_NIST_TX,
                                                     "dataset.year=2018"),
              public0="{region:national,year:2019}", mwem=False, role="validation",
              publics="{region:national,year:2019},{region:ma,year:2019}")),
        title="NIST ACS excerpts: max error vs ε (Fig. 1 layout)"),
    Artefact("fig3_nist", "results/fig3_nist", (
        *_fraction_rows("fig3_nist", {"public MA-2018": "{year:2018}",
                                      "public NATIONAL-2019": "{region:national}"}),),
        title="NIST MA-2019, full domain, 3-way: public fraction p"),
    Artefact("nist_shift", "results/nist_shift", (
        *_row("fig1_nist", "full, private NATIONAL-2019", _SHIFT_NATIONAL, public0="{year:2018}",
              mwem=False, publics="{region:ma},{region:tx},{year:2018}"),
        *_row("fig1_nist", "full, private TX-2019", _SHIFT_TX, public0="{year:2018}",
              mwem=False, publics="{region:ma}")),
        title="NIST ACS excerpts, full domain, 3-way: public data from another population"),
    Artefact("table1", "results/table1", (
        Block("table1_runtime", (), "reduced"),
        Block("table1_runtime", ("algo=pmwpub", "dataset.reduced=false", "workload.k=3"),
              "full")),
        kind="runtime", title="Per-iteration run time (one process)"),
    Artefact("fig1_paper_scale", "results/fig1_paper_scale", (
        Block("fig1_paper_scale", (), _PAPER_SCALE_ROW),
        Block("fig1_paper_scale", ("algo=public_only", "eps=1.0", "T=1"), _PAPER_SCALE_ROW),
        Block("fig1_paper_scale", ("algo=best_mixture", "algo.method=mw", "eps=1.0", "T=1",
                                   "runs=1"), _PAPER_SCALE_ROW),
        *_baselines("fig1_paper_scale", _PAPER_SCALE_ROW, "test", (),
                    "{role:public,shift:0.0}", False)),
        notes=paper_scale_divergences, quick_keep=("public.shift", "algo"),
        title="Full-ACS shape (synthetic, 67 attributes), n = 130,000, 3-way, W = 4,096"),
    Artefact("fig1_acs", "results/fig1_acs", (
        *_row("fig1_acs", "reduced, private PA-18", public0="{year:2014}", mwem=True),
        *_row("fig1_acs", "full, private PA-18", _ACS_FULL, public0="{year:2014}", mwem=False),
        *_row("fig1_acs", "full, private GA-18", (*_ACS_FULL, *_ACS_GA), public0="{year:2014}",
              mwem=False, publics=_ACS_GA_PUBLICS),
        *_row("fig1_acs", "reduced, private PA-18", ("dataset.year=2014",),
              public0="{state:OH,year:2018}", mwem=True, role="validation",
              publics=_ACS_VAL_PA),
        *_row("fig1_acs", "full, private PA-18", (*_ACS_FULL, "dataset.year=2014"),
              public0="{state:OH,year:2018}", mwem=False, role="validation",
              publics=_ACS_VAL_PA),
        *_row("fig1_acs", "full, private GA-18", (*_ACS_FULL, *_ACS_GA, "dataset.year=2014"),
              public0="{state:NC,year:2018}", mwem=False, role="validation",
              publics=_ACS_VAL_GA)),
        needs_internet=True,
        title="ACS (folktables): max error vs ε (Fig. 1)"),
    Artefact("fig3_fraction", "results/fig3_fraction", (
        *_fraction_rows("fig3_fraction", {"public PA-14": "{year:2014}",
                                          "public OH-18": "{state:OH}"}),),
        needs_internet=True, title="ACS PA-18, full domain, 3-way, W = 4096: public fraction"),
]}

#: the preset names, as synonyms of the artefact names
ALIASES = {"fig2_adult_bias": "fig2", "table1_runtime": "table1"}


def quick_overrides(block: Block, keep: tuple[str, ...]) -> list[str]:
    """``--quick``: one run, ε at the grid's ends, the first value of every other swept axis
    except the ``keep`` axes (the public sources, which are what a figure compares)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from experiments.sweep import preset_grid

    grid = preset_grid(block.preset)
    grid.update(o.split("=", 1) for o in block.overrides)
    parser, out = OverridesParser.create(), ["runs=1"]
    for key, value in grid.items():
        parsed = parser.parse_override(f"{key}={value}")
        if key in keep or not parsed.is_sweep_override():
            continue
        values = list(parsed.sweep_string_iterator())
        out.append(f"{key}={','.join(values[::len(values) - 1] if key == 'eps' else values[:1])}")
    return out


@dataclass
class Plan:
    """The distinct configs of an artefact and the (row, role) each feeds."""

    configs: list[dict]
    tags: pd.DataFrame  # config_hash, row, role (a config may feed several rows)


def plan(artefact: Artefact, settings: list[str], quick: bool) -> Plan:
    """Compose every block of ``artefact`` with the extra ``settings`` (``--set``, paths)."""
    jobs, owners = [], []
    for block in artefact.blocks:
        extra = quick_overrides(block, artefact.quick_keep) if quick else []
        block_jobs = expand(block.preset, [*block.overrides, *extra, *settings])
        jobs += block_jobs
        owners += [block] * len(block_jobs)
    configs: dict[str, dict] = {}
    tags = []
    for cfg, block in zip(compose_jobs(jobs), owners):  # one Hydra compose per group choice
        chash = config_hash(cfg)
        configs.setdefault(chash, cfg)
        tags.append((chash, block.row, block.role))
    frame = pd.DataFrame(tags, columns=["config_hash", "row", "role"]).drop_duplicates()
    return Plan(list(configs.values()), frame)


def collect_plan(p: Plan) -> pd.DataFrame:
    """The records of the plan's configs (runs < ``runs``), tagged with row and role."""
    dirs = sorted({cfg["results_dir"] for cfg in p.configs})
    table = pd.concat([collect(d) for d in dirs], ignore_index=True)
    runs = {config_hash(cfg): cfg["runs"] for cfg in p.configs}
    table = table[table["config_hash"].map(runs).gt(table["run"])]
    return line_labels(table.merge(p.tags, on="config_hash", how="inner"))


def machine() -> str:
    """CPU model, core count and the current load (``/proc``), for the timing notes."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [ln.split(":", 1)[1].strip() for ln in cpuinfo.read_text().splitlines()
                 if ln.startswith("model name")]
        model = names[0] if names else model
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} cores, load average (1/5/15 min) {load}"


def domain_sizes(artefact: Artefact, configs: list[dict]) -> dict[str, int]:
    """|X| of the private dataset of each row (Table 1's "MWEM infeasible" column)."""
    from experiments.problems import data_context, load

    sizes = {}
    for block in artefact.blocks:
        cfg = compose_jobs(expand(block.preset, [*block.overrides, "runs=1"]))[0]
        with data_context(next(c["data_root"] for c in configs)):
            sizes[block.row] = int(load(cfg["dataset"]).domain.size())
    return sizes


def write_outputs(artefact: Artefact, table: pd.DataFrame, tuning: str, out: Path,
                  notes: list[str], plan_configs: list[dict]) -> list[Path]:
    """runs.csv, selected.csv and the figure (or table1.md), and summary.md, under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "runs.csv"]
    table.to_csv(written[0], index=False)
    if artefact.kind == "runtime":
        text = runtime_table(table, machine(), domain_sizes(artefact, plan_configs))
        (out / "table1.md").write_text(text)
        written.append(out / "table1.md")
        summary = text
    else:
        figure = build(table, tuning)
        selected_table(figure).to_csv(out / "selected.csv", index=False)
        rows = list(dict.fromkeys(b.row for b in artefact.blocks))
        plot_artefact(figure, f"{artefact.title} — tuning: {tuning}", rows).savefig(
            out / "figure.png", dpi=130)
        written += [out / "selected.csv", out / "figure.png"]
        summary = summary_text(figure)
    if artefact.notes:
        summary = "\n".join([summary, *artefact.notes(plan_configs)])
    (out / "summary.md").write_text("\n".join([f"# {artefact.title}", "", *notes, "",
                                               summary, ""]))
    return written + [out / "summary.md"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artefact", choices=sorted([*ARTEFACTS, *ALIASES]))
    parser.add_argument("--quick", action="store_true", help="tiny grid (pipeline check)")
    parser.add_argument("--tuning", choices=METHODS, help="T selection (default: artefact's)")
    parser.add_argument("--jobs", type=int, default=2, help="joblib workers (table1: 1)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override applied to every block (replaces that axis)")
    parser.add_argument("--data-root", help="data root (default $PUBPRIV_DATA / cache)")
    parser.add_argument("--results-dir", help="records folder (default: the presets')")
    parser.add_argument("--out", help="output folder (default: the artefact's under results/)")
    parser.add_argument("--no-run", action="store_true", help="only collect, select and plot")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    tick = time.perf_counter()
    artefact = ARTEFACTS[ALIASES.get(args.artefact, args.artefact)]
    tuning = args.tuning or artefact.tuning
    settings = [*args.set]
    settings += [f"data_root={args.data_root}"] if args.data_root else []
    settings += [f"results_dir={args.results_dir}"] if args.results_dir else []
    out = Path(args.out or (f"runs/quick/{artefact.name}" if args.quick else artefact.out))
    jobs = 1 if artefact.kind == "runtime" else args.jobs
    folders: list[str] = []
    try:
        work = plan(artefact, settings, args.quick)
        folders = sorted({cfg["results_dir"] for cfg in work.configs})
        report = None if args.no_run else run_sweep(work.configs, n_jobs=jobs)
        table = collect_plan(work)
        notes = run_notes(args, artefact, tuning, report, jobs, time.perf_counter() - tick)
        if report is None:  # keep the provenance of the sweep that made the records
            notes = previous_notes(out) + notes
        written = write_outputs(artefact, table, tuning, out, notes, work.configs)
    except (UserError, ValueError) as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:                # disk full, read-only, permissions: one line
        print(f"error: {write_failure(err, folders)}", file=sys.stderr)
        return EXIT_FAULT
    except KeyboardInterrupt:
        print(interrupted(folders), file=sys.stderr)
        return EXIT_INTERRUPTED
    for path in written:
        print(f"wrote {path}")
    print(f"{artefact.name}: wall time {time.perf_counter() - tick:.1f} s ({machine()})")
    return 0


def previous_notes(out: Path) -> list[str]:
    """The provenance lines of an earlier summary.md (kept when only re-plotting)."""
    path = out / "summary.md"
    if not path.is_file():
        return []
    lines = path.read_text().split("\n\n")[1].splitlines()
    return [line for line in lines if line.startswith("- ") and not line.startswith("- redrawn")]


def run_notes(args, artefact: Artefact, tuning: str, report, jobs: int, wall: float) -> list[str]:
    """The provenance lines of summary.md: command, tuning, wall time, machine, commit."""
    command = " ".join(["python scripts/reproduce.py", *args.argv])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    if report is None:
        return [f"- redrawn from the stored records: `{command}` (commit {commit})"]
    done = (f"{report.tasks} runs of {report.configs} configurations, {report.skipped} already "
            f"stored, {report.tasks - report.skipped} run in {report.wall_s:.1f} s")
    tuned = [] if artefact.kind == "runtime" else [
        f"- hyper-parameters (T; DualQuery η, s): {tuning}"]
    return [f"- command: `{command}`", *tuned,
            f"- sweep: {done}; {jobs} worker(s); wall time up to collection {wall:.1f} s",
            f"- machine: {machine()}; commit {commit}"]


if __name__ == "__main__":
    sys.exit(main())
