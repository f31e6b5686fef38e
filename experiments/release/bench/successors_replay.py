"""A traced run of the authors' GEM replayed in this harness's GEM update, round by round.

The reference run (:mod:`experiments.release.bench.successors_reference` with ``--trace``) fixes
everything random in GEM: the generator's initial weights and noise z, the marginal selected by
the exponential mechanism in each round and its noisy measurement. Given these, a round's update
is deterministic (Liu, Vietri & Wu 2021, §4.2: Adam steps on the measured cells above half the
error EMA), so two codes that implement the same update must take the same number of Adam steps
in every round and reach the same true max error. :func:`replay` runs
:class:`~pubpriv_core.algorithms.gem.GeneratorModel` from the trace's weights on the trace's
measurements and returns both codes' per-round numbers; what it checks is the update alone (the
selection and measurement laws are the harness' mechanisms, tested on their own).

Layouts: the reference's linear layers store W as (out, in), this harness's as (in, out); its
query manager lists each marginal's attributes in its own order (cells in C order over that
order), this harness's marginals are sorted attribute tuples (C order over them).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from pubpriv_core.algorithms import gem
from pubpriv_core.algorithms.adaptive_measurements import Measurements
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.algorithms.select_measure import parse_options

#: the reference's generator: two residual blocks then the output layer (``seq.0``, ``seq.1``,
#: ``seq.2`` of its ``GenerativeNetwork``)
BLOCKS = 2
FILES = ("init.npz", "measurements.npy", "rounds.json")


class Trace(NamedTuple):
    """A traced reference run: its initial state, measurements and per-round log."""

    state: dict[str, np.ndarray]    # the generator's state dict (PyTorch names)
    z: np.ndarray                   # (K, embedding)
    marginals: list[tuple[int, ...]]  # the query manager's marginals, its attribute order
    measurements: np.ndarray        # every measured cell, in measurement order
    rounds: list[dict]              # marginal, ema, steps [[cells, loss], ...], true_max


def missing_files(folder: Path) -> list[str]:
    """The trace files (:data:`FILES`) that ``folder`` lacks."""
    return [name for name in FILES if not (folder / name).is_file()]


def load(folder: Path) -> Trace:
    """The trace written by the reference driver's ``--trace folder``."""
    missing = missing_files(folder)
    if missing:
        raise ValueError(f"{folder} has no {', '.join(missing)}; run "
                         "scripts/bench.py successors replay with --checkout to trace the "
                         "reference first")
    init = np.load(folder / "init.npz")
    state = {k[3:]: init[k] for k in init.files if k.startswith("sd_")}
    marginals = [tuple(int(a) for a in m) for m in init["marginals"]]
    return Trace(state, init["z"], marginals, np.load(folder / "measurements.npy"),
                 json.loads((folder / "rounds.json").read_text()))


def generator_params(state: dict[str, np.ndarray]) -> dict:
    """The reference generator's weights as this harness's parameter tree."""
    def array(name):
        return jnp.asarray(state[name], jnp.float32)

    blocks = [{"w": array(f"seq.{i}.fc.weight").T, "b": array(f"seq.{i}.fc.bias"),
               "scale": array(f"seq.{i}.norm.weight"), "shift": array(f"seq.{i}.norm.bias")}
              for i in range(BLOCKS)]
    return {"blocks": blocks, "out": {"w": array(f"seq.{BLOCKS}.weight").T,
                                      "b": array(f"seq.{BLOCKS}.bias")}}


def cell_order(attributes: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
    """For each cell of the marginal on ``attributes`` (cells in C order over the attributes
    as listed), its index within this harness's marginal on ``sorted(attributes)``."""
    ordered = tuple(sorted(attributes))
    local = np.arange(int(np.prod([shape[a] for a in ordered]))).reshape(
        [shape[a] for a in ordered])
    return np.transpose(local, [ordered.index(a) for a in attributes]).ravel()


class Layout:
    """The reference's marginals and cells mapped onto a harness workload."""

    def __init__(self, problem: ReleaseProblem, marginals: list[tuple[int, ...]]):
        workload = problem.workload
        index = {m: w for w, m in enumerate(workload.marginals)}
        unknown = [m for m in marginals if tuple(sorted(m)) not in index]
        if unknown:
            raise ValueError(f"the trace's marginal {unknown[0]} is not in the workload; "
                             "replay on the problem the reference ran")
        self.workload_index = [index[tuple(sorted(m))] for m in marginals]
        self.orders = [cell_order(m, workload.domain.shape) for m in marginals]

    def measurement(self, marginal: int, values: np.ndarray) -> tuple[int, np.ndarray]:
        """(harness marginal, its cells) of the reference's ``marginal`` measured as
        ``values``."""
        cells = np.empty(values.size)
        cells[self.orders[marginal]] = values
        return self.workload_index[marginal], cells


def rounding_jitter(params: dict, rng: np.random.Generator) -> dict:
    """Each weight moved to the next float32 value below or above it, or kept (1/3 each): a
    change of one rounding step, to see how far rounding alone moves a run."""
    def move(leaf):
        values = np.asarray(leaf, np.float32)
        side = rng.integers(-1, 2, values.shape)
        target = np.where(side > 0, np.inf, -np.inf).astype(np.float32)
        return jnp.asarray(np.where(side == 0, values, np.nextafter(values, target)))

    return jax.tree_util.tree_map(move, params)


def replay(trace: Trace, problem: ReleaseProblem, T: int, options: dict,
           jitter: np.random.Generator | None = None) -> list[dict]:
    """Both codes' numbers per traced round: Adam steps taken, error EMA before the steps,
    true max error after them (this harness: over ``problem.true_answers``). With ``jitter``,
    this harness starts from the trace's weights under :func:`rounding_jitter`."""
    opts = parse_options(gem.GEMOptions, options)
    params = generator_params(trace.state)
    if jitter is not None:
        params = rounding_jitter(params, jitter)
    model = gem.GeneratorModel(problem, opts, T, params, jnp.asarray(trace.z, jnp.float32))
    layout = Layout(problem, trace.marginals)
    measurements, start, rows = Measurements(), 0, []
    for t, logged in enumerate(trace.rounds):
        size = layout.orders[logged["marginal"]].size
        measurements.add(*layout.measurement(logged["marginal"],
                                             trace.measurements[start:start + size]))
        start += size
        steps = model.update(measurements)
        error = float(np.abs(model.answers() - problem.true_answers).max())
        rows.append({"round": t + 1, "steps": steps, "reference_steps": len(logged["steps"]),
                     "ema": model.ema_error, "reference_ema": logged["ema"],
                     "max_error": error, "reference_max_error": logged["true_max"]})
    return rows


def table(rows: list[dict]) -> str:
    """Markdown: per round both codes' steps, EMA and true max error; then the summary."""
    lines = ["| round | Adam steps (this / reference) | error EMA (this / reference) | "
             "true max error (this / reference) |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['round']} | {r['steps']} / {r['reference_steps']} | "
                     f"{r['ema']:.5f} / {r['reference_ema']:.5f} | "
                     f"{r['max_error']:.5f} / {r['reference_max_error']:.5f} |")
    same = sum(r["steps"] == r["reference_steps"] for r in rows)
    gap = max(abs(r["max_error"] - r["reference_max_error"]) for r in rows)
    lines += ["", f"Same number of Adam steps in {same} of {len(rows)} rounds; largest "
              f"difference of the true max error after a round: {gap:.2e}."]
    return "\n".join(lines)
