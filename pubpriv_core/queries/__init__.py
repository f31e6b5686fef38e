"""k-way marginal workloads, the answer engines and error metrics."""
from pubpriv_core.queries.engine import (SupportAnswerer, answer_dataset, answer_histogram,
                                         answer_records)
from pubpriv_core.queries.errors import error_summary, max_error, mean_error, rmse
from pubpriv_core.queries.full_domain import DomainAnswerer, MarginalTree, full_domain_records
from pubpriv_core.queries.workload import MarginalWorkload, choose_marginals, marginal_workload

__all__ = ["DomainAnswerer", "MarginalTree", "MarginalWorkload", "SupportAnswerer",
           "answer_dataset", "answer_histogram", "answer_records", "choose_marginals",
           "error_summary", "full_domain_records", "marginal_workload", "max_error", "mean_error",
           "rmse"]
