"""Regenerate one artefact of the catalogue (:mod:`experiments.release.artefacts.catalogue`): all its blocks
run as one sweep (:mod:`experiments.release.running.sweep`: shared problems, resumable); the records are
collected (:mod:`experiments.release.running.collect`), the hyper-parameters selected
(:mod:`experiments.release.stats.tuning`) and the figure drawn (:mod:`experiments.release.figures.paper`). The
wall time is printed and written to ``summary.md`` with the command, machine and commit.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from experiments.console import (EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, UserError,
                                 quiet_workers, write_failure)
from experiments.outputs import readable_folder, writable_folder
from experiments.release.artefacts.catalogue import ALIASES, ARTEFACTS, Artefact, Block
from experiments.release.configure.cli import interrupted
from experiments.release.running.collect import collect
from experiments.release.figures.paper import line_labels, plot_artefact, plt, runtime_table, tuning_note
from experiments.release.running.machine import cpu_model
from experiments.release.artefacts.slurm import SlurmJobsFailed
from pubpriv_core.job import config_hash
from experiments.release.stats.summary import build, selected_table, summary_text
from experiments.release.running.sweep import SweepReport, compose_jobs, expand, run_sweep
from pubpriv_core.data.paths import DataUnavailableError

REPO = Path(__file__).resolve().parents[3]


def quick_overrides(block: Block, keep: tuple[str, ...]) -> list[str]:
    """``--quick``: one run, ε (or eps_equiv) at the grid's ends, the first value of every other
    swept axis
    except the ``keep`` axes (the public sources, which are what a figure compares)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from experiments.release.running.sweep import preset_grid

    grid = preset_grid(block.preset)
    grid.update(o.split("=", 1) for o in block.overrides)
    parser, out = OverridesParser.create(), ["runs=1"]
    for key, value in grid.items():
        parsed = parser.parse_override(f"{key}={value}")
        if key in keep or not parsed.is_sweep_override():
            continue
        values = list(parsed.sweep_string_iterator())
        ends = key in ("eps", "eps_equiv")
        out.append(f"{key}={','.join(values[::len(values) - 1] if ends else values[:1])}")
    return out


@dataclass
class Plan:
    """The distinct configs of an artefact and the (row, role) each feeds; ``tuned``: the
    (config, row) of the tuned blocks, run at their validated T by a second stage."""

    configs: list[dict]
    tags: pd.DataFrame  # config_hash, row, role (a config may feed several rows)
    tuned: list[tuple[dict, str]] = field(default_factory=list)
    every_algo: list[str] = field(default_factory=list)   # the artefact's, before ``--algos``

    def add(self, configs: list[dict], tags: list[tuple[str, str, str]]) -> list[dict]:
        """Add the configs not planned yet (and every new tag); returns the new configs."""
        known = {config_hash(c) for c in self.configs}
        new = [c for c in configs if config_hash(c) not in known]
        self.configs += list({config_hash(c): c for c in new}.values())
        frame = pd.DataFrame(tags, columns=["config_hash", "row", "role"])
        self.tags = pd.concat([self.tags, frame], ignore_index=True).drop_duplicates()
        return new


def plan(artefact: Artefact, settings: list[str], quick: bool,
         algos: tuple[str, ...] = ()) -> Plan:
    """Compose every block of ``artefact`` with the extra ``settings`` (``--set``, paths);
    ``algos`` (when given) keeps only the configs of these algorithms (``--algos``)."""
    jobs, owners = [], []
    for block in artefact.blocks:
        extra = quick_overrides(block, artefact.quick_keep) if quick else []
        block_jobs = expand(block.preset, [*block.overrides, *extra, *settings])
        jobs += block_jobs
        owners += [block] * len(block_jobs)
    configs: dict[str, dict] = {}
    tags, tuned, every = [], [], set()
    for cfg, block in zip(compose_jobs(jobs), owners):  # one Hydra compose per group choice
        every.add(cfg["algo"]["name"])
        if algos and cfg["algo"]["name"] not in algos:
            continue
        if block.tuned:
            tuned.append((cfg, block.row))
            continue
        chash = config_hash(cfg)
        configs.setdefault(chash, cfg)
        tags.append((chash, block.row, block.role))
    frame = pd.DataFrame(tags, columns=["config_hash", "row", "role"]).drop_duplicates()
    return Plan(list(configs.values()), frame, tuned, sorted(every))


