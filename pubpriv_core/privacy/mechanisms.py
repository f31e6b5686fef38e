"""All privacy mechanisms in one namespace (the contract's ``privacy.mechanisms``).

Selection (permute-and-flip, exponential mechanism, report-noisy-max) lives in
:mod:`~pubpriv_core.privacy.selection` (its exact head/tail noisy-max engine in
:mod:`~pubpriv_core.privacy.noisy_max`), additive noise in :mod:`~pubpriv_core.privacy.noise`,
the sparse vector technique in :mod:`~pubpriv_core.privacy.sparse_vector`.
"""
from pubpriv_core.privacy.noise import gaussian_mechanism, laplace_mechanism
from pubpriv_core.privacy.selection import (exponential_mechanism,
                                            exponential_mechanism_probabilities,
                                            exponential_samples,
                                            permute_and_flip, permute_and_flip_probabilities,
                                            report_noisy_max)
from pubpriv_core.privacy.sparse_vector import SparseVector, SparseVectorHaltedError

__all__ = [
    "permute_and_flip", "permute_and_flip_probabilities", "exponential_mechanism",
    "exponential_samples",
    "exponential_mechanism_probabilities", "report_noisy_max", "gaussian_mechanism",
    "laplace_mechanism", "SparseVector", "SparseVectorHaltedError",
]
