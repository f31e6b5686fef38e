"""Every (algorithm, dataset, public, ε) cell the artefacts run with a Private-PGM mechanism
(AIM, MST, JAM-PGM), timed per run, optionally against another checkout, and compared run by
run (same selections? same errors?).

Cells. *Artefact cells*: every config of an artefact of the catalogue whose blocks run AIM, MST
or JAM-PGM (``sota``, ``sota_adult``, ``fig1_nist``'s AIM), exactly as the sweep composes them.
*Matched-signal cells*: the ``sota`` line-up (AIM, AIM + public tree, MST, JAM-PGM on every public
source) on NIST MA-2019 reduced and full and on NIST national-2019 full (all 3-way marginals) at
the ε of a paper-equivalent signal, ε = ε_equiv·10⁵/n (:data:`EPS_EQUIV`): up to ≈ 13 on
MA-2019 (n = 7,634) and ≈ 3.7 on national-2019 (n = 27,253), where AIM picks larger cliques.

Runs. Each job (cell, repetition) runs in a worker process (:mod:`.pgm_worker`) per checkout,
exactly as the runner computes its record; with two checkouts the jobs alternate between them
(A B, then B A), so both see the same load; only the release is timed (wall and CPU seconds),
with the load average at its start. Workers run with one BLAS/OpenMP thread (a sweep runs one
job per core).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.release.configure.cli import compose_config

#: the Private-PGM mechanisms (the runs this module times and compares)
PGM_ALGORITHMS = ("aim", "mst", "jam_pgm")
#: paper-equivalent signals ε_equiv (ε = ε_equiv·N_REF/n) of the matched-signal cells
EPS_EQUIV = (0.1, 0.25, 1.0)
N_REF = 100_000
LINEUP = {"AIM": ("algo=aim",), "MST": ("algo=mst",), "JAM-PGM": ("algo=jam_pgm",),
          "AIM+public tree": ("algo=aim", "algo.public_init=true", "algo.public_cliques=tree")}
USES_PUBLIC = ("JAM-PGM", "AIM+public tree")
MATCHED = {  # dataset: (overrides, public sources)
    "NIST MA-2019 reduced": (("experiment=sota",),
                             ("{year:2018}", "{region:national}", "{region:tx}")),
    "NIST MA-2019 full": (("experiment=sota", "dataset.reduced=false"),
                          ("{year:2018}", "{region:national}", "{region:tx}")),
    "NIST national-2019 full": (("experiment=sota", "dataset.reduced=false",
                                 "dataset.region=national"),
                                ("{region:ma}", "{region:tx}", "{year:2018}")),
}
WORKER = Path(__file__).with_name("pgm_worker.py")


@dataclass(frozen=True)
class Cell:
    """One run configuration and where it comes from."""

    source: str        # the artefact, or "matched"
    config: dict

    @property
    def key(self) -> str:
        return cell_label(self.source, self.config)


def cell_label(source: str, cfg: dict) -> str:
    """``source | dataset | public | algorithm (options) | ε``."""
    data, public, algo = cfg["dataset"], cfg["public"], cfg["algo"]
    if data["name"] == "nist_acs":
        dataset = (f"NIST {data['region'].upper()}-{data['year']} "
                   f"{'reduced' if data['reduced'] else 'full'}")
    else:
        dataset = data["name"].upper()
    if public["kind"] == "dataset":
        where = {k: public[k] for k in ("region", "year") if public.get(k) is not None}
        pub = "public " + ",".join(f"{k}={v}" for k, v in sorted(where.items()))
    else:
        pub = f"public {public['kind']} Δ={public.get('delta', 0):+g}"
    name = algo["name"]
    if algo.get("public_init"):
        name += f"+public {algo.get('public_cliques', 'workload')}"
    return f"{source} | {dataset} | {pub} | {name} | ε={cfg['eps']:.4g}"


def uses_pgm(artefact) -> bool:
    """Whether a block of ``artefact`` runs a Private-PGM mechanism (its overrides, or its
    preset's default algorithm)."""
    conf = Path(__file__).resolve().parents[3] / "conf" / "experiment"
    for block in artefact.blocks:
        text = " ".join(block.overrides)
        preset = (conf / f"{block.preset}.yaml").read_text()
        if any(f"algo={a}" in text for a in PGM_ALGORITHMS):
            return True
        if "algo=" not in text and any(f"/algo: {a}" in preset for a in PGM_ALGORITHMS):
            return True
    return False


def artefact_cells(names: list[str] | None = None) -> list[Cell]:
    """The PGM configs of the named artefacts (default: every artefact that runs one)."""
    from experiments.release.artefacts.reproduce import plan

    names = names or [n for n, a in ARTEFACTS.items() if uses_pgm(a)]
    cells = []
    for name in names:
        configs = plan(ARTEFACTS[name], [], quick=False).configs
        cells += [Cell(name, c) for c in configs if c["algo"]["name"] in PGM_ALGORITHMS]
    return sorted(cells, key=lambda c: c.key)


def matched_cells(eps_equiv=EPS_EQUIV, datasets=None) -> list[Cell]:
    """The ``sota`` line-up at ε = ε_equiv·N_REF/n on each dataset of :data:`MATCHED`."""
    from pubpriv_core.problems import load

    cells = []
    for dataset, (base, publics) in MATCHED.items():
        if datasets and dataset not in datasets:
            continue
        n = load(compose_config(list(base))["dataset"]).records.shape[0]
        for line, overrides in LINEUP.items():
            sources = publics if line in USES_PUBLIC else publics[:1]
            for public in sources:
                for equiv in eps_equiv:
                    eps = round(equiv * N_REF / n, 4)
                    cfg = compose_config([*base, *overrides, f"public={public}", f"eps={eps}"])
                    cells.append(Cell("matched", cfg))
    return cells


class Worker:
    """A :mod:`.pgm_worker` process running on ``checkout``'s code."""

    def __init__(self, checkout: str, perturb: bool = False):
        env = {**os.environ, "PYTHONPATH": str(Path(checkout).resolve()),
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        self.checkout = checkout
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), *(["--perturb"] if perturb else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            cwd=str(Path(checkout).resolve()))

    def run(self, cell: Cell, run: int) -> dict:
        job = {"key": cell.key, "config": cell.config, "run": run}
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker on {self.checkout} stopped at {cell.key}, run {run}")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def run_grid(cells: list[Cell], runs: int | None, checkouts: list[str],
             perturb: list[bool] | None = None, echo=print) -> dict[str, list[dict]]:
    """Every (cell, repetition < ``runs`` or the cell's own count) in a worker per checkout,
    alternating A B / B A; records per checkout label (``perturb``: that worker perturbs)."""
    perturb = perturb or [False] * len(checkouts)
    workers = [Worker(c, p) for c, p in zip(checkouts, perturb)]
    labels = [f"{c}{' (perturbed)' if p else ''}" for c, p in zip(checkouts, perturb)]
    records: dict[str, list[dict]] = {label: [] for label in labels}
    try:
        turn = 0
        for cell in cells:
            for run in range(min(runs or cell.config["runs"], cell.config["runs"])):
                order = list(range(len(workers)))[::(-1) ** turn]
                turn += 1
                done = {i: workers[i].run(cell, run) for i in order}
                for i in range(len(workers)):
                    records[labels[i]].append(done[i])
                echo(job_line(cell.key, run, [done[i] for i in range(len(workers))]))
    finally:
        for worker in workers:
            worker.close()
    return records


