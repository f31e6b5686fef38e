"""Two programs over ``pubpriv_core``: :mod:`experiments.release` (query release, Liu et al.
2021) and :mod:`experiments.theory` (the theory papers' experiments); :mod:`experiments.console`
holds the exit statuses and one-line errors both command lines share."""
from experiments.openblas_kernels import pin

pin()   # before NumPy loads: the same OpenBLAS kernels on every x86-64 CPU with AVX2
