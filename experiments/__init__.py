"""Two programs over ``pubpriv_core``: :mod:`experiments.release` (query release, Liu et al.
2021) and :mod:`experiments.theory` (the theory papers' experiments), which import nothing of
each other; :mod:`experiments.console` holds the exit statuses and one-line errors both command
lines share. The other modules here sit below both wings (:mod:`experiments.outputs`,
:mod:`experiments.openblas_kernels`, :mod:`experiments.progress`,
:mod:`experiments.mixture_timing`) or above them: the commands over both
(:mod:`experiments.reproduce_cli` with :mod:`experiments.reproduce_all`,
:mod:`experiments.bench_entry`), the docs pages (:mod:`experiments.docs_pages`) and the mutation
tests of the privacy paths (:mod:`experiments.mutation`)."""
from experiments.openblas_kernels import pin

pin()   # before NumPy loads: the same OpenBLAS kernels on every x86-64 CPU with AVX2