def run_stages(work: Plan, no_run: bool, jobs: int, launcher=None,
               pin: bool = False) -> SweepReport | None:
    """Sweep the plan (``jobs`` joblib workers, each on its own cores with ``pin``, or the
    Slurm ``launcher``), then each second
    stage (:mod:`experiments.release.artefacts.stages`) the records call for, until none is left; with
    ``no_run`` only the stages already stored are planned."""
    from experiments.release.artefacts.stages import T_EXTENSION, next_stage

    sweep = partial(run_sweep, n_jobs=jobs, launcher=launcher, pin=pin)
    reports = [] if no_run else [sweep(work.configs)]
    for _ in range(len(T_EXTENSION) + 2):
        try:
            table = collect_plan(work)
        except ValueError:          # nothing stored yet (--no-run before any sweep)
            break
        new = work.add(*next_stage(work, work.tuned, table))
        if not new:
            break
        if not no_run:
            reports.append(sweep(new))
    if not reports:
        return None
    return SweepReport(*(sum(getattr(r, k) for r in reports)
                         for k in ("configs", "tasks", "skipped", "groups", "wall_s")))


def collect_plan(p: Plan) -> pd.DataFrame:
    """The records of the plan's configs (runs < ``runs``), tagged with row and role; records
    whose errors are NaN or infinite are refused (a figure of them would be silently wrong)."""
    dirs = sorted({cfg["results_dir"] for cfg in p.configs})
    for folder in dirs:
        if Path(folder).expanduser().exists():   # a missing one has no records (said below)
            readable_folder(folder, "results_dir")
    non_finite: list[str] = []
    table = pd.concat([collect(d, non_finite=non_finite) for d in dirs], ignore_index=True)
    runs = {config_hash(cfg): cfg["runs"] for cfg in p.configs}
    table = table[table["config_hash"].map(runs).gt(table["run"])]
    used = [line for line in non_finite if any(f"/{h}/" in line for h in table["config_hash"])]
    if used:
        raise UserError(f"{len(used)} record(s) of this artefact have non-finite errors, e.g. "
                        f"{used[0]}; delete them and re-run the same command to recompute them")
    return line_labels(table.merge(p.tags, on="config_hash", how="inner"))


def machine() -> str:
    """CPU model, core count and the current load (``/proc``), for the timing notes."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{cpu_model()}, {os.cpu_count()} cores, load average (1/5/15 min) {load}"


def domain_sizes(artefact: Artefact, configs: list[dict]) -> dict[str, int]:
    """|X| of the private dataset of each row (Table 1's "MWEM infeasible" column)."""
    from pubpriv_core.problems import data_context, load

    sizes = {}
    for block in artefact.blocks:
        cfg = compose_jobs(expand(block.preset, [*block.overrides, "runs=1"]))[0]
        with data_context(next(c["data_root"] for c in configs)):
            sizes[block.row] = int(load(cfg["dataset"]).domain.size())
    return sizes


def write_outputs(artefact: Artefact, table: pd.DataFrame, tuning: str, out: Path,
                  notes: list[str], plan_configs: list[dict],
                  measured: str | None = None) -> list[Path]:
    """runs.csv, selected.csv and the figure (or table1.md), and summary.md, under ``out``: all
    of them or none (they are made in a staging folder and moved in once all exist).
    ``measured``: Table 1's machine line when its times were taken elsewhere (a redraw)."""
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".partial-", dir=out))
    try:
        made = _make_outputs(artefact, table, tuning, staging, notes, plan_configs, measured)
        for path in made:
            os.replace(path, out / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out / path.name for path in made]


def _make_outputs(artefact: Artefact, table: pd.DataFrame, tuning: str, out: Path,
                  notes: list[str], plan_configs: list[dict],
                  measured: str | None) -> list[Path]:
    written = [out / "runs.csv"]
    table.to_csv(written[0], index=False)
    if artefact.kind == "runtime":
        text = runtime_table(table, measured or machine(), domain_sizes(artefact, plan_configs))
        (out / "table1.md").write_text(text)
        written.append(out / "table1.md")
        summary = text
    else:
        figure = build(table, tuning)
        selected_table(figure).to_csv(out / "selected.csv", index=False)
        rows = list(dict.fromkeys(b.row for b in artefact.blocks))
        drawing = plot_artefact(figure, f"{artefact.title} — {tuning_note(figure, tuning)}", rows)
        drawing.savefig(out / "figure.png", dpi=130)
        plt.close(drawing)
        written += [out / "selected.csv", out / "figure.png"]
        summary = summary_text(figure, artefact.family)
    if artefact.notes:
        summary = "\n".join([summary, *artefact.notes(table, plan_configs)])
    (out / "summary.md").write_text("\n".join([f"# {artefact.title}", "", *notes, "",
                                               summary, ""]))
    return written + [out / "summary.md"]


