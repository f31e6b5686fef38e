"""Differential privacy primitives: zCDP accounting and mechanisms.

``accounting`` converts and splits budgets (Bun & Steinke 2016; Canonne, Kamath & Steinke 2020);
``mechanisms`` holds selection (permute-and-flip, exponential mechanism, report-noisy-max), additive
noise (Gaussian, Laplace) and the sparse vector technique. Every random draw takes an explicit
``numpy.random.Generator``.
"""
from pubpriv_core.privacy.accounting import (BudgetExceededError, ZCDPBudget,
                                             advanced_composition, bounded_range_zcdp,
                                             default_delta, eps_from_rho, eps_upper_bound,
                                             gaussian_sigma, gaussian_zcdp, per_step_eps,
                                             pure_dp_zcdp, rho_from_eps)
from pubpriv_core.privacy.mechanisms import (SparseVector, SparseVectorHaltedError,
                                             exponential_mechanism,
                                             exponential_mechanism_probabilities,
                                             gaussian_mechanism, laplace_mechanism,
                                             permute_and_flip, permute_and_flip_probabilities,
                                             report_noisy_max)

__all__ = [
    "BudgetExceededError", "ZCDPBudget", "advanced_composition", "bounded_range_zcdp",
    "default_delta", "eps_from_rho", "eps_upper_bound", "gaussian_sigma", "gaussian_zcdp",
    "per_step_eps", "pure_dp_zcdp", "rho_from_eps",
    "SparseVector", "SparseVectorHaltedError", "exponential_mechanism",
    "exponential_mechanism_probabilities", "gaussian_mechanism", "laplace_mechanism",
    "permute_and_flip", "permute_and_flip_probabilities", "report_noisy_max",
]
