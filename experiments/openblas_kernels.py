"""OpenBLAS held to one kernel family on x86-64, so the harness's floats do not follow the CPU.

OpenBLAS chooses its kernels when it loads, by the processor: SkylakeX kernels on Intel CPUs with
AVX-512, Haswell kernels on Intel CPUs with AVX2 and on AMD Zen. They add a dot product's terms in
different orders, so one run rounds differently on the two, and where a float decides a step the
run then follows another path: Private-PGM's Armijo test of each mirror-descent step compares two
BLAS dot products (:mod:`pubpriv_core.algorithms.pgm_descent`), and JAM-PGM on ADULT (Δ = 0,
ε = 1, repetition 0 of seed 0) released max error 0.020569 with SkylakeX kernels against 0.019484
with Haswell kernels (the committed record's, computed on AMD EPYC).

:func:`pin` sets ``OPENBLAS_CORETYPE=Haswell`` for this process and its workers on Linux x86-64
CPUs with AVX2 and FMA, unless the variable is set already. It is called when :mod:`experiments`
is imported, and takes effect where that comes before NumPy's import (``run.py``,
``scripts/reproduce.py``, the sweep workers, the tests' ``conftest.py``). Every record keeps the
kernels its process ran (``blas_kernels``, :func:`experiments.release.running.machine.blas_kernels`).
This module imports no NumPy.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

#: the kernel family every x86-64 CPU with AVX2 and FMA can run
KERNELS = "Haswell"
NEEDED_FLAGS = {"avx2", "fma"}


def cpuinfo_field(name: str, cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The first processor's ``name`` field in ``/proc/cpuinfo`` ('' where it or the file is
    absent)."""
    if not cpuinfo.is_file():
        return ""
    for line in cpuinfo.read_text().splitlines():
        if line.split(":", 1)[0].strip() == name:
            return line.split(":", 1)[1].strip()
    return ""


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The first processor's feature flags (empty where ``/proc/cpuinfo`` is absent)."""
    return set(cpuinfo_field("flags", cpuinfo).split())


def pin() -> str | None:
    """Set ``OPENBLAS_CORETYPE`` to :data:`KERNELS` where it is unset and this is Linux on an
    x86-64 CPU with AVX2 and FMA; the value OpenBLAS will be asked for (None: its own choice)."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return os.environ["OPENBLAS_CORETYPE"]
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return None
    if not NEEDED_FLAGS <= cpu_flags():
        return None
    os.environ["OPENBLAS_CORETYPE"] = KERNELS
    return KERNELS
