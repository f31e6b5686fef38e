"""The compiled support engine against brute force, against the bincount arithmetic of a cell-id
table, across plans (one table per marginal, super-marginals) and thread counts."""
import numba
import numpy as np
import pytest

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data import public as public_sources
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.data.synthetic import load_synthetic
from pubpriv_core.queries import MarginalWorkload, SupportAnswerer, answer_records, kernels
from pubpriv_core.queries import plan as plan_module
from pubpriv_core.queries.plan import MarginalPlan, cell_budget
from test_queries_engine import brute_force


def random_case(seed: int):
    """A random domain, a workload of mixed k (1..5-way) and a support with absent cells."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 9))
    shape = rng.integers(1, 7, d)
    domain = Domain([f"a{i}" for i in range(d)], shape.tolist())
    ks = rng.integers(1, min(d, 5) + 1, int(rng.integers(1, 12)))
    marginals = {tuple(sorted(rng.choice(d, size=int(k), replace=False).tolist())) for k in ks}
    workload = MarginalWorkload(domain, tuple(sorted(marginals)))
    m = int(rng.integers(1, 400))
    records = np.column_stack([rng.integers(0, s, m) for s in shape])
    return workload, records, rng.random(m)


def cell_table_answers(workload, records, weights) -> np.ndarray:
    """The arithmetic of an (m, W) cell-id table: one row-ordered bincount."""
    ids = workload.cell_ids(records)
    return np.bincount(ids.ravel(), np.repeat(weights, ids.shape[1]), minlength=workload.num_queries)


@pytest.mark.parametrize("seed", range(12))
def test_answers_match_groupby_and_cell_table(seed):
    workload, records, weights = random_case(seed)
    expected = brute_force(Dataset(records, workload.domain), workload, weights)
    table = cell_table_answers(workload, records, weights)
    np.testing.assert_allclose(table, expected, rtol=0, atol=1e-12)
    for budget in (0, 8, 64, 10 ** 6):
        out = np.zeros(workload.num_queries)
        kernels.add_marginals(kernels.compact_codes(records), weights,
                              MarginalPlan.build(workload, budget), out)
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
        if budget == 0:      # one table per marginal: the same floating-point sums
            np.testing.assert_array_equal(out, table)


@pytest.mark.parametrize("seed", range(6))
def test_changes_of_rows_match_recomputation(seed):
    workload, records, weights = random_case(seed)
    rng = np.random.default_rng(100 + seed)
    codes = kernels.compact_codes(records)
    for budget in (0, 32):
        plan = MarginalPlan.build(workload, budget)
        for size in (0, 1, len(records) // 2, len(records)):
            rows = np.sort(rng.choice(len(records), size=size, replace=False))
            values = rng.normal(size=size)
            out = np.zeros(workload.num_queries)
            kernels.add_marginals_of_rows(codes, rows, values, plan, out)
            expected = np.zeros(len(records))
            expected[rows] = values
            np.testing.assert_allclose(
                out, brute_force(Dataset(records, workload.domain), workload, expected),
                rtol=0, atol=1e-12)
            if budget == 0:
                ids = workload.cell_ids(records[rows])
                np.testing.assert_array_equal(out, np.bincount(
                    ids.ravel(), np.repeat(values, ids.shape[1]), minlength=out.size))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("path", ["id table", "cells from codes", "super-marginals",
                                  "super-marginals from codes"])
def test_answerer_answers_and_adds_changes_on_every_path(seed, path, monkeypatch):
    """answer(w) equals the row-ordered bincount and add_changes on y equals y + the bincount of
    the change (bitwise with one table per marginal; to 1e-12 with super-marginals, whose kept
    table cells and cells from the codes give the same bits), own numbering or global, 0 to
    all rows."""
    from pubpriv_core.queries import engine
    if path != "id table":
        monkeypatch.setattr(engine, "ID_TABLE_MAX_ENTRIES", 0)
    if path.startswith("super-marginals"):
        monkeypatch.setattr(plan_module, "GROUPING_MIN_PAIRS", 1)
    if path == "super-marginals from codes":
        monkeypatch.setattr(engine, "TABLE_CELLS_MAX_ENTRIES", 0)
    workload, records, weights = random_case(seed)
    rng = np.random.default_rng(200 + seed)
    table = cell_table_answers(workload, records, weights)
    for present_only in (False, True):
        answerer = SupportAnswerer(workload, records, present_only=present_only)
        assert (answerer._ids is not None) == (path == "id table")
        assert (answerer._position is not None) == (path == "cells from codes")
        assert (answerer._table_cells is not None) == (path == "super-marginals")
        answers = answerer.expand(answerer.answer(weights))
        if path.startswith("super-marginals"):
            out = np.zeros(answerer.num_queries)
            kernels.add_marginals(answerer.codes, weights, answerer.plan, out)
            np.testing.assert_array_equal(answerer.answer(weights), out)
            np.testing.assert_allclose(answers, table, rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(answers, table)
        for size in (0, 1, 2, len(records) // 2, len(records)):
            rows = np.sort(rng.choice(len(records), size=size, replace=False))
            values = rng.normal(size=size)
            y = rng.random(answerer.num_queries)
            ids = workload.cell_ids(records[rows])
            change = np.bincount(ids.ravel(), np.repeat(values, ids.shape[1]),
                                 minlength=workload.num_queries)
            expected = y + (change if answerer.queries is None else change[answerer.queries])
            answerer.add_changes(y, rows, values)
            if path.startswith("super-marginals"):
                np.testing.assert_allclose(y, expected, rtol=0, atol=1e-12)
            else:
                np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("width", [1, 2, 3, 32])
@pytest.mark.parametrize("parallel", [False, True])
def test_blocked_id_table_answers_and_changes_are_the_bincounts(seed, width, parallel,
                                                                monkeypatch):
    """The id table cut in blocks of ``width`` marginals (a ragged last block): answers, on one
    thread or one block per thread, equal a brute-force groupby (1e-12; absent cells 0) and,
    like added changes, the row-ordered bincounts bitwise, through both ways of flushing a
    block's sums (the rows' ids again, or the block's whole id range); the scratch sums are
    left zeroed."""
    from pubpriv_core.queries import engine
    monkeypatch.setattr(engine, "ID_BLOCK_MARGINALS", width)
    if parallel:
        monkeypatch.setattr(kernels, "PARALLEL_MIN_ID_PAIRS", 0)
    workload, records, weights = random_case(seed)
    rng = np.random.default_rng(300 + seed)
    expected = brute_force(Dataset(records, workload.domain), workload, weights)
    for present_only in (False, True):
        answerer = SupportAnswerer(workload, records, present_only=present_only)
        answers = answerer.expand(answerer.answer(weights))
        np.testing.assert_allclose(answers, expected, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(answers, cell_table_answers(workload, records, weights))
    assert answerer._id_bounds.size == -(-workload.num_marginals // width) + 1
    for size in (0, 1, 2, 5, len(records) // 3, len(records)):
        rows = np.sort(rng.choice(len(records), size=size, replace=False))
        values = rng.normal(size=size)
        y = rng.random(answerer.num_queries)
        ids = answerer.cell_ids(rows)
        expected = y + np.bincount(ids.ravel(), np.repeat(values, ids.shape[1]),
                                   minlength=y.size)
        answerer.add_changes(y, rows, values)
        np.testing.assert_array_equal(y, expected)
        assert not answerer._scratch.any()


@pytest.mark.parametrize("sizes, narrow", [((40, 40, 40, 3), np.uint16),
                                           ((50, 50, 30, 2), np.int32)])
def test_id_blocks_are_16_bit_offsets_when_each_marginal_fits(sizes, narrow):
    """Blocks end before they span more than 2^16 query ids, so each block's ids are 16-bit
    offsets from its first (64,000 cells per marginal: one marginal a block); a marginal of
    75,000 cells keeps 32-bit offsets. Answers and added changes stay the row-ordered bincounts
    bitwise."""
    rng = np.random.default_rng(sum(sizes))
    domain = Domain(["a", "b", "c", "d"], list(sizes))
    workload = MarginalWorkload.random(domain, 3)
    records = np.column_stack([rng.integers(0, s, 600) for s in sizes])
    weights = rng.random(len(records))
    answerer = SupportAnswerer(workload, records)
    assert answerer._ids.dtype == narrow
    spans = answerer._id_spans
    assert (spans[:, 1] - spans[:, 0] <= 2 ** 16).all() or narrow == np.int32
    np.testing.assert_array_equal(answerer.answer(weights),
                                  cell_table_answers(workload, records, weights))
    rows = np.sort(rng.choice(len(records), size=50, replace=False))
    values = rng.normal(size=rows.size)
    y = rng.random(answerer.num_queries)
    ids = answerer.cell_ids(rows)
    expected = y + np.bincount(ids.ravel(), np.repeat(values, ids.shape[1]), minlength=y.size)
    answerer.add_changes(y, rows, values)
    np.testing.assert_array_equal(y, expected)


def test_answer_records_sums_in_blocks_of_rows():
    """Large inputs are summed in blocks of 65,536 rows, block sums added in order."""
    rng = np.random.default_rng(3)
    domain = Domain(["a", "b", "c"], [3, 4, 2])
    workload = MarginalWorkload.random(domain, 2)
    records = np.column_stack([rng.integers(0, s, 150_000) for s in domain.shape])
    weights = rng.random(len(records))
    expected = np.zeros(workload.num_queries)
    for lo in range(0, len(records), 65_536):
        expected += cell_table_answers(workload, records[lo:lo + 65_536],
                                       weights[lo:lo + 65_536])
    np.testing.assert_array_equal(answer_records(workload, records, weights), expected)


@pytest.mark.parametrize("last", [63, 64, 65])
def test_narrow_cell_ids_are_exact_at_the_type_boundary(last):
    """4-way tables of 8·8·8·last cells: 2^15 − 512, 2^15 (16-bit ids) and 2^15 + 512 (32-bit)
    cells; rows in the top cells sum exactly as the 64-bit bincount of a cell-id table."""
    domain = Domain(["a", "b", "c", "d"], [8, 8, 8, last])
    workload = MarginalWorkload(domain, ((0, 1, 2, 3), (1, 2, 3)))
    rng = np.random.default_rng(last)
    records = np.column_stack([rng.integers(0, s, 300) for s in domain.shape])
    records[:5] = [7, 7, 7, last - 1]
    weights = rng.random(len(records))
    plan = MarginalPlan.build(workload, 0)
    assert kernels.cell_dtype(plan.cells) == (np.int16 if last <= 64 else np.int32)
    out = np.zeros(workload.num_queries)
    kernels.add_marginals(kernels.compact_codes(records), weights, plan, out)
    np.testing.assert_array_equal(out, cell_table_answers(workload, records, weights))
    assert out[8 * 8 * 8 * last - 1] == weights[:5].sum()


@pytest.mark.parametrize("seed", range(6))
def test_kept_table_cells_give_the_sums_of_the_codes_on_one_or_all_cores(seed, monkeypatch):
    """add_marginals_by_cells on table_cells(codes, plan) equals add_marginals bitwise, for one
    table per marginal and for super-marginals, serial and parallel; the seeds' plans have odd
    and even numbers of tables and a single one (the kernel fills two tables per sweep)."""
    workload, records, weights = random_case(seed)
    codes = kernels.compact_codes(records)
    for budget in (0, 8, 64):
        plan = MarginalPlan.build(workload, budget)
        cells = kernels.table_cells(codes, plan)
        assert cells.shape == (plan.num_tables, len(records))
        expected = np.zeros(workload.num_queries)
        kernels.add_marginals(codes, weights, plan, expected)
        for parallel_min in (kernels.PARALLEL_MIN_PAIRS, 0):
            monkeypatch.setattr(kernels, "PARALLEL_MIN_PAIRS", parallel_min)
            out = np.zeros(workload.num_queries)
            kernels.add_marginals_by_cells(cells, weights, plan, out)
            np.testing.assert_array_equal(out, expected)


def test_threads_do_not_change_answers():
    workload, records, weights = random_case(4)
    plan = MarginalPlan.build(workload, 32)
    codes = kernels.compact_codes(records)
    results = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        out = np.zeros(workload.num_queries)
        kernels.add_marginals(codes, weights, plan, out)
        results.append(out)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    np.testing.assert_array_equal(*results)


def test_rows_of_tiny_empty_and_absent_queries():
    rng = np.random.default_rng(9)
    domain = Domain(["a", "b", "c", "d"], [5, 3, 4, 2])
    workload = MarginalWorkload.random(domain, 3)
    records = np.column_stack([rng.integers(0, s, 30) for s in domain.shape])
    full = SupportAnswerer(workload, records)
    compact = SupportAnswerer(workload, records, present_only=True)
    counts = cell_table_answers(workload, records, np.ones(len(records)))
    np.testing.assert_array_equal(compact.queries, np.flatnonzero(counts))
    assert (counts == 0).any() and (counts == 1).any()
    for q in range(workload.num_queries):
        expected = np.flatnonzero(workload.indicator(q, records))
        np.testing.assert_array_equal(full.rows_of(q), expected)
        assert expected.size == counts[q]
    for own, q in enumerate(compact.queries):
        np.testing.assert_array_equal(compact.rows_of(own), full.rows_of(int(q)))


def test_plan_covers_every_marginal_once_within_budget():
    workload = MarginalWorkload.random(load_synthetic("adult", n=10).domain, 3, 200, 1)
    for budget in (0, 500, 4096):
        plan = MarginalPlan.build(workload, budget)
        table = plan.pair_table
        owner = np.full(workload.num_queries, -1)
        for g in range(plan.num_tables):      # each query is fed by exactly one table
            targets = np.unique(plan.dst[table == g])
            assert (owner[targets] == -1).all()
            owner[targets] = g
        assert (owner >= 0).all()
        grouped = np.diff(plan.pair_start) > plan.cells
        assert (plan.cells[grouped] <= budget).all()
        assert plan.num_tables == workload.num_marginals if budget == 0 else \
            plan.num_tables < workload.num_marginals


def test_cell_budget_groups_only_large_passes(monkeypatch):
    workload = MarginalWorkload.random(Domain(["a", "b", "c", "d"], [2] * 4), 2)
    assert cell_budget(1000, workload) == 0
    monkeypatch.setattr(plan_module, "GROUPING_MIN_PAIRS", 10)
    assert cell_budget(1000, workload) == 1000 // plan_module.TABLE_ROWS_RATIO
    assert cell_budget(10 ** 6, workload) == plan_module.MAX_TABLE_CELLS


#: queries selected by PMW^Pub (seed 5) on this problem with the (m, W) cell-id table engine
SELECTED_BY_CELL_TABLE_ENGINE = [742, 535, 14, 269, 44, 644, 812, 278, 44, 60, 260, 679, 539, 437,
                                 653, 148, 540, 562, 844, 214, 409, 153, 796, 217, 545, 204, 759,
                                 616, 300, 747]


def test_fixed_seed_pmwpub_selects_the_same_queries():
    private = load_synthetic("small", role="private", n=3000, shift=0.3, seed=1)
    source = public_sources.from_dataset(load_synthetic("small", role="public", n=800, shift=0.3,
                                                        seed=1))
    workload = MarginalWorkload.random(private.domain, 3, 40, 2)
    problem = ReleaseProblem(private, workload, public_support=source.support.records,
                             public_weights=source.weights, public_rows=source.n_rows)
    release = run_algorithm("pmwpub", problem, eps=0.5, delta=1e-6, T=30,
                            rng=np.random.default_rng(5))
    assert release.trace["queries"] == SELECTED_BY_CELL_TABLE_ENGINE
    assert release.errors(problem.true_answers)["max_error"] == pytest.approx(0.12921667280765525,
                                                                              abs=1e-12)


def _large_pass(codes, plan, size):
    out = np.zeros(size)
    kernels.add_marginals(codes, np.ones(codes.shape[1]), plan, out)
    return out


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")   # JAX's, when its tests ran first
def test_parallel_passes_survive_fork_and_python_threads():
    """The parallel kernels run in a forked child after the parent used them, and from several
    Python threads at once (calls are serialised), with the same answers."""
    import multiprocessing
    import threading

    domain = Domain([f"a{i}" for i in range(10)], [3] * 10)
    workload = MarginalWorkload.random(domain, 3)
    records = np.random.default_rng(0).integers(0, 3, (50_000, 10))
    codes, plan = kernels.compact_codes(records), MarginalPlan.build(workload)
    assert len(records) * plan.num_tables >= kernels.PARALLEL_MIN_PAIRS
    expected = _large_pass(codes, plan, workload.num_queries)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        child = pool.apply(_large_pass, (codes, plan, workload.num_queries))
    np.testing.assert_array_equal(child, expected)
    results = []
    threads = [threading.Thread(target=lambda: results.append(
        _large_pass(codes, plan, workload.num_queries))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 3
    for result in results:
        np.testing.assert_array_equal(result, expected)