def output_folder(artefact: Artefact, *, quick: bool, into: str, out: str | None) -> Path:
    """Where the CSVs, figure and summary go: ``--out``, else ``runs/quick/<artefact>`` for
    ``--quick``, else ``runs/artefacts/<folder>``; only ``into="results"`` writes the committed
    ``results/<folder>`` (the records always go to the presets' ``results_dir``)."""
    if out:
        return Path(out)
    if quick:
        return Path("runs/quick") / artefact.name
    return REPO / artefact.out if into == "results" else Path("runs/artefacts") / Path(
        artefact.out).name


def committed_table(artefact: Artefact) -> tuple[pd.DataFrame, Path] | None:
    """The committed ``results/<folder>/runs.csv`` (the collected runs of the last full
    regeneration), or None when the repository has none for ``artefact``."""
    path = REPO / artefact.out / "runs.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path)
    labels = [c for c in ("row", "role", "source", "line") if c in table.columns]
    return table.assign(**{c: table[c].fillna("").astype(str) for c in labels}), path


def reproduce(name: str, *, quick: bool = False, tuning: str | None = None, jobs: int = 2,
              settings: list[str] | None = None, data_root: str | None = None,
              results_dir: str | None = None, out: str | None = None, no_run: bool = False,
              into: str = "runs", command: list[str] | None = None,
              algos: tuple[str, ...] = (), with_committed: bool = False, launcher=None,
              pin: bool = False) -> int:
    """Sweep, collect, select and draw artefact ``name`` (or an alias); returns the exit status.

    ``settings`` are overrides applied to every block; ``command`` is the command line recorded
    in ``summary.md``; ``algos`` keeps only the blocks of these algorithms (the summary names
    the lines left out; ``with_committed`` draws those from the committed runs.csv). With
    ``no_run`` nothing is computed: the stored records are collected, or, when there are none,
    the committed ``results/<folder>/runs.csv`` is redrawn. Outputs go under
    ``runs/`` unless ``into="results"`` (or ``out``) says otherwise. A
    :class:`~experiments.release.artefacts.slurm.SlurmLauncher` runs the sweeps as Slurm arrays instead
    of ``jobs`` joblib workers (a run-time artefact one task at a time); ``pin`` holds each
    worker to its own cores (:mod:`experiments.release.running.worker_cores`). Bad input is one
    ``error:`` line (status 2), a failed write or failed Slurm tasks one line (status 1), Ctrl-C
    the records kept (status 130)."""
    tick = time.perf_counter()
    artefact = ARTEFACTS[ALIASES.get(name, name)]
    tuning = tuning or artefact.tuning
    settings = [*(settings or [])]
    settings += [f"data_root={data_root}"] if data_root else []
    settings += [f"results_dir={results_dir}"] if results_dir else []
    folder = output_folder(artefact, quick=quick, into=into, out=out)
    jobs = 1 if artefact.kind == "runtime" else jobs
    if launcher is not None and artefact.kind == "runtime":
        launcher = launcher.with_options("array_parallelism=1")
    workers = f"{jobs} worker(s)" if launcher is None else "Slurm array tasks (hydra/launcher=slurm)"
    folders: list[str] = []
    try:
        writable_folder(folder, "--out")
        committed = committed_lines(artefact, algos, quick) if with_committed else None
        work = plan(artefact, settings, quick, algos)
        left_out = lines_left_out(artefact, work, algos)
        folders = sorted({cfg["results_dir"] for cfg in work.configs})
        with quiet_workers():   # Ctrl-C: this process's one line, no worker tracebacks
            report = run_stages(work, no_run, jobs, launcher, pin)
        table, source = collect_or_committed(work, artefact, no_run)
        table = table[table["algo"].isin(algos)] if algos else table
        if committed is not None:
            table = pd.concat([committed[0], table], ignore_index=True)
            left_out += [f"- the lines of the other algorithms: {len(committed[0])} runs of the "
                         f"committed `{committed[1].relative_to(REPO)}` (`--with-committed`)"]
        notes = run_notes(command or [], artefact, tuning, report, workers,
                          time.perf_counter() - tick, source) + left_out
        if report is None or report.skipped:   # keep the provenance of the stored records
            earlier = previous_notes(source.parent if source else folder)
            notes = [line for line in earlier if line not in notes] + notes
        measured = None if report else measured_on((source.parent if source else folder)
                                                   / "table1.md")
        written = write_outputs(artefact, table, tuning, folder, notes, work.configs, measured)
    except (UserError, ValueError, DataUnavailableError) as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as err:                # disk full, read-only, permissions: one line
        print(f"error: {write_failure(err, folders)}", file=sys.stderr)
        return EXIT_FAULT
    except SlurmJobsFailed as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_FAULT
    except KeyboardInterrupt:
        print(interrupted(folders), file=sys.stderr)
        return EXIT_INTERRUPTED
    for path in written:
        print(f"wrote {path}")
    print(f"{artefact.name}: wall time {time.perf_counter() - tick:.1f} s ({machine()})")
    return 0


