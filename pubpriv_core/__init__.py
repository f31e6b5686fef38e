"""pubpriv core library: differential privacy assisted by public data.

Subpackages: ``data`` (Domain, Dataset, loaders, public sources), ``queries`` (marginal workloads,
answer engine, error metrics), ``privacy`` (mechanisms and zCDP accounting), ``algorithms``
(query release), ``learning`` (theory papers' learners), ``bounds`` (sample-complexity calculators).
"""
__version__ = "0.1.0"
