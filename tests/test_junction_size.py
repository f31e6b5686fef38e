"""JT-SIZE (AIM Alg. 2 line 13) on attribute bitsets equals ``mbi``'s junction-tree size exactly,
and AIM and JAM-PGM select the same cliques with it as with ``mbi``'s own function."""
import numpy as np
import pytest

from pubpriv_core.algorithms import junction_size, pgm

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data import from_dataset, load_dataset
from pubpriv_core.queries import MarginalWorkload

mbi = pgm.mbi   # imported by pgm after the JAX settings it checks
hypothetical_model_size = mbi.junction_tree.hypothetical_model_size


def reference_sizes(domain, cliques, candidates) -> np.ndarray:
    return np.array([hypothetical_model_size(domain, [*cliques, r]) for r in candidates],
                    dtype=float)


def random_domain(rng, d: int) -> "mbi.Domain":
    """Sizes from a small set, so that greedy costs tie often."""
    sizes = rng.choice([1, 2, 2, 3, 3, 4, 6], size=d) if rng.random() < 0.5 else \
        np.full(d, rng.integers(2, 5))
    return mbi.Domain([f"x{i}" for i in range(d)], [int(s) for s in sizes])


def random_cliques(rng, domain, count: int) -> list[tuple]:
    """``count`` cliques of 1–4 attributes drawn from a random subset of the attributes (the
    others stay disconnected); attribute order within a clique shuffled."""
    attrs = list(domain.attributes)
    used = rng.choice(attrs, size=rng.integers(1, len(attrs) + 1), replace=False)
    cliques = []
    for _ in range(count):
        k = int(rng.integers(1, min(4, len(used)) + 1))
        cliques.append(tuple(str(a) for a in rng.choice(used, size=k, replace=False)))
    return cliques


def random_tree(rng, domain) -> list[tuple]:
    """The d − 1 edges of a random spanning tree (``mbi`` eliminates those in DFS post-order)."""
    attrs = list(domain.attributes)
    order = rng.permutation(len(attrs))
    return [(attrs[order[i]], attrs[order[int(rng.integers(0, i))]])
            for i in range(1, len(attrs))]


def test_random_clique_sets_match_mbi_exactly():
    rng = np.random.default_rng(0)
    kinds = {"tree": 0, "general": 0}
    for case in range(2400):
        d = int(rng.integers(1, 10))
        domain = random_domain(rng, d)
        if case % 6 == 0 and d > 1:
            cliques = random_tree(rng, domain)
            kinds["tree"] += 1
        else:
            cliques = random_cliques(rng, domain, int(rng.integers(0, 7)))
            kinds["general"] += 1
        assert pgm.model_size_mb(domain, cliques) == hypothetical_model_size(domain, cliques), \
            (domain, cliques)
    assert min(kinds.values()) >= 300


def test_candidate_batches_match_mbi_exactly():
    rng = np.random.default_rng(1)
    for _ in range(150):
        domain = random_domain(rng, int(rng.integers(2, 9)))
        cliques = random_cliques(rng, domain, int(rng.integers(0, 5)))
        candidates = random_cliques(rng, domain, 8)
        np.testing.assert_array_equal(
            junction_size.sizes_with_each(domain, cliques, candidates),
            reference_sizes(domain, cliques, candidates))


def test_ties_and_isolated_attributes_follow_mbi_order():
    """Equal sizes everywhere: every greedy step is a tie broken by domain order; a singleton
    clique makes its attribute cost its size, an attribute in no clique costs 1."""
    domain = mbi.Domain(list("abcdefg"), [3] * 7)
    sets = [[("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")],
            [("a", "b", "c"), ("c", "d", "e"), ("e", "f", "a")],
            [("g",), ("a", "c"), ("c", "e"), ("e", "a"), ("b", "d")],
            [("f",), ("g",)], [], [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f"),
                                   ("f", "g")]]
    for cliques in sets:
        assert pgm.model_size_mb(domain, cliques) == hypothetical_model_size(domain, cliques)


def test_fallback_to_mbi_beyond_int64():
    domain = mbi.Domain([f"x{i}" for i in range(8)], [300] * 8)   # 8 · 300⁸ > 2⁶²
    assert not junction_size._fast(domain)
    cliques = [("x0", "x1"), ("x1", "x2", "x3"), ("x5",)]
    assert pgm.model_size_mb(domain, cliques) == hypothetical_model_size(domain, cliques)