def job_line(key: str, run: int, results: list[dict]) -> str:
    times = "  ".join(f"{r['cpu']:7.2f} s cpu {r['wall']:7.2f} s wall" for r in results)
    same = ("" if len(results) < 2 else
            "  same picks" if results[0]["selected"] == results[1]["selected"] else
            "  PICKS DIFFER")
    return (f"{key} | run {run}: {times} | load {results[0]['load'][0]:.1f} | rounds "
            f"{results[0]['rounds']} | max_error {results[0]['max_error']:.6g}{same}")


def summary_table(records: dict[str, list[dict]]) -> list[str]:
    """Markdown: per cell, the mean and max CPU and wall seconds per checkout, the CPU ratio of
    the first to the last checkout, the load range."""
    labels = list(records)
    cells = list(dict.fromkeys(r["key"] for r in records[labels[0]]))
    head = " | ".join(f"{i}: CPU s mean (max) | {i}: wall s mean (max)"
                      for i in "AB"[:len(labels)])
    lines = [f"| cell | runs | {head} | {'CPU A/B | ' if len(labels) > 1 else ''}load |",
             "|---" * (3 + 2 * len(labels) + (len(labels) > 1)) + "|"]
    for key in cells:
        parts, cpus, loads = [], [], []
        for label in labels:
            rows = [r for r in records[label] if r["key"] == key]
            cpu, wall = np.array([r["cpu"] for r in rows]), np.array([r["wall"] for r in rows])
            cpus.append(cpu.mean())
            loads += [r["load"][0] for r in rows]
            parts.append(f"{cpu.mean():.1f} ({cpu.max():.1f}) | {wall.mean():.1f} "
                         f"({wall.max():.1f})")
        ratio = f"{cpus[0] / cpus[-1]:.1f}× | " if len(labels) > 1 else ""
        lines.append(f"| {key} | {len(rows)} | {' | '.join(parts)} | {ratio}"
                     f"{min(loads):.1f}–{max(loads):.1f} |")
    return lines


