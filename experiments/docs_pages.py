"""Docs pages made from the committed results (the docs build calls these through
``scripts/mkdocs_hooks.py``; nothing is copied by hand).

* ``results.md``: one row per artefact folder of ``results/`` that has a ``summary.md`` (its
  title, the command that regenerates it and the wall time its summary recorded), then the
  bounds' and the theory experiments' pages;
* ``results/<folder>.md``: the artefact's ``summary.md`` with its figure (or Table 1);
* ``results/bounds.md`` and ``results/theory.md``: the READMEs of ``results/bounds`` and
  ``results/theory`` with every figure of those folders.

:func:`recorded_time` reads the wall time and load a ``summary.md`` records (the README's
artefact table quotes the same numbers).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"


@dataclass(frozen=True)
class Timing:
    """What a summary.md says about the sweep that made it."""

    wall_s: float | None       # wall time up to collection (None: not recorded)
    stored: int                # runs already stored when that sweep started
    runs: int                  # runs of the artefact
    load: str                  # load average (1/5/15 min) of that sweep's machine line


def recorded_time(summary: str) -> Timing:
    """The first ``- sweep:`` line's wall time and the machine line's load average."""
    sweep = re.search(r"^- sweep: (\d+) runs of \d+ configurations, (\d+) already stored.*?"
                      r"wall time up to collection ([\d.]+) s", summary, re.M)
    load = re.search(r"^- machine: .*?load average \(1/5/15 min\) ([\d. ]+)", summary, re.M)
    return Timing(float(sweep.group(3)) if sweep else None, int(sweep.group(2)) if sweep else 0,
                  int(sweep.group(1)) if sweep else 0,
                  load.group(1).strip() if load else "")


def artefacts() -> list[tuple[str, Path]]:
    """(reproduce.py name, folder) of every results folder with a summary.md, in the
    catalogue's order."""
    from experiments.release.artefacts.catalogue import ARTEFACTS

    by_folder = {Path(a.out).name: name for name, a in ARTEFACTS.items()}
    folders = sorted(p.parent for p in RESULTS.glob("*/summary.md"))
    order = list(by_folder)
    folders.sort(key=lambda f: order.index(f.name) if f.name in order else len(order))
    return [(by_folder.get(f.name, f.name), f) for f in folders]


def _title(summary: str, fallback: str) -> str:
    match = re.match(r"#\s+(.*)", summary)
    return match.group(1).strip() if match else fallback


def _minutes(timing: Timing) -> str:
    if timing.wall_s is None:
        return "not recorded in its summary.md"
    text = (f"{timing.wall_s:.0f} s" if timing.wall_s < 120 else
            f"{timing.wall_s / 60:.0f} min")
    reused = f", {timing.stored} of {timing.runs} runs already stored" if timing.stored else ""
    return f"{text} (load {timing.load}{reused})"


def results_pages() -> dict[str, str]:
    """docs path -> Markdown of every generated results page."""
    pages, rows = {}, []
    for name, folder in artefacts():
        summary = (folder / "summary.md").read_text()
        title = _title(summary, folder.name)
        body = summary.split("\n", 1)[1] if summary.startswith("#") else summary
        image = f"![{title}]({folder.name}.png)\n" if (folder / "figure.png").is_file() else ""
        pages[f"results/{folder.name}.md"] = (
            f"# {title}\n\n`python scripts/reproduce.py {name}` regenerates it "
            f"(records under `runs/`, outputs under `runs/artefacts/{folder.name}/`; "
            f"`--into results` writes `results/{folder.name}/`).\n\n{image}{body}")
        rows.append(f"| [{name}](results/{folder.name}.md) | {title} | "
                    f"`python scripts/reproduce.py {name}` | {_minutes(recorded_time(summary))} |")
    for extra, label in (("bounds", "Bounds of the five papers"),
                         ("theory", "Experiments on the learning-theory papers")):
        pages[f"results/{extra}.md"] = _folder_page(RESULTS / extra, label)
    pages["results.md"] = "\n".join([
        "# Results", "",
        "Generated at build time from the committed `results/` folders: each artefact's "
        "`summary.md` and figure, the bounds' figures and the theory experiments' README and "
        "figures. Wall times are those the artefact's `summary.md` recorded for its sweep on the "
        "shared 2-core machine (load average beside it).", "",
        "| artefact | what | command | wall time recorded |", "|---|---|---|---|", *rows, "",
        "- [Bounds of the five papers](results/bounds.md) (`python scripts/bounds.py plot`)",
        "- [Experiments on the learning-theory papers](results/theory.md) "
        "(`python -m experiments.theory experiment=theory_<paper>`)",
        "", "The discussion of every artefact against the paper's claims is in "
        "`results/README.md` of the repository.", ""])
    return pages


def _folder_page(folder: Path, label: str) -> str:
    readme = folder / "README.md"
    text = readme.read_text() if readme.is_file() else f"# {label}\n"
    if not text.startswith("#"):
        text = f"# {label}\n\n{text}"
    figures = sorted(folder.rglob("*.png"))
    gallery = [f"### {p.relative_to(folder).as_posix()}\n\n"
               f"![{p.stem}]({folder.name}/{p.relative_to(folder).as_posix()})\n"
               for p in figures]
    return text.rstrip() + "\n\n## Figures\n\n" + "\n".join(gallery)


def results_images() -> dict[str, Path]:
    """docs path -> committed image the generated pages show."""
    images = {f"results/{folder.name}.png": folder / "figure.png"
              for _, folder in artefacts() if (folder / "figure.png").is_file()}
    for extra in ("bounds", "theory"):
        for path in sorted((RESULTS / extra).rglob("*.png")):
            images[f"results/{extra}/{path.relative_to(RESULTS / extra).as_posix()}"] = path
    return images
