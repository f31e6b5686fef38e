"""What bounds PMW^Pub's full answer pass at points of the scale grid.

A round of PMW^Pub at the grid's larger points is mostly one full answer pass
(:meth:`~pubpriv_core.queries.SupportAnswerer.answer`, ``pass_s`` in ``scaling.csv``). The pass
reads an index row by row (:meth:`~pubpriv_core.queries.SupportAnswerer.pass_index`: the rows'
query ids on small supports, their kept cells in the plan's super-marginal tables on large
ones) and adds each row's weight into one cell per marginal or table. Set beside each other on
the point's own support and workload (``acs_full`` public rows drawn as the ``scale`` benchmark
draws them, W random 3-way marginals, weights those of the public source), one line per point:

* ``pass_s``: one pass as the engine runs it (on all cores from
  :data:`~pubpriv_core.queries.kernels.PARALLEL_MIN_ID_PAIRS` or ``PARALLEL_MIN_PAIRS``
  additions, else on one), median of the repeats; ``pass_one_s`` with numba held to one thread;
* ``stream_s``: one read of the same index on all cores, each entry summed into an integer —
  what the pass would take if fetching its index from memory were all it did;
* ``ns_per_addition``: ``pass_one_s`` ÷ additions, the cost of one addition on one core.

A pass far above ``stream_s`` is bound by its additions (each a load and a store of a table cell
the row picks), not by memory bandwidth.

    python scripts/bench.py pass [--points 130000x4096,16000x256,64000x256] [--repeats 9]
"""
from __future__ import annotations

import argparse
import os

import numba
import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import median_seconds

#: entries of the index summed per task of the stream
_STREAM_BLOCK = 1 << 20


@numba.njit(parallel=True, cache=True)
def _stream(flat):  # pragma: no cover
    """Σ of the integer entries of ``flat``, in blocks on all cores: one read of an index."""
    blocks = (flat.size + _STREAM_BLOCK - 1) // _STREAM_BLOCK
    sums = np.zeros(blocks, dtype=np.int64)
    for b in numba.prange(blocks):
        part = flat[b * _STREAM_BLOCK:(b + 1) * _STREAM_BLOCK]    # a view: the loop vectorises
        total = 0
        for x in range(part.size):
            total += part[x]
        sums[b] = total
    return sums.sum()


def answerer(rows: int, W: int):
    """PMW^Pub's public answerer and weights at grid point (``rows`` drawn public rows, W)."""
    from experiments.release.bench.scale import grid_workload, public_source
    from pubpriv_core.queries import SupportAnswerer

    source = public_source(rows)
    workload = grid_workload(source.support.domain, W)
    return (SupportAnswerer(workload, source.support.records, present_only=True),
            np.ascontiguousarray(source.weights, dtype=np.float64))


def measure(rows: int, W: int, repeats: int) -> dict:
    """The pass, its index stream and the additions at one grid point (module docstring)."""
    engine, weights = answerer(rows, W)
    path, index, additions = engine.pass_index()
    flat = np.ascontiguousarray(index).reshape(-1)
    threads = numba.get_num_threads()
    pass_s = median_seconds(lambda: engine.answer(weights), repeats)
    stream_s = median_seconds(lambda: _stream(flat), repeats)
    numba.set_num_threads(1)
    try:
        pass_one_s = median_seconds(lambda: engine.answer(weights), repeats)
    finally:
        numba.set_num_threads(threads)
    return {"rows_drawn": rows, "support": engine.size, "W": W, "path": path,
            "index_mb": flat.nbytes / 1e6, "additions": additions, "threads": threads,
            "pass_s": pass_s, "pass_one_s": pass_one_s, "stream_s": stream_s,
            "ns_per_addition": pass_one_s / additions * 1e9}


def line(m: dict) -> str:
    """One printed line of a measurement."""
    return (f"support {m['support']:>7,}  W {m['W']:>5}  {m['path']:<11}  "
            f"{m['additions'] / 1e6:7.1f}M additions  index {m['index_mb']:6.1f} MB  "
            f"pass {m['pass_s'] * 1e3:7.2f} ms as the engine runs it, "
            f"{m['pass_one_s'] * 1e3:7.2f} ms on one thread ({m['ns_per_addition']:.2f} ns "
            f"per addition)  index stream {m['stream_s'] * 1e3:6.2f} ms on "
            f"{m['threads']} cores (pass / stream {m['pass_s'] / m['stream_s']:.1f})")


def points(text: str) -> list[tuple[int, int]]:
    """``ROWSxW,ROWSxW`` as pairs of positive integers (argparse makes the error one line)."""
    try:
        pairs = [tuple(int(v) for v in item.split("x")) for item in text.split(",")]
    except ValueError:
        pairs = []
    if not pairs or any(len(p) != 2 or min(p) < 1 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected ROWSxW pairs such as 130000x4096,16000x256, "
                                         f"got {text!r}")
    return pairs


def run(pairs: list[tuple[int, int]], repeats: int) -> None:
    """One line per point, then the load average."""
    for rows, W in pairs:
        print(line(measure(rows, W, repeats)), flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=points, default="130000x4096,16000x256,64000x256")
    parser.add_argument("--repeats", type=positive_int, default=9)
    args = parser.parse_args(argv)
    run_or_fail(run, args.points, args.repeats)
