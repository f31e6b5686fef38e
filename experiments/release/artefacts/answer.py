"""The answer at matched signal: does public data help, and is PMW^Pub's advantage real?

One table over every (private set, public source) of the signal-matched artefacts
(:data:`ARTEFACTS`, read from their committed ``runs.csv``), with four comparisons per cell:
PMW^Pub − public only, PMW^Pub − AIM, JAM-PGM − AIM and PMW^Pub − best mixture, each at every
paper-equivalent ε (Liu et al. 2021's grid); and a second table of the successors (Liu, Vietri &
Wu 2021) where they were run: GEM^Pub − PMW^Pub, − GEM, − RAP^softmax, − AIM, − JAM-PGM and
PEP^Pub − PMW^Pub. The comparisons of both tables form one family, Holm-corrected together
(:mod:`experiments.release.stats.paired`); a cell gives, per verdict, the ε at which it holds and
the range of the mean differences there. ``python scripts/answer.py`` prints them (markdown) for
``results/README.md``.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.release.stats.paired import TIE, holm_verdicts, line_name, paired_differences
from experiments.release.artefacts.reproduce import REPO
from experiments.release.stats.summary import build

#: the matched artefacts the answer reads, and its columns (subject, other)
SOURCES = ("fig1_nist_matched", "sota_matched", "nist_shift_matched", "fig1_paper_scale")
COLUMNS = (("PMW^Pub", "public only"), ("PMW^Pub", "AIM"), ("JAM-PGM", "AIM"),
           ("PMW^Pub", "best mixture"))
#: the successors' columns (a table of the rows where GEM^Pub or PEP^Pub ran): GEM^Pub against
#: PMW^Pub, against the support's best mixture error (the floor that binds PMW^Pub), against GEM
#: (what the public pre-training buys) and RAP^softmax (the other generator without public
#: data), against the PGM family without and with public data; PEP^Pub against PMW^Pub
SUCCESSOR_COLUMNS = (("GEM^Pub", "PMW^Pub"), ("GEM^Pub", "best mixture"), ("GEM^Pub", "GEM"),
                     ("GEM^Pub", "RAP^softmax"), ("GEM^Pub", "AIM"), ("GEM^Pub", "JAM-PGM"),
                     ("PEP^Pub", "PMW^Pub"))
#: the lines compared with the best mixture error, also where it is a certified interval
AGAINST_MIXTURE = {subject for subject, other in COLUMNS + SUCCESSOR_COLUMNS
                   if other == "best mixture"}


def comparisons(names=SOURCES, root: Path = REPO) -> pd.DataFrame:
    """Every answer comparison of the artefacts whose runs.csv exists, with its artefact; where
    the best mixture error is a certified interval rather than a value, the distance of PMW^Pub
    and GEM^Pub (:data:`AGAINST_MIXTURE`) to it as rows with ``versus`` "best mixture", no test
    (``p`` NaN) and ``bracket`` text."""
    parts = []
    for name in names:
        artefact = ARTEFACTS[name]
        path = root / artefact.out / "runs.csv"
        if not path.is_file():
            continue
        runs = pd.read_csv(path)
        with warnings.catch_warnings():   # a wide runs.csv: pandas' fragmentation hint only
            warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
            fig = build(runs.assign(source=runs["source"].fillna("")), artefact.tuning)
            diffs = paired_differences(fig.runs, fig.public_only, fig.mixture_ref,
                                       COLUMNS + SUCCESSOR_COLUMNS)
        parts += [diffs.assign(artefact=name), brackets(fig).assign(artefact=name)]
    if not parts:
        raise ValueError("no runs.csv of a matched artefact under results/; run "
                         "`python scripts/reproduce.py fig1_nist_matched` (and the others) first")
    return pd.concat(parts, ignore_index=True)


def brackets(fig) -> pd.DataFrame:
    """The mean of each :data:`AGAINST_MIXTURE` line minus the ends of a certified best-mixture
    interval, per (line, ε)."""
    ref = fig.mixture_ref
    if ref.empty:
        return pd.DataFrame()
    open_ = ref[~ref["exact"].astype(bool) & ref["lower"].notna()]
    mine = fig.chosen[fig.chosen["line"].map(line_name).isin(AGAINST_MIXTURE)]
    rows = mine.merge(open_[["row", "source", "lower", "upper"]], on=["row", "source"])
    return pd.DataFrame({
        "line": rows["line"], "eps": rows["eps"], "versus": "best mixture",
        "diff": rows["mean"] - rows["upper"], "p": float("nan"),
        "bracket": [f"[{m - u:+.3g}, {m - lo:+.3g}]" for m, u, lo in
                    zip(rows["mean"], rows["upper"], rows["lower"])]})


def cell(part: pd.DataFrame) -> str:
    """"lower at 0.25, 0.5, 1 (−0.031 … −0.004); undecided at 0.1, 0.2": per verdict its ε and
    the range of the mean differences; "equal" where every run ties (|d| ≤ 1e-9: PMW^Pub at
    the certified best mixture error)."""
    if part.empty:
        return "not run"
    if "bracket" in part and part["bracket"].notna().all():   # an interval, not a value
        return ("in " + ", ".join(f"{e:g}: {b}" for e, b in zip(part["eps"], part["bracket"]))
                + " (certified interval; no test)")
    out = []
    tied = part["diff"].abs() <= TIE
    part = part.assign(verdict=part["verdict"].where(~tied, "equal"))
    for verdict in ("lower", "higher", "undecided", "equal"):
        hit = part[part["verdict"] == verdict].sort_values("eps")
        if hit.empty:
            continue
        eps = ", ".join(f"{e:g}" for e in hit["eps"])
        low, high = hit["diff"].min(), hit["diff"].max()
        span = f"{low:+.3g}" if abs(high - low) < 5e-5 else f"{low:+.3g} … {high:+.3g}"
        out.append(f"{verdict} at {eps}" + ("" if verdict == "equal" else f" ({span})"))
    return "; ".join(out)


def answer_table(diffs: pd.DataFrame) -> str:
    """The markdown tables: one row per (artefact row, public source), one column per
    comparison (:data:`COLUMNS`; then :data:`SUCCESSOR_COLUMNS` for the rows where a successor
    ran), Holm-corrected over all of ``diffs``."""
    diffs = holm_verdicts(diffs)   # the brackets (p NaN) are not tests: outside the family
    diffs = diffs.assign(name=diffs["line"].map(line_name),
                         row=diffs["line"].str.split(" / ").str[0],
                         source=diffs["line"].str.extract(r"\[(.*)\]$")[0])
    tables = [_table(diffs, COLUMNS)]
    successors = diffs[diffs["name"].isin({subject for subject, _ in SUCCESSOR_COLUMNS})]
    if not successors.empty:
        keys = set(zip(successors["row"], successors["source"]))
        mine = diffs[[key in keys for key in zip(diffs["row"], diffs["source"])]]
        tables.append(_table(mine, SUCCESSOR_COLUMNS))
    family = int(diffs["family"].iloc[0])
    return "\n\n".join(tables) + (
        f"\n\nFamily: {family} paired t-tests (every cell's ε), "
        "Holm-corrected together at family-wise error 0.05; ε is the "
        "paper-equivalent ε (eps_equiv) on the NIST rows and ε itself at "
        "paper scale (n = 130,000).")


def _table(diffs: pd.DataFrame, columns) -> str:
    head = ["private set (row)", "public source",
            *[f"{subject} − {other}" for subject, other in columns]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (row, source), part in diffs.groupby(["row", "source"], sort=False):
        cells = [cell(part[(part["name"] == subject) & (part["versus"] == other)])
                 for subject, other in columns]
        lines.append(f"| {row} | {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
