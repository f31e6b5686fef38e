"""The one benchmark command: ``python scripts/bench.py NAME [ARGS …]`` runs benchmark NAME.

A benchmark is a module of :mod:`experiments.release.bench` or :mod:`experiments.theory` whose
``main(argv)`` parses ARGS, prints its numbers and returns the exit status (``None`` for 0).
:data:`BENCHMARKS` names them; ``--help`` (or no NAME) lists them, each with the first line of
its module's docstring, read from the source so that listing imports neither NumPy nor JAX nor
any data; ``NAME --help`` prints the benchmark's own arguments. An unknown NAME is one
``error:`` line and status 2. This module sits above both wings and imports a benchmark only
when it runs, so neither wing imports the other through it. Another command runs the same
benchmarks with ``main(argv, prog="pubpriv bench")`` (``prog`` names it in usage lines).
"""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from experiments.console import fail, program

_RELEASE, _THEORY = "experiments.release.bench", "experiments.theory"

#: benchmark name -> the module whose ``main(argv)`` runs it
BENCHMARKS = {
    "aim_gap": f"{_RELEASE}.aim_gap",
    "aim_reference": f"{_RELEASE}.aim_reference",
    "blas_threads": f"{_RELEASE}.blas_threads",
    "calibration": f"{_RELEASE}.calibration",
    "dualquery": f"{_RELEASE}.dualquery",
    "engine_ab": f"{_RELEASE}.engine_ab",
    "fit_step": f"{_RELEASE}.fit_step",
    "mixture": f"{_RELEASE}.mixture",
    "mixture_theory": f"{_THEORY}.bench_mixture",
    "pass": f"{_RELEASE}.pass_floor",
    "pgm": f"{_RELEASE}.pgm",
    "privacy": f"{_RELEASE}.privacy",
    "product_kernels": f"{_RELEASE}.product_kernels",
    "release": f"{_RELEASE}.release",
    "replay_fig2": f"{_RELEASE}.replay_fig2",
    "replay_gem": f"{_RELEASE}.replay_gem",
    "replay_pgm": f"{_RELEASE}.replay_pgm",
    "scale": f"{_RELEASE}.scale",
    "slow_runs": f"{_RELEASE}.slow_runs",
    "successors": f"{_RELEASE}.successors",
    "theory": f"{_THEORY}.bench",
    "workers": f"{_RELEASE}.workers",
}


def summary(name: str) -> str:
    """The first line of benchmark ``name``'s module docstring (read, not imported)."""
    parts = BENCHMARKS[name].split(".")
    source = Path(__file__).resolve().parent.joinpath(*parts[1:]).with_suffix(".py")
    return (ast.get_docstring(ast.parse(source.read_text())) or "").splitlines()[0]


def listing(prog: str) -> str:
    """The usage line and every benchmark with its one-line summary."""
    width = max(map(len, BENCHMARKS))
    rows = [f"  {name:{width}s}  {summary(name)}" for name in BENCHMARKS]
    return "\n".join([f"usage: {prog} NAME [ARGS ...]   ({prog} NAME --help: its arguments)",
                      "", "benchmarks:", *rows])


def main(argv: list[str] | None = None, prog: str = "python scripts/bench.py") -> int:
    """Run the benchmark ``argv[0]`` with the rest of ``argv``; its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(listing(prog))
        return 0
    name, rest = argv[0], argv[1:]
    if name not in BENCHMARKS:
        fail(f"no benchmark {name!r}; choose one of: {', '.join(BENCHMARKS)} "
             f"(`{prog} --help` says what each measures)")
    with program(f"{prog} {name}"):
        return int(importlib.import_module(BENCHMARKS[name]).main(rest) or 0)