def compare(first: list[dict], second: list[dict]) -> list[str]:
    """Run by run: identical selections, and the largest |Δ| of the max and mean errors, per
    algorithm and dataset (cells' ``source | dataset | … | algorithm``)."""
    by_key = {(r["key"], r["run"]): r for r in second}
    groups: dict[str, list] = {}
    for r in first:
        other = by_key.get((r["key"], r["run"]))
        if other is None:
            continue
        parts = r["key"].split(" | ")
        group = f"{parts[1]} | {parts[3]}"
        groups.setdefault(group, []).append((r, other))
    lines = ["| dataset | algorithm | runs | identical picks | first differing round (runs) "
             "| max |Δ max error| | max |Δ mean error| |", "|---|---|---|---|---|---|---|"]
    for group, pairs in sorted(groups.items()):
        same = sum(a["selected"] == b["selected"] for a, b in pairs)
        firsts = sorted(next(i for i, (x, y) in enumerate(zip(a["selected"] + [None],
                                                              b["selected"] + [None])) if x != y)
                        for a, b in pairs if a["selected"] != b["selected"])
        dmax = max(abs(a["max_error"] - b["max_error"]) for a, b in pairs)
        dmean = max(abs(a["mean_error"] - b["mean_error"]) for a, b in pairs)
        where = ", ".join(str(f + 1) for f in firsts) or "—"
        lines.append(f"| {group.replace(' | ', ' | ')} | {len(pairs)} | {same}/{len(pairs)} | "
                     f"{where} | {dmax:.2e} | {dmean:.2e} |")
    return lines


def run_grid_benchmark(grid: str, runs: int | None, only: list[str], against: str | None,
                       out: str | None) -> None:
    """Time the cells of ``grid`` (artefacts, matched or all) whose label contains every text of
    ``only``, on this checkout (and ``against``); print each run, the table per cell and, with
    two checkouts, the run-by-run comparison; ``out``: every run's record as JSON."""
    cells = []
    if grid in ("artefacts", "all"):
        cells += artefact_cells()
    if grid in ("matched", "all"):
        cells += matched_cells()
    cells = [c for c in cells if all(text in c.key for text in only)]
    if not cells:
        raise ValueError("no cell matches --only; drop it or pass a part of a cell label "
                         "(e.g. 'ADULT', 'jam_pgm', 'ε=1')")
    checkouts = ["."] + ([against] if against else [])
    print(f"{len(cells)} cells; checkouts: {', '.join(checkouts)}", flush=True)
    records = run_grid(cells, runs, checkouts, echo=lambda s: print(s, flush=True))
    print("\n" + "\n".join(summary_table(records)))
    if against:
        first, second = records.values()
        print("\n" + "\n".join(compare(first, second)))
    if out:
        with open(out, "w") as handle:
            json.dump(records, handle)
