"""``scripts/bench.py NAME``: the list of benchmarks with one line each, the dispatch to a
benchmark's ``main`` (its arguments, its name in usage lines, its exit status), one error line for
an unknown name, and ``scripts/`` kept to thin wrappers."""
import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from experiments import bench_entry
from runner_helpers import REPO

#: ``scripts/`` holds at most this many files, none longer than this many lines
MOST_SCRIPTS, MOST_LINES = 15, 80


def _source(name: str) -> Path:
    return REPO.joinpath(*bench_entry.BENCHMARKS[name].split(".")).with_suffix(".py")


def test_help_lists_every_benchmark_with_its_one_line_summary(capsys):
    assert bench_entry.main(["--help"]) == 0
    listed = capsys.readouterr().out
    assert bench_entry.main([]) == 0 and capsys.readouterr().out == listed
    rows = [line.split() for line in listed.splitlines() if line.startswith("  ")]
    assert [row[0] for row in rows] == list(bench_entry.BENCHMARKS)
    for name in bench_entry.BENCHMARKS:
        summary = bench_entry.summary(name)
        assert f"  {name}" in listed and summary in listed
        assert 20 < len(summary) <= 80 and summary.endswith("."), name


def test_every_benchmark_module_has_a_main_of_argv():
    for name in bench_entry.BENCHMARKS:
        tree = ast.parse(_source(name).read_text())
        mains = [node for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name == "main"]
        assert mains and mains[0].args.args[0].arg == "argv", name


def test_an_unknown_name_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as stop:
        bench_entry.main(["no_such_bench"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "\n" not in err
    assert err.startswith("error: no benchmark 'no_such_bench'; choose one of: aim_gap, ")


def _saved(path, marginals):
    np.savez(path, answers=np.array([0.1, 0.2]), marginals=np.asarray(marginals),
             steps=np.array([3]), max_error=0.3, wall_s=1.0)
    return str(path)


def test_the_benchmark_gets_the_arguments_and_gives_the_status(tmp_path, capsys):
    a, b = _saved(tmp_path / "a.npz", [1, 5]), _saved(tmp_path / "b.npz", [5, 1])
    assert bench_entry.main(["replay_gem", "compare", a, a]) == 0
    assert bench_entry.main(["replay_gem", "compare", a, b]) == 1
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        bench_entry.main(["replay_gem", "--help"], prog="pubpriv bench")
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: pubpriv bench replay_gem [-h] {run,compare}")
    with pytest.raises(SystemExit) as stop:
        bench_entry.main(["replay_gem", "compare", a, str(tmp_path / "missing.npz")])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and "missing.npz is not a file" in err and "\n" not in err


def test_the_script_lists_the_benchmarks():
    out = subprocess.run([sys.executable, "scripts/bench.py", "--help"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("usage: python scripts/bench.py NAME") and "  successors  " in out


def test_scripts_are_few_and_thin():
    scripts = sorted(p for p in (REPO / "scripts").iterdir() if p.is_file())
    assert len(scripts) <= MOST_SCRIPTS
    long = [(p.name, n) for p in scripts if (n := len(p.read_text().splitlines())) > MOST_LINES]
    assert not long


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("wing, other", [("release", "theory"), ("theory", "release")])
def test_neither_wing_imports_the_other(wing, other):
    crossing = [f"{path.relative_to(REPO)} imports {name}"
                for path in sorted((REPO / "experiments" / wing).rglob("*.py"))
                for name in _imported(path)
                if name == f"experiments.{other}" or name.startswith(f"experiments.{other}.")]
    assert not crossing
