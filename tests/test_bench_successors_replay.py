"""The replay of a traced reference GEM run: layouts (weights transposed, marginals' attributes
in the reference's order) and the round-by-round comparison, on a trace written in the
reference driver's format from this harness's own run."""
import json

import numpy as np
import pytest

from experiments.release.bench import successors_replay
from pubpriv_core.algorithms import gem, generators
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.algorithms.adaptive_measurements import Measurements
from pubpriv_core.algorithms.select_measure import parse_options
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

#: the domain and model sizes of tests/test_privacy_successors.py (the compiled steps are shared)
SHAPE = (3, 4, 2, 5, 3)
OPTIONS = {"K": 64, "embedding": 16, "hidden": 16, "max_iters": 12, "lr": 0.05, "loss_p": 2}


def _problem() -> ReleaseProblem:
    rng = np.random.default_rng(3)
    records = np.stack([rng.integers(0, s, 300) for s in SHAPE], axis=1)
    domain = Domain(tuple("abcde"), SHAPE)
    return ReleaseProblem(Dataset(records, domain), MarginalWorkload.random(domain, 3, seed=0))


def test_cell_order_maps_the_reference_cells_onto_the_sorted_marginal():
    rng = np.random.default_rng(0)
    records = np.stack([rng.integers(0, s, 500) for s in SHAPE], axis=1)
    listed = (3, 0, 2)                          # the reference's order of the attributes
    ours = np.bincount(np.ravel_multi_index(records[:, [0, 2, 3]].T, (3, 2, 5)), minlength=30)
    reference = np.bincount(np.ravel_multi_index(records[:, list(listed)].T, (5, 3, 2)),
                            minlength=30)
    assert np.array_equal(ours[successors_replay.cell_order(listed, SHAPE)], reference)


def _state_dict(params) -> dict:
    state = {}
    for i, block in enumerate(params["blocks"]):
        state |= {f"sd_seq.{i}.fc.weight": np.asarray(block["w"]).T,
                  f"sd_seq.{i}.fc.bias": np.asarray(block["b"]),
                  f"sd_seq.{i}.norm.weight": np.asarray(block["scale"]),
                  f"sd_seq.{i}.norm.bias": np.asarray(block["shift"])}
    return state | {"sd_seq.2.weight": np.asarray(params["out"]["w"]).T,
                    "sd_seq.2.bias": np.asarray(params["out"]["b"])}


def _write_trace(folder, problem, rounds: int) -> list[dict]:
    """This harness's GEM run written as the reference driver writes a trace, with the
    marginals listed in reversed order and each one's attributes reversed."""
    opts = parse_options(gem.GEMOptions, OPTIONS)
    params, z = gem._initial(problem, opts, generators.jax_key(np.random.default_rng(1)))
    listed = [m[::-1] for m in problem.workload.marginals[::-1]]
    np.savez(folder / "init.npz", z=np.asarray(z), marginals=np.array(listed),
             **_state_dict(params))
    model = gem.GeneratorModel(problem, opts, rounds, params, z)
    rng, offsets = np.random.default_rng(2), problem.workload.offsets
    measurements, cells, log = Measurements(), [], []
    for t, ref in enumerate(rng.permutation(len(listed))[:rounds]):
        w = problem.workload.marginals.index(tuple(sorted(listed[ref])))
        values = np.clip(problem.true_answers[offsets[w]:offsets[w + 1]]
                         + rng.normal(0, 0.02, offsets[w + 1] - offsets[w]), 0, 1)
        measurements.add(w, values)
        cells.append(values[successors_replay.cell_order(listed[ref], SHAPE)])
        steps = model.update(measurements)
        log.append({"marginal": int(ref), "ema": model.ema_error, "steps": [[1, 0.0]] * steps,
                    "true_max": float(np.abs(model.answers() - problem.true_answers).max())})
    np.save(folder / "measurements.npy", np.concatenate(cells))
    (folder / "rounds.json").write_text(json.dumps(log))
    return log


def test_replay_of_a_trace_reproduces_its_rounds(tmp_path):
    problem = _problem()
    log = _write_trace(tmp_path, problem, rounds=3)
    rows = successors_replay.replay(successors_replay.load(tmp_path), problem, 3, OPTIONS)
    assert [r["steps"] for r in rows] == [r["reference_steps"] for r in rows]
    assert sum(r["steps"] for r in rows) > 3
    for row, logged in zip(rows, log):
        assert row["ema"] == pytest.approx(logged["ema"], abs=1e-12)
        assert row["max_error"] == pytest.approx(logged["true_max"], abs=1e-12)
    assert "Same number of Adam steps in 3 of 3 rounds" in successors_replay.table(rows)


def test_a_folder_without_a_trace_is_one_error_naming_the_fix(tmp_path):
    with pytest.raises(ValueError, match="no init.npz, measurements.npy, rounds.json; run"):
        successors_replay.load(tmp_path)


def test_rounding_jitter_moves_weights_by_one_rounding_step_at_most():
    weights = {"w": np.linspace(-3.0, 3.0, 300, dtype=np.float32)}
    moved = np.asarray(successors_replay.rounding_jitter(weights, np.random.default_rng(0))["w"])
    ulps = np.abs(moved.view(np.int32).astype(np.int64) - weights["w"].view(np.int32))
    assert ulps.max() == 1 and 150 < np.count_nonzero(ulps) < 250
