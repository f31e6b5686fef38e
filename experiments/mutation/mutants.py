"""The hand-written one-line mutants of the privacy paths: each replaces one fragment on one
line of a privacy path of :mod:`pubpriv_core` by a change that breaks its privacy (a sensitivity,
a charge, noise or the data a step may read), and names the flow tests of the algorithms it
touches. :mod:`experiments.mutation.oneline` applies them and runs the tests.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    id: str
    path: str
    old: str
    new: str
    what: str
    keyword: str | None = None     # the flow tests' ``-k`` (default: KEYWORDS of the file)


MUTANTS = [
    # mutants that pass the tests other than the flow tests
    Mutant("M1", "pubpriv_core/algorithms/jam_pgm.py",
           "self.measurements.add(clique, self.data.public(clique), 1.0)",
           "self.measurements.add(clique, self.data.private(clique), 1.0)",
           "JAM-PGM's public pick adds the private marginal (no noise, no charge)"),
    Mutant("M2", "pubpriv_core/algorithms/aim.py",
           "moved = np.abs(pgm.ModelMarginals(self.model)(clique) - before).sum()",
           "moved = np.abs(self.data.private(clique) - before).sum()",
           "AIM anneals on the raw private marginal instead of the model's change"),
    Mutant("M3", "pubpriv_core/algorithms/mst.py",
           "weight = {p: np.abs(data.private(p) - marginals(p)).sum() for p in pairs}",
           "weight = {p: 2 * np.abs(data.private(p) - marginals(p)).sum() for p in pairs}",
           "MST's edge scores doubled (sensitivity 4, calibrated 2)"),
    Mutant("M4", "pubpriv_core/algorithms/jam_pgm.py",
           "public = [self.public_error[r] for r in eligible]",
           "public = [2 * self.public_error[r] for r in eligible]",
           "JAM-PGM's public-score bias doubled (sensitivity 6, calibrated 4)"),
    # further mutants of the privacy paths
    Mutant("M5", "pubpriv_core/algorithms/aim.py",
           "self.private.add(clique, noisy, self.sigma)",
           "self.private.add(clique, self.data.private(clique), self.sigma)",
           "AIM fits the exact marginal it just measured"),
    Mutant("M6", "pubpriv_core/algorithms/aim.py",
           "self.relation.marginal_l1 * weights.max(),",
           "self.relation.marginal_l1 * weights.min(),",
           "AIM's selection sensitivity from the smallest weight"),
    Mutant("M7", "pubpriv_core/algorithms/aim.py",
           "pair = data.public((a, b))",
           "pair = data.private((a, b))",
           "AIM's public tree weighted by private pairs"),
    Mutant("M8", "pubpriv_core/algorithms/aim.py",
           "self.public.add(clique, self.data.public(clique), self.opts.public_stddev)",
           "self.public.add(clique, self.data.private(clique), self.opts.public_stddev)",
           "AIM's public proxies taken from the private data"),
    Mutant("M9", "pubpriv_core/algorithms/mst.py",
           "measurements.add(pair, mechanisms.measure(data.private(pair), sigma2, str(pair)), "
           "sigma2)",
           "measurements.add(pair, data.private(pair), sigma2)",
           "MST's tree marginals enter the model without noise or charge"),
    Mutant("M10", "pubpriv_core/algorithms/mst.py",
           "weight = {p: np.abs(data.private(p) - marginals(p)).sum() for p in pairs}",
           "weight = {p: np.square(data.private(p) - marginals(p)).sum() for p in pairs}",
           "MST's edge score squared L2 (unbounded sensitivity)"),
    Mutant("M11", "pubpriv_core/algorithms/jam_pgm.py",
           "improvement = np.array([np.abs(self.data.private(r) - marginals(r)).sum()",
           "improvement = np.array([2 * np.abs(self.data.private(r) - marginals(r)).sum()",
           "JAM-PGM's improvement term doubled (sensitivity 6)"),
    Mutant("M12", "pubpriv_core/algorithms/select_measure.py",
           "REPLACE_ONE = Relation(\"replace_one\", 2.0, math.sqrt(2.0), True)",
           "REPLACE_ONE = Relation(\"replace_one\", 1.0, math.sqrt(2.0), True)",
           "replace-one L1 sensitivity of a marginal taken as 1"),
    Mutant("M13", "pubpriv_core/algorithms/select_measure.py",
           "return self._public[clique]",
           "return self.private(clique)",
           "the public proxy is the private marginal"),
    Mutant("M14", "pubpriv_core/algorithms/select_measure.py",
           "self.budget.charge(bounded_range_zcdp(eps), f\"select {label}\")",
           "self.budget.charge(bounded_range_zcdp(eps / 2), f\"select {label}\")",
           "selection charged for ε/2"),
    Mutant("M15", "pubpriv_core/privacy/selection.py",
           "return eps / (2.0 * sensitivity)",
           "return eps / sensitivity",
           "selection quality scale doubled (2ε-DP charged as ε)"),
    Mutant("M16", "pubpriv_core/privacy/noisy_max.py",
           "current = scale * (scores[head[i]] - best) + noise[i]",
           "current = 2 * scale * (scores[head[i]] - best) + noise[i]",
           "compiled head scan at twice the scale"),
    Mutant("M17", "pubpriv_core/privacy/noise.py",
           "rng.normal(0.0, sigma, size=shape)",
           "rng.normal(0.0, sigma / 2, size=shape)",
           "Gaussian noise at σ/2"),
    Mutant("M18", "pubpriv_core/privacy/accounting.py",
           "return eps * eps / 8.0",
           "return eps * eps / 16.0",
           "bounded-range cost halved"),
    Mutant("M19", "pubpriv_core/algorithms/multiplicative_weights.py",
           "return min(max(float(noisy), 0.0), 1.0)",
           "return min(max(float(true_value), 0.0), 1.0)",
           "PMW^Pub/MWEM release the true answer (mechanism still called and charged)"),
    Mutant("M20", "pubpriv_core/algorithms/multiplicative_weights.py",
           "return privacy.permute_and_flip(scores, eps0, 1.0 / n, rng, ties=ties)",
           "return privacy.permute_and_flip(scores, eps0, 2.0 / n, rng, ties=ties)",
           "PMW^Pub/MWEM selection calibrated at sensitivity 2/n"),
    Mutant("M21", "pubpriv_core/algorithms/dualquery.py",
           "return self.eta * (self.rounds * self.true_answers - self.counts)",
           "return self.eta * ((self.rounds + 1) * self.true_answers - self.counts)",
           "DualQuery's round-t weights use t true answers (sensitivity t/n, calibrated (t−1)/n)"),
    Mutant("M22", "pubpriv_core/algorithms/dualquery.py",
           "shift = np.abs(logw).max()",
           "shift = 2 * np.abs(logw).max()",
           "DualQuery's sampler shift doubled (a normalising constant)"),
    # the Adaptive Measurements rounds of PEP, PEP^Pub, GEM, GEM^Pub and RAP
    Mutant("M23", "pubpriv_core/algorithms/adaptive_measurements.py",
           "MARGINAL_L2 = math.sqrt(2.0)",
           "MARGINAL_L2 = 1.0",
           "measured marginal's L2 sensitivity √2/n taken as 1/n (σ and charge both)"),
    Mutant("M24", "pubpriv_core/algorithms/adaptive_measurements.py",
           "return 1.0 / self.n",
           "return 0.5 / self.n",
           "selection score sensitivity stated as 1/(2n) (a max error moves by 1/n)"),
    Mutant("M25", "pubpriv_core/algorithms/adaptive_measurements.py",
           "return MARGINAL_L2 / (self.n * (1.0 - self.alpha) * self.eps0)",
           "return MARGINAL_L2 / (self.n * self.alpha * self.eps0)",
           "measurement σ from the selection's share α of ε0 instead of 1 − α"),
    Mutant("M26", "pubpriv_core/algorithms/adaptive_measurements.py",
           "self.ledger.charge(privacy.gaussian_zcdp(sigma, MARGINAL_L2 / self.budget.n), "
           "\"measure\")",
           "privacy.gaussian_zcdp(sigma, MARGINAL_L2 / self.budget.n)",
           "measurement not charged to the ledger"),
    Mutant("M27", "pubpriv_core/algorithms/adaptive_measurements.py",
           "self.ledger.charge(privacy.bounded_range_zcdp(eps), \"select\")",
           "self.ledger.charge(privacy.bounded_range_zcdp(eps / 2), \"select\")",
           "selection charged for ε_sel/2"),
    Mutant("M28", "pubpriv_core/algorithms/adaptive_measurements.py",
           "return int(privacy.exponential_mechanism(scores, eps, self.budget.sensitivity, "
           "self.rng))",
           "return int(privacy.exponential_mechanism(scores, 2 * eps, self.budget.sensitivity, "
           "self.rng))",
           "exponential mechanism run at 2ε_sel, charged for ε_sel"),
    Mutant("M29", "pubpriv_core/algorithms/adaptive_measurements.py",
           "scores = marginal_scores(self.problem.workload.offsets, self.problem.true_answers,",
           "scores = marginal_scores(self.problem.workload.offsets, self.problem.public_answerer"
           ".expand(self.problem.public_answerer.answer(self.problem.public_weights)),",
           "selection scores computed on the public data's answers instead of the private"),
    Mutant("M30", "pubpriv_core/algorithms/adaptive_measurements.py",
           "self.measurements.add(marginal, values)",
           "self.measurements.add(marginal, self.problem.true_answers[offsets[marginal]:"
           "offsets[marginal + 1]])",
           "the exact marginal enters the model (noise drawn and charged, then dropped)"),
    Mutant("M31", "pubpriv_core/algorithms/adaptive_measurements.py",
           "return np.clip(privacy.gaussian_mechanism(np.asarray(values, float), sigma, rng), "
           "0.0, 1.0)",
           "return np.clip(np.asarray(values, float), 0.0, 1.0)",
           "measurement without noise (still charged)"),
    Mutant("M32", "pubpriv_core/algorithms/adaptive_measurements.py",
           "budget = RoundBudget(privacy.rho_from_eps(eps, delta), T * per_round, alpha, "
           "problem.n)",
           "budget = RoundBudget(privacy.rho_from_eps(eps, delta), T, alpha, problem.n)",
           "ε0 from T selections where RAP makes T·s", keyword="rap"),
    Mutant("M33", "pubpriv_core/algorithms/gem.py",
           "targets = answerer.expand(answerer.answer(problem.public_weights))",
           "targets = problem.true_answers",
           "GEM^Pub pre-trains on the private answers (free, unnoised)", keyword="gem_pub"),
    Mutant("M34", "pubpriv_core/algorithms/gem.py",
           "loss = MeasuredLoss(plan, measurements.flat(), opts.loss_p, opts.max_idxs)",
           "loss = MeasuredLoss(plan, np.concatenate([self.problem.true_answers[self.problem"
           ".workload.offsets[m]:self.problem.workload.offsets[m + 1]] for m in "
           "measurements.marginals]), opts.loss_p, opts.max_idxs)",
           "GEM fits its generator to the exact marginals it measured"),
]


#: flow tests of the algorithms a file serves (``-k``); files not listed run every flow test
KEYWORDS = {"aim.py": "aim", "mst.py": "mst", "jam_pgm.py": "jam_pgm",
            "select_measure.py": "aim or mst or jam_pgm",
            "multiplicative_weights.py": "pmwpub or mwem", "dualquery.py": "dualquery",
            "adaptive_measurements.py": "pep", "pep.py": "pep", "gem.py": "gem",
            "rap.py": "rap"}
