"""The scale benchmark's pass timer: each full answer pass timed, the answerer left as it was."""
import time

import numpy as np

from experiments.release.bench.scale import pass_timer


class SlowAnswerer:
    def answer(self, weights):
        time.sleep(0.01)
        return np.asarray(weights) * 2.0


def test_pass_timer_adds_up_the_passes_and_restores_the_answerer():
    answerer = SlowAnswerer()
    with pass_timer(answerer) as spent:
        np.testing.assert_array_equal(answerer.answer([1.0, 2.0]), [2.0, 4.0])
        answerer.answer([0.0])
    assert len(spent) == 2 and all(0.01 <= s < 1.0 for s in spent)
    assert "answer" not in vars(answerer)
    answerer.answer([1.0])
    assert len(spent) == 2
