"""Learners of the theory papers and the infrastructure that measures them.

``distributions`` (known marginals with exact masses), ``classes`` (concept classes with exact
errors and public covers), ``measure`` (empirical n*(α, β) by doubling then bisection with a
Clopper–Pearson bound; resumable records), ``audit`` (exact DP audits), ``beimel2014`` and
``alon2019`` (the papers' learners), ``representation`` (exact α-representation checks, Beimel et
al. 2014 Def 3.1 and Lemma 3.10).
"""
from .classes import (ConceptClass, DecisionStumps, Halfspaces, Intervals, PointFunctions, Rectangles,
                      Thresholds)
from .distributions import FiniteDistribution, Mixture01, ProductSigns
from .measure import (RateEstimate, RecordStore, SampleComplexity, clopper_pearson_lower,
                      empirical_sample_complexity, max_failures, run_trials, success_curve, success_rate,
                      worst_case_sample_complexity)

__all__ = ["ConceptClass", "DecisionStumps", "Halfspaces", "Intervals", "PointFunctions", "Rectangles",
           "Thresholds", "FiniteDistribution", "Mixture01", "ProductSigns", "RateEstimate", "RecordStore",
           "SampleComplexity", "clopper_pearson_lower", "empirical_sample_complexity", "max_failures",
           "run_trials", "success_curve", "success_rate", "worst_case_sample_complexity"]
