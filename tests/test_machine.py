"""The processor a record was computed on (its model, the SIMD level of NumPy's float64 ``exp``
loop, whose AVX-512 loop rounds differently from the C library's, and OpenBLAS's kernels), and
OpenBLAS held to one kernel family on x86-64."""
import json
import os
import subprocess
import sys

import pytest

from experiments import openblas_kernels
from experiments.release.running.machine import blas_kernels, cpu_model, numpy_simd
from experiments.release.running.store import ResultsStore
from experiments.release.running.sweep import compose_jobs, run_sweep


@pytest.mark.parametrize("jobs", [1, 2])
def test_records_keep_the_cpu_and_numpys_simd_level(tmp_path, jobs):
    """In this process and in sweep workers, which inherit the OpenBLAS pin."""
    overrides = ["dataset=synthetic", "dataset.preset=tiny", "public=resample", "T=3", "runs=2",
                 f"results_dir={tmp_path}", "workload.size=4", "progress=false"]
    run_sweep(compose_jobs([overrides]), n_jobs=jobs, log=lambda _: None)
    records = [json.loads(p.read_text()) for p in ResultsStore(tmp_path).paths()]
    kept = {(r["cpu"], r["numpy_simd"], r["blas_kernels"]) for r in records}
    assert records and kept == {(cpu_model(), numpy_simd(), blas_kernels())}
    assert cpu_model() and numpy_simd() != "unknown" and blas_kernels() != "none"


EXP_BITS = """
import math, numpy as np
from experiments.release.running.machine import numpy_simd
x = np.random.default_rng(0).normal(0.0, 20.0, 100_000)
libm = np.array([math.exp(v) for v in x])
print(numpy_simd(), int((np.exp(x) != libm).sum()))
"""


def _fresh_python(code: str, variable: str, value: str | None) -> list[str]:
    """What ``code`` prints in a fresh interpreter with the environment ``variable`` set to
    ``value`` (removed for None), split into words."""
    env = {k: v for k, v in os.environ.items() if k != variable}
    if value:
        env[variable] = value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.split()


def _simd_and_exp_differences(disabled: str | None) -> tuple[str, int]:
    level, differ = _fresh_python(EXP_BITS, "NPY_DISABLE_CPU_FEATURES", disabled)
    return level, int(differ)


@pytest.mark.skipif(numpy_simd() != "X86_V4", reason="needs a CPU where NumPy runs AVX-512 loops")
def test_numpys_avx512_exp_rounds_apart_from_the_c_library_and_its_avx2_exp_does_not():
    level, differ = _simd_and_exp_differences(None)
    assert level == "X86_V4" and differ > 0
    assert _simd_and_exp_differences("X86_V4") == ("X86_V3", 0)


PINNED = openblas_kernels.NEEDED_FLAGS <= openblas_kernels.cpu_flags() and \
    os.uname().machine == "x86_64"
KERNELS_RUN = """
import experiments, numpy, scipy.linalg
from experiments.release.running.machine import blas_kernels
print(blas_kernels())
"""


def _kernels_run(coretype: str | None) -> str:
    return _fresh_python(KERNELS_RUN, "OPENBLAS_CORETYPE", coretype)[0]


@pytest.mark.skipif(not PINNED, reason="needs Linux on an x86-64 CPU with AVX2 and FMA")
def test_importing_experiments_first_holds_openblas_to_haswell_kernels():
    assert _kernels_run(None) == openblas_kernels.KERNELS
    assert blas_kernels() == openblas_kernels.KERNELS      # this test process (conftest)


@pytest.mark.skipif("avx512f" not in openblas_kernels.cpu_flags(), reason="needs AVX-512")
def test_a_coretype_the_user_set_is_kept():
    assert _kernels_run("SkylakeX") == "SkylakeX"


def test_no_pin_without_avx2(monkeypatch):
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.setattr(openblas_kernels, "cpu_flags", lambda: {"sse2", "sse4_2", "avx"})
    assert openblas_kernels.pin() is None and "OPENBLAS_CORETYPE" not in os.environ


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu sse2 avx2 fma\n")
    assert openblas_kernels.cpu_flags(info) == {"fpu", "sse2", "avx2", "fma"}
    assert openblas_kernels.cpuinfo_field("model name", info) == "X"
    assert openblas_kernels.cpu_flags(tmp_path / "absent") == set()


def _top_level_imports(path) -> list[str]:
    """The top-level packages a module imports at its top level, in order."""
    import ast
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    return names


def test_scripts_import_experiments_before_numpy():
    """A script that loads NumPy (or the core library, which does) before ``experiments`` would
    run OpenBLAS's own kernel choice in its process."""
    from pathlib import Path
    loaders = {"numpy", "scipy", "pandas", "pubpriv_core", "numba", "jax", "matplotlib"}
    late = []
    for script in sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py")):
        names = _top_level_imports(script)
        first = next((i for i, name in enumerate(names) if name in loaders), None)
        if first is not None and "experiments" not in names[:first]:
            late.append(script.name)
    assert not late
