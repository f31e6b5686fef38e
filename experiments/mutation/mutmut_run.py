"""Mutation testing of the privacy paths with mutmut 3, and the report of the mutants it left.

The configuration is ``[tool.mutmut]`` in pyproject.toml: the mutated files, the privacy test
subset, the statements left alone.

    python scripts/mutation_privacy.py [--jobs 2] [--mutmut PATH] [--report-only]
        [-o results/mutation/mutmut_survivors.md]

Runs ``mutmut run`` from the repository root (mutmut copies ``pubpriv_core`` and ``tests`` to
``mutants/`` and puts that copy first on ``sys.path``, so PYTHONPATH is cleared), with the flow
tests' enumeration capped at 2 hypothesis examples per algorithm (``PUBPRIV_FLOW_EXAMPLES``),
then writes every mutant that was not killed, with its diff, to the report and
prints the counts and the wall time. Functions compiled by numba (``@nb.njit``) are decorated,
so mutmut leaves them alone; their one-line mutants are in
:mod:`experiments.mutation.oneline` (``scripts/mutation_oneline.py``).
"""
from __future__ import annotations

import collections
import difflib
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from experiments.console import ArgumentParser, positive_int

ROOT = Path(__file__).resolve().parents[2]


def _function(text: str, name: str) -> list[str]:
    """The lines of function ``name`` (top level or method) in mutmut's trampolined source."""
    match = re.search(r"^( *)def " + re.escape(name) + r"\(", text, re.M)
    if match is None:
        return []
    lines, indent = text[match.start():].splitlines(), len(match.group(1))
    end = next((i for i, line in enumerate(lines[1:], 1)
                if line.strip() and len(line) - len(line.lstrip()) <= indent), len(lines))
    return [lines[0].replace(name, "f"), *lines[1:end]]


def mutant_diff(name: str) -> list[str]:
    """Changed lines of mutant ``name`` against the original function, read from ``mutants/``
    (what ``mutmut show`` prints, without starting mutmut per mutant)."""
    module, function = name.rsplit(".", 1)
    text = (ROOT / "mutants" / (module.replace(".", "/") + ".py")).read_text()
    original = _function(text, function.rsplit("__mutmut_", 1)[0] + "__mutmut_orig")
    mutated = _function(text, function)
    return [line for line in difflib.unified_diff(original, mutated, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument("--mutmut", default=shutil.which("mutmut") or "mutmut")
    parser.add_argument("-o", "--out", type=Path,
                        default=ROOT / "results" / "mutation" / "mutmut_survivors.md")
    parser.add_argument("--report-only", action="store_true",
                        help="only write the report of the last run")
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PUBPRIV_FLOW_EXAMPLES=env.get("PUBPRIV_FLOW_EXAMPLES", "2"), MPLBACKEND="Agg")
    seconds = 0.0
    if not args.report_only:
        start = time.perf_counter()
        subprocess.run([args.mutmut, "run", "--max-children", str(args.jobs)], cwd=ROOT,
                       env=env, check=False)
        seconds = time.perf_counter() - start
    listing = subprocess.run([args.mutmut, "results", "--all", "true"], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True).stdout
    status = dict(re.findall(r"^\s*(\S+): (.+)$", listing, re.M))
    counts = collections.Counter(status.values())
    lines = [f"# mutmut survivors ({sum(counts.values())} mutants: "
             + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + ")", ""]
    if seconds:
        lines += [f"Run time {seconds / 60:.1f} min with {args.jobs} workers.", ""]
    for name, state in sorted(status.items()):
        if state in ("killed", "not checked"):
            continue
        lines += [f"## {name}: {state}", "", "```diff", *mutant_diff(name), "```", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines))
    print(lines[0], f"wall {seconds / 60:.1f} min" if seconds else "", sep="\n")
    return 0

