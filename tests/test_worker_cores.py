"""Sweep workers held to disjoint cores (opt-in), and the cores each record was computed on."""
import json
import multiprocessing
import os

import pytest

from experiments.release.running import worker_cores
from experiments.release.running.store import ResultsStore
from experiments.release.running.sweep import compose_jobs, run_group, run_sweep
from experiments.release.running.worker_cores import claim, core_sets, core_slots

CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two = pytest.mark.skipif(len(CORES) < 2, reason="needs two cores and sched_setaffinity")


def test_core_sets_split_the_cores_into_disjoint_runs():
    assert core_sets(2, [0, 1, 2, 3]) == [(0, 1), (2, 3)]
    assert core_sets(3, [3, 0, 2, 1]) == [(0, 1), (2,), (3,)]
    assert core_sets(4, [0, 1, 2, 3]) == [(0,), (1,), (2,), (3,)]


@pytest.mark.parametrize("jobs", [1, 5, 0, -1])
def test_no_sets_for_one_worker_or_more_workers_than_cores(jobs):
    assert core_sets(jobs, [0, 1, 2, 3]) == []


def _hold_a_slot(slots, barrier, out):
    """In a fresh process: claim a slot as a sweep worker does (``run_group`` with no tasks), wait
    until the other worker holds one too, report the cores and numba's threads."""
    import numba

    run_group([], slots)
    barrier.wait(timeout=60)
    out.put((tuple(sorted(os.sched_getaffinity(0))), numba.get_num_threads()))
    barrier.wait(timeout=60)


@needs_two
def test_two_workers_hold_different_slots():
    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(2), context.Queue()
    with core_slots(2) as slots:
        workers = [context.Process(target=_hold_a_slot, args=(slots, barrier, out))
                   for _ in range(2)]
        for worker in workers:
            worker.start()
        held = sorted(out.get(timeout=120) for _ in workers)
        for worker in workers:
            worker.join(timeout=60)
    sets = core_sets(2)
    assert [cores for cores, _ in held] == sets
    assert [threads for _, threads in held] == [len(cores) for cores in sets]


def _claim_and_give_back(slots, out):
    first = claim(slots)
    pinned = tuple(sorted(os.sched_getaffinity(0)))
    claim(None)
    out.put((first, pinned, tuple(sorted(os.sched_getaffinity(0))), worker_cores._HELD))


@needs_two
def test_a_worker_gives_its_slot_back_and_returns_to_its_cores():
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    with core_slots(2) as slots:
        worker = context.Process(target=_claim_and_give_back, args=(slots, out))
        worker.start()
        first, pinned, after, held = out.get(timeout=120)
        worker.join(timeout=60)
    assert first == pinned == core_sets(2)[0]
    assert after == tuple(CORES) and held is None


def _tiny(folder):
    return ["dataset=synthetic", "dataset.preset=tiny", "public=resample", "T=3", "runs=2",
            f"results_dir={folder}", "workload.size=4", "progress=false"]


@needs_two
@pytest.mark.parametrize("pin", [True, False])
def test_records_say_how_many_cores_their_worker_saw(tmp_path, pin):
    run_sweep(compose_jobs([_tiny(tmp_path)]), n_jobs=2, pin=pin, log=lambda _: None)
    cores = {json.loads(p.read_text())["cores"] for p in ResultsStore(tmp_path).paths()}
    assert cores == ({len(s) for s in core_sets(2)} if pin else {len(CORES)})
