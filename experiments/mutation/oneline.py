"""Hand-written one-line privacy mutants: apply each to a copy of the tree and run tests on it.

Each mutant (:mod:`experiments.mutation.mutants`) replaces one fragment on one line of a privacy
path. For every mutant the command runs (1) the privacy data-flow tests
(``tests/test_privacy_flow.py``, ``tests/test_privacy_audit_transcripts.py``; only those of the
algorithms the mutated file serves, ``-k``) and (2) the tests that existed before them on the same
paths (``--baseline subset``: the privacy, algorithm and audit test files; ``privacy``: the
``test_privacy_*`` files; ``full``: the whole suite except the flow tests; ``--baseline-tests``: the
files named), each with ``-x``, and prints one Markdown row per mutant: where it is, its diff, the
first test that fails (the killer) or ``survived``. ``--only ID ...`` restricts the mutants.

    python scripts/mutation_oneline.py [--baseline privacy|subset|full|none] [--no-flow]
        [--baseline-tests FILE ...] [--flow-if-survived] [--only M1 M2] [-o FILE]

A mutant whose fragment is not found exactly once is reported as ``stale`` (the code moved).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments.console import ArgumentParser
from experiments.mutation.mutants import KEYWORDS, MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[2]
FLOW_TESTS = ["tests/test_privacy_flow.py", "tests/test_privacy_audit_transcripts.py"]
BASELINE_SUBSET = ["tests/test_privacy_handle.py", "tests/test_privacy_ledger.py",
                   "tests/test_public_sample_rows.py", "tests/test_plugin_algorithm.py",
                   "tests/test_privacy_accounting.py", "tests/test_privacy_call_sites.py",
                   "tests/test_privacy_fused_selection.py", "tests/test_privacy_noise.py",
                   "tests/test_privacy_selection.py", "tests/test_privacy_sparse_vector.py",
                   "tests/test_privacy_ties.py", "tests/test_algorithms_sota.py",
                   "tests/test_aim_reference.py", "tests/test_learning_core_audit.py",
                   "tests/test_algorithms_release.py", "tests/test_algorithms_dualquery.py",
                   "tests/test_algorithms_dualquery_zcdp.py", "tests/test_learning_liu2021.py",
                   "tests/test_mw_kernels.py", "tests/test_pgm_joint.py"]


def copy_tree(dest: Path) -> None:
    """The work tree's tracked and untracked-but-not-ignored files, copied to ``dest``."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True, text=True).stdout.split("\n")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def apply(tree: Path, mutant: Mutant) -> tuple[str, int] | None:
    """Apply ``mutant`` in ``tree``; (original text, line number), or None when stale."""
    path = tree / mutant.path
    text = path.read_text()
    if text.count(mutant.old) != 1:
        return None
    line = text[:text.index(mutant.old)].count("\n") + 1
    path.write_text(text.replace(mutant.old, mutant.new))
    return text, line


def first_failure(tree: Path, tests: list[str], extra: list[str]) -> tuple[str, float]:
    """The first failing test id of ``pytest -x tests`` in ``tree`` ('' if all pass)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg",
           "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-n", "0", "-p",
                          "no:cacheprovider", *extra, *tests], cwd=tree, env=env,
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out.stdout, re.M)
    if out.returncode == 0:
        return "", seconds
    return (failed[0] if failed else f"pytest exit {out.returncode}"), seconds


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", choices=("privacy", "subset", "full", "none"),
                        default="subset")
    parser.add_argument("--no-flow", action="store_true", help="skip the flow tests")
    parser.add_argument("--flow-if-survived", action="store_true",
                        help="run the flow tests only on a mutant the baseline does not kill")
    parser.add_argument("--baseline-tests", nargs="+", default=None, metavar="FILE",
                        help="run these test files as the baseline instead of --baseline")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("-o", "--out", type=Path, default=None, help="also write the table")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if args.only is None or m.id in args.only]
    rows = ["| mutant | file:line | one-line diff | baseline tests | flow tests |",
            "| --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory(prefix="pubpriv-mutant-") as tmp:
        tree = Path(tmp)
        copy_tree(tree)
        for mutant in chosen:
            applied = apply(tree, mutant)
            if applied is None:
                rows.append(f"| {mutant.id} | {mutant.path} | stale | | |")
                print(rows[-1], flush=True)
                continue
            original, line = applied
            try:
                baseline = _baseline(tree, args.baseline_tests or args.baseline)
                keyword = mutant.keyword or KEYWORDS.get(Path(mutant.path).name)
                skip = args.no_flow or (args.flow_if_survived and "killed" in baseline)
                killer, seconds = ("not run", 0.0) if skip else first_failure(
                    tree, FLOW_TESTS, ["-k", keyword] if keyword else [])
            finally:
                (tree / mutant.path).write_text(original)
            rows.append(f"| {mutant.id}: {mutant.what} | {mutant.path}:{line} | "
                        f"`{mutant.old.strip()}` → `{mutant.new.strip()}` | {baseline} | "
                        f"{_verdict(killer, seconds)} |")
            print(rows[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(rows) + "\n")
    return 0


def _baseline(tree: Path, which: str | list[str]) -> str:
    if which == "none":
        return "not run"
    if isinstance(which, list):
        tests, extra = which, []
    elif which == "full":
        tests, extra = ["tests"], [f"--ignore={t}" for t in FLOW_TESTS] + ["-n", "2"]
    elif which == "privacy":
        tests, extra = [t for t in BASELINE_SUBSET if "test_privacy_" in t], []
    else:
        tests, extra = BASELINE_SUBSET, []
    killer, seconds = first_failure(tree, tests, extra)
    return _verdict(killer, seconds)


def _verdict(killer: str, seconds: float) -> str:
    if killer == "not run":
        return killer
    return f"killed: `{killer}` ({seconds:.0f} s)" if killer else \
        f"survived ({seconds:.0f} s)"

