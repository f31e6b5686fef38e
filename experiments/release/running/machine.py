"""What a record keeps of the processor that computed it.

The same code, configuration, seed and core count give the same floats only where the processor
offers the same instruction set to NumPy: NumPy chooses its float64 ``exp`` and ``log`` loops by
the CPU's SIMD level at import, and its AVX-512 loops (level ``X86_V4``) round some last bits
differently from the C library's, which the ``X86_V3`` loops match (docs: Reproducing,
"Reproducibility"); OpenBLAS chooses its kernels by the processor too, and the harness holds
them to one family on x86-64 (:mod:`experiments.openblas_kernels`). Every record keeps
:func:`cpu_model`, :func:`numpy_simd` and :func:`blas_kernels` beside its ``cores``.
"""
from __future__ import annotations

import functools
import platform

from experiments.openblas_kernels import cpuinfo_field


@functools.cache
def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``), else what :mod:`platform` knows."""
    return cpuinfo_field("model name") or platform.processor() or platform.machine()


@functools.cache
def numpy_simd() -> str:
    """The SIMD level of the loop NumPy runs for float64 ``exp`` here (``X86_V4``, ``X86_V3``,
    ``baseline(X86_V2)``, …; ``unknown`` before NumPy 2, which cannot tell)."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:
        return "unknown"
    loops = opt_func_info(func_name="^exp$", signature="float64").get("exp", {})
    return next(iter(loops.values()), {}).get("current", "unknown")


@functools.cache
def blas_kernels() -> str:
    """The kernels of NumPy's and SciPy's BLAS (OpenBLAS's architecture, e.g. ``Haswell``; the
    library's name for other BLAS), distinct ones joined by ``+``; SciPy's is loaded first, so
    the answer is the same all through the process."""
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS)
    from threadpoolctl import threadpool_info

    found = [lib.get("architecture") or lib["internal_api"] for lib in threadpool_info()
             if lib["user_api"] == "blas"]
    return "+".join(sorted(set(found))) or "none"