def test_inside_any_matches_subset_tests_within_and_beyond_int64_bitsets():
    rng = np.random.default_rng(3)
    for d in (6, 70):     # 70 attributes: Python integers instead of the compiled bitsets
        domain = mbi.Domain([f"x{i}" for i in range(d)], [2] * d)
        cliques = random_cliques(rng, domain, 5)
        # each clique's first attribute is inside; all attributes together are outside
        candidates = (random_cliques(rng, domain, 40) + [c[:1] for c in cliques]
                      + [tuple(domain.attributes)])
        expected = [any(set(r) <= set(c) for c in cliques) for r in candidates]
        np.testing.assert_array_equal(junction_size.inside_any(domain, cliques, candidates),
                                      expected)
        assert 0 < sum(expected) < len(expected)


def workload_check(domain, workload_cliques, candidates, prefixes):
    for size in prefixes:
        np.testing.assert_array_equal(
            junction_size.sizes_with_each(domain, workload_cliques[:size], candidates),
            reference_sizes(domain, workload_cliques[:size], candidates))


def test_nist_reduced_workload_matches_mbi(nist_root):
    private = load_dataset("nist_acs", region="ma", year=2019, reduced=True)
    workload = pgm.workload_cliques(MarginalWorkload.random(private.domain, 3, None, 0))
    candidates = pgm.downward_closure(workload, private.domain)
    order = np.random.default_rng(2).permutation(len(workload))
    shuffled = [workload[i] for i in order]
    workload_check(pgm.to_mbi(private.domain), shuffled, candidates, [0, 1, 2, 4, 8])


def test_adult_workload_matches_mbi(adult):
    workload = pgm.workload_cliques(MarginalWorkload.random(adult.domain, 3, 256, 0))
    candidates = pgm.downward_closure(workload, adult.domain)
    workload_check(pgm.to_mbi(adult.domain), workload, candidates, [0, 1, 3, 6])


def within_limit_by_mbi(domain, cliques, candidates, limit_mb):
    """The filter as written with ``mbi``'s own size function."""
    return np.array([any(set(r) <= set(c) for c in cliques)
                     or hypothetical_model_size(domain, [*cliques, r]) <= limit_mb
                     for r in candidates], dtype=bool)


def tiny_problem(attributes: int) -> ReleaseProblem:
    names = [f"a{i}" for i in range(attributes)]
    private = load_dataset("synthetic", preset="tiny").project(names)
    workload = MarginalWorkload.random(private.domain, 3, None, 0)
    public = from_dataset(load_dataset("synthetic", preset="tiny", role="public", shift=1.0,
                                       seed=7).project(names))
    return ReleaseProblem(private, workload, public.support.records, public.weights,
                          public.n_rows)


CELL_MB = 8 / 2 ** 20


@pytest.mark.parametrize("algo, options", [
    ("aim", {"rounds": 12, "iters": 30, "final_iters": 30, "max_model_size": 43 * CELL_MB}),
    ("jam_pgm", {"rounds": 6, "iters": 30, "final_iters": 30, "max_model_size": 120 * CELL_MB}),
])
def test_runs_identical_with_mbi_size_filter(monkeypatch, algo, options):
    """Same selections, ledger and answers with the filter on ``mbi``'s function (the tiny
    domain's largest workload marginal has 36 cells, its joint table 144); the size limit must
    bind (reject some candidate) for the comparison to mean anything."""
    problem = tiny_problem(5)
    fast = junction_size.within_limit
    rejected = []

    def checked(domain, cliques, candidates, limit_mb):
        keep = fast(domain, cliques, candidates, limit_mb)
        np.testing.assert_array_equal(
            keep, within_limit_by_mbi(domain, list(cliques), candidates, limit_mb))
        rejected.append(int((~keep).sum()))
        return keep

    def run():
        return run_algorithm(algo, problem, eps=2.0, delta=1e-6, T=1,
                             rng=np.random.default_rng(3), **options)

    monkeypatch.setattr(junction_size, "within_limit", checked)
    with_fast = run()
    monkeypatch.setattr(junction_size, "within_limit", within_limit_by_mbi)
    with_mbi = run()
    assert sum(rejected) > 0
    assert with_fast.trace["selected"] == with_mbi.trace["selected"]
    assert with_fast.privacy.charges == with_mbi.privacy.charges
    np.testing.assert_array_equal(with_fast.answers, with_mbi.answers)


def test_jam_pgm_limit_leaving_no_first_candidate_is_a_one_line_error():
    """36 cells pass the one-marginal check, but the first round's MAX-SIZE/T = 6 cells is
    below JT-SIZE of any single candidate (the 14 one-way cells at least)."""
    with pytest.raises(ValueError) as info:
        run_algorithm("jam_pgm", tiny_problem(5), eps=1.0, delta=1e-6, T=1,
                      rng=np.random.default_rng(0), rounds=6, max_model_size=36 * CELL_MB)
    message = str(info.value)
    assert "leaves no candidate within the first round's limit" in message
    assert "\n" not in message