def lines_left_out(artefact: Artefact, work: Plan, algos: tuple[str, ...]) -> list[str]:
    """With ``--algos``: the provenance line naming the artefact's algorithms not run (an
    unknown name is an error naming the artefact's algorithms)."""
    if not algos:
        return []
    every = work.every_algo
    unknown = sorted(set(algos) - set(every))
    if unknown:
        raise UserError(f"--algos {','.join(unknown)}: not an algorithm of {artefact.name}; "
                        f"choose from {','.join(every)}")
    if not work.configs and not work.tuned:
        raise UserError(f"--algos {','.join(algos)} leaves no block of {artefact.name} to run")
    rest = [a for a in every if a not in algos]
    return [f"- lines: only the algorithms {', '.join(sorted(algos))} (`--algos`); "
            f"not run here: {', '.join(rest) or 'none'}"]


def committed_lines(artefact: Artefact, algos: tuple[str, ...],
                    quick: bool = False) -> tuple[pd.DataFrame, Path]:
    """(runs, path): the committed runs.csv's runs of the algorithms other than ``algos``, to be
    drawn beside the new records of ``algos`` (a line added to an artefact without re-running
    the others; the pairs of runs are matched by their repetition, as within one sweep). Not
    with ``quick``: its one-run grid would be drawn beside the full committed one."""
    if quick:
        raise UserError("--with-committed draws beside the committed full grid; drop --quick")
    if not algos:
        raise UserError("--with-committed adds lines to the committed runs: name them with "
                        "--algos, e.g. --algos gem,gem_pub --with-committed")
    found = committed_table(artefact)
    if found is None:
        raise UserError(f"--with-committed: no committed {artefact.out}/runs.csv; run "
                        f"`python scripts/reproduce.py {artefact.name}` without it")
    table, path = found
    return table[~table["algo"].isin(algos)], path


def collect_or_committed(work: Plan, artefact: Artefact,
                         no_run: bool) -> tuple[pd.DataFrame, Path | None]:
    """(table, committed CSV it came from or None): the plan's records; with ``no_run`` and no
    records at all, the committed runs.csv."""
    try:
        return collect_plan(work), None
    except ValueError as err:
        if not (no_run and str(err).startswith("no records under")):
            raise
        committed = committed_table(artefact)
        if committed is None:
            where = ", ".join(sorted({cfg["results_dir"] for cfg in work.configs}))
            raise ValueError(f"no records under {where} and no committed {artefact.out}/runs.csv; "
                             f"run `python scripts/reproduce.py {artefact.name}` without --no-run "
                             "first") from None
        return committed


def measured_on(table1: Path) -> str:
    """The machine line of an earlier table1.md (a redraw keeps where the times were taken)."""
    lines = table1.read_text().splitlines() if table1.is_file() else []
    found = [line.removeprefix("Machine: ").rstrip(".") for line in lines
             if line.startswith("Machine: ")]
    return found[0] if found else "unknown (redrawn from runs.csv)"


def previous_notes(out: Path) -> list[str]:
    """The provenance lines of an earlier summary.md (kept when only re-plotting): the ``- ``
    lines of its second paragraph; none when it is missing or not in that form (a warning)."""
    path = out / "summary.md"
    if not path.is_file():
        return []
    parts = path.read_text(errors="replace").split("\n\n")
    lines = parts[1].splitlines() if len(parts) > 1 else []
    if not any(line.startswith("- ") for line in lines):
        print(f"warning: {path} has no provenance lines (edited or damaged); they are not "
              "carried over", file=sys.stderr)
    return [line for line in lines  # this command adds its own redraw and --algos lines
            if line.startswith("- ") and not line.startswith(("- redrawn", "- lines:"))]


def run_notes(argv: list[str], artefact: Artefact, tuning: str, report, workers: str,
              wall: float, source: Path | None = None) -> list[str]:
    """The provenance lines of summary.md: command, tuning, wall time, machine, commit."""
    command = " ".join(["python scripts/reproduce.py", *argv])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    if source is not None:
        return [f"- redrawn from the committed {source.relative_to(REPO)}: `{command}` "
                f"(commit {commit})"]
    if report is None:
        return [f"- redrawn from the stored records: `{command}` (commit {commit})"]
    done = (f"{report.tasks} runs of {report.configs} configurations, {report.skipped} already "
            f"stored, {report.tasks - report.skipped} run in {report.wall_s:.1f} s")
    tuned = [] if artefact.kind == "runtime" else [
        f"- hyper-parameters (T; DualQuery η, s): {tuning}"]
    return [f"- command: `{command}`", *tuned,
            f"- sweep: {done}; {workers}; wall time up to collection {wall:.1f} s",
            f"- machine: {machine()}; commit {commit}"]

