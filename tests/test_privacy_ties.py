"""Selection with tied groups equals selection over the expanded candidate vector."""
import numpy as np
import pytest
from scipy import stats

from pubpriv_core.privacy import (exponential_mechanism, exponential_mechanism_probabilities,
                                  permute_and_flip, permute_and_flip_probabilities)

SCORES = np.array([0.30, 0.10, 0.25, 0.05])
TIE_VALUES = np.array([0.0, 0.2, 0.32])
TIE_COUNTS = np.array([50, 3, 1])
EXPANDED = np.concatenate([SCORES, np.repeat(TIE_VALUES, TIE_COUNTS)])
MECHANISMS = [(permute_and_flip, permute_and_flip_probabilities),
              (exponential_mechanism, exponential_mechanism_probabilities)]


@pytest.mark.parametrize("mechanism, exact", MECHANISMS)
def test_tied_groups_match_the_expanded_distribution(mechanism, exact):
    eps, sensitivity, draws = 1.0, 0.05, 15_000
    rng = np.random.default_rng(11)
    picks = np.array([mechanism(SCORES, eps, sensitivity, rng, ties=(TIE_VALUES, TIE_COUNTS))
                      for _ in range(draws)])
    assert picks.min() >= 0 and picks.max() < EXPANDED.size
    # compare per score class (members of a group are exchangeable), then uniformity within it
    groups = np.concatenate([np.arange(SCORES.size), SCORES.size + np.repeat(np.arange(3),
                                                                             TIE_COUNTS)])
    observed = np.bincount(groups[picks], minlength=SCORES.size + 3)
    expected = np.bincount(groups, weights=exact(EXPANDED, eps, sensitivity)) * draws
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    first_group = picks[(picks >= SCORES.size) & (picks < SCORES.size + 50)] - SCORES.size
    assert stats.chisquare(np.bincount(first_group, minlength=50)).pvalue > 1e-3


@pytest.mark.parametrize("mechanism, exact", MECHANISMS)
def test_wrong_tie_handling_would_be_detected(mechanism, exact):
    """Power check: ignoring the group sizes (one candidate per group) is rejected."""
    eps, sensitivity, draws = 1.0, 0.05, 15_000
    rng = np.random.default_rng(12)
    picks = np.array([mechanism(SCORES, eps, sensitivity, rng,
                                ties=(TIE_VALUES, np.ones(3, dtype=int))) for _ in range(draws)])
    groups = np.concatenate([np.arange(SCORES.size), SCORES.size + np.repeat(np.arange(3),
                                                                             TIE_COUNTS)])
    remapped = np.where(picks < SCORES.size, picks, SCORES.size + (picks - SCORES.size))
    observed = np.bincount(remapped, minlength=SCORES.size + 3)
    expected = np.bincount(groups, weights=exact(EXPANDED, eps, sensitivity)) * draws
    assert stats.chisquare(observed, expected).pvalue < 1e-6


def test_bad_ties_are_refused():
    with pytest.raises(ValueError, match="ties"):
        permute_and_flip(SCORES, 1.0, 0.1, np.random.default_rng(0),
                         ties=(np.array([0.1]), np.array([0])))
