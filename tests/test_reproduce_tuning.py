"""T selection: best five-run average and selection on a validation release."""
import numpy as np
import pandas as pd
import pytest

from experiments.release.stats.tuning import best_average, by_validation, select


def runs(line, eps, errors_by_T, seed=0):
    """A tidy table: for each T, runs with the given errors."""
    rows = [{"line": line, "eps": eps, "T": T, "run": r, "max_error": e}
            for T, errors in errors_by_T.items() for r, e in enumerate(errors)]
    return pd.DataFrame(rows)


def test_best_average_picks_the_lowest_mean_over_runs():
    table = runs("a", 1.0, {10: [0.3, 0.1], 50: [0.15, 0.16], 100: [0.2, 0.2]})
    chosen = best_average(table)
    assert chosen["T"].tolist() == [50]
    assert chosen["mean"].iloc[0] == pytest.approx(0.155)
    assert chosen["se"].iloc[0] == pytest.approx(np.std([0.15, 0.16], ddof=1) / np.sqrt(2))
    assert chosen["tuning"].iloc[0] == "best_average"


def test_validation_reports_test_errors_at_the_validation_choice():
    test = pd.concat([runs("a", 1.0, {10: [0.1, 0.1], 50: [0.3, 0.3]}),
                      runs("b", 1.0, {10: [0.2, 0.2], 50: [0.1, 0.1]})])
    validation = runs("a", 1.0, {10: [0.5, 0.5], 50: [0.2, 0.2]})
    chosen = by_validation(test, validation).set_index("line")
    # line a: validation prefers T = 50 although T = 10 is better on the test runs
    assert chosen.loc["a", "T"] == 50 and chosen.loc["a", "mean"] == pytest.approx(0.3)
    assert chosen.loc["a", "tuning"] == "validation"
    # line b has no validation runs: best average, flagged
    assert chosen.loc["b", "T"] == 50
    assert chosen.loc["b", "tuning"].startswith("best_average")


def test_dualquery_grid_is_tuned_jointly():
    table = pd.DataFrame({"line": "dq", "eps": 0.5, "T": 1, "opt_eta": [2.0, 2.0, 4.0, 4.0],
                          "opt_samples": [25, 50, 25, 50], "run": 0,
                          "max_error": [0.4, 0.3, 0.35, 0.5]})
    chosen = best_average(table)
    assert (chosen["opt_eta"].iloc[0], chosen["opt_samples"].iloc[0]) == (2.0, 50)


def test_select_checks_its_inputs():
    table = runs("a", 1.0, {10: [0.1]})
    with pytest.raises(ValueError, match="choose one of"):
        select(table, "median")
    with pytest.raises(ValueError, match="validation runs"):
        select(table, "validation", None)
