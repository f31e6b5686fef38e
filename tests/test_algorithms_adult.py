"""PMW^Pub on the paper's ADULT setting (Liu et al. 2021, Fig. 2): 3-way, W = 256, 10% public,
ε = 1, δ = 1/n², T = 100, 5 runs. The paper's research code reaches ≈ 0.013 at Δ = 0."""
import numpy as np

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data import biased
from pubpriv_core.queries import MarginalWorkload

def mean_max_error(adult, bias: float, runs: int = 5) -> float:
    workload = MarginalWorkload.random(adult.domain, 3, size=256, seed=0)
    errors = []
    for run in range(runs):
        split = biased(adult, np.random.default_rng(run), delta=bias)
        problem = ReleaseProblem(split.private, workload, split.public.support.records,
                                 split.public.weights, split.public.n_rows)
        release = run_algorithm("pmwpub", problem, eps=1.0, delta=1.0 / problem.n ** 2, T=100,
                                rng=np.random.default_rng(100 + run))
        errors.append(release.errors(problem.true_answers)["max_error"])
    return float(np.mean(errors))


def test_pmwpub_on_adult_matches_the_paper_and_degrades_with_bias(adult):
    unbiased = mean_max_error(adult, 0.0)
    very_biased = mean_max_error(adult, 0.65)
    assert unbiased <= 0.02
    assert very_biased > unbiased + 0.01
