"""One run of the authors' GEM / GEM^Pub (``terranceliu/dp-query-release``, PyTorch) on ADULT,
timed, for :mod:`experiments.release.bench.successors`.

Runs in the reference's own environment (a venv with PyTorch, outside this project), with the
reference checkout as working directory, and imports nothing from this project: it builds the
reference's objects as its ``examples/run/run_gem.py`` and ``public_assisted/run_gem_pub.py`` do,
with the hyper-parameters of ``examples/scripts/gen_nn/run_adult.sh`` (3-way, all 286 marginals,
ε = 1, T = 50, α = 0.5, K = 1000, dim 256, loss_p 2, lr 1e−4, max_idxs 10,000, max_iters 100) and
``--test_seed`` = the run's seed. Prints one JSON line: the fit's wall and CPU time, T, the steps taken per
round, the max / mean error of the released generator's mixture answers (``G.get_qm_answers``:
the distribution itself, what this harness scores) and of the 100,000 sampled rows the reference
scripts score, the threads used and the load average.

With ``--trace DIR`` (GEM only) the run also writes what
:mod:`experiments.release.bench.successors_replay` needs to replay it in this harness: the
generator's initial weights and noise and the query manager's marginals (``init.npz``), the
noisy measurements in measurement order (``measurements.npy``), and per round the measured
marginal, the error EMA, every Adam step's (cells used, loss) and the true max error after the
update (``rounds.json``); ``--rounds R`` stops after R of the T rounds (the budget stays T's).

``gem_pub`` needs the reference's public pre-training checkpoint
(``save/Gen_NN_NonDP/<public>/...``) made by its ``examples/run/nondp/run_gen_nn.py`` (see
:func:`experiments.release.bench.successors.reference_pretrain_command`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time


class StopTrace(Exception):
    """Raised after the traced rounds asked for."""


class Tracer:
    """The replay trace of one GEM run (see the module docstring), by wrapping the reference
    algorithm's own methods; nothing it computes changes."""

    def __init__(self, algo, G, qm, data, folder, rounds):
        import numpy as np
        self.np, self.algo, self.folder = np, algo, folder
        os.makedirs(folder, exist_ok=True)
        state = {f"sd_{k}": v.detach().numpy().copy() for k, v in G.generator.state_dict().items()}
        marginals = [[data.domain.attrs.index(c) for c in w] for w in qm.workloads]
        np.savez(os.path.join(folder, "init.npz"), z=G.z.numpy(),
                 marginals=np.array(marginals), **state)
        self.log, self.current = [], {}
        measure, get_loss = algo._measure, algo._get_loss
        optimize, record = algo._optimize_past_queries, algo.record_errors

        def traced_measure(answers):
            measure(answers)
            self.current = {"marginal": int(algo.past_workload_idxs[-1]), "steps": []}

        def traced_loss(idxs):
            loss = get_loss(idxs)
            self.current["steps"].append([int(len(idxs)), float(loss.detach())])
            return loss

        def traced_optimize():
            self.current["ema"] = float(algo.ema_error)
            return optimize()

        def traced_record(true_answers, fake_answers):
            record(true_answers, fake_answers)
            self.current["true_max"] = float(algo.true_max_errors[-1])
            self.log.append(self.current)
            if rounds and len(self.log) >= rounds:
                raise StopTrace

        algo._measure, algo._get_loss = traced_measure, traced_loss
        algo._optimize_past_queries, algo.record_errors = traced_optimize, traced_record

    def close(self):
        self.np.save(os.path.join(self.folder, "measurements.npy"),
                     self.algo.past_measurements.numpy())
        with open(os.path.join(self.folder, "rounds.json"), "w") as handle:
            json.dump(self.log, handle)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=("gem", "gem_pub"), default="gem")
    parser.add_argument("--dataset", default="adult")
    parser.add_argument("--dataset-pub", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--T", type=int, default=50)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--save-dir", default="/tmp/dpqr-save")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1: its faster setting on this loaded machine)")
    parser.add_argument("--sampled", action="store_true",
                        help="also score 100,000 sampled rows, as the reference scripts do")
    parser.add_argument("--trace", default=None, help="folder for the replay trace (GEM)")
    parser.add_argument("--rounds", type=int, default=None, help="with --trace: stop after R")
    args = parser.parse_args(argv)
    if args.trace and args.algo != "gem":
        parser.error("--trace replays GEM only; drop --trace or pass --algo gem")
    sys.path.insert(0, os.getcwd())
    import torch
    torch.set_num_threads(args.threads)
    from src.algo import IterAlgoGEM
    from src.qm import KWayMarginalQMTorch
    from src.syndata import NeuralNetworkGenerator
    from src.utils import (get_cached_true_answers, get_data, get_errors,
                           get_per_round_budget_zCDP, get_rand_workloads)
    from src.algo.nondp import IterativeAlgoNonDP

    data = get_data(args.dataset)
    workloads = get_rand_workloads(data, 286, 3, seed=0)
    qm = KWayMarginalQMTorch(data, workloads, device=torch.device("cpu"))
    cache_key = argparse.Namespace(dataset=args.dataset, workload=286, marginal=3,
                                   workload_seed=0)
    true_answers = get_cached_true_answers(cache_key, data, qm)   # its save/true_answers
    delta = 1.0 / len(data) ** 2
    eps0, rho = get_per_round_budget_zCDP(args.epsilon, delta, args.T, alpha=0.5)
    public = args.algo == "gem_pub"
    # GEM: run_gem.py passes gen_dims=[256]*2 and seeds the generator with the run's seed;
    # GEM^Pub: run_gem_pub.py leaves the default widths, and the generator (its noise z too)
    # is the pre-training's (seed 0) so that the loaded weights see the noise they were fit on
    G = NeuralNetworkGenerator(qm, K=1000, device=torch.device("cpu"),
                               init_seed=0 if public else args.seed, embedding_dim=256,
                               gen_dims=None if public else [256, 256], resample=False)
    if public:
        pre = IterativeAlgoNonDP(G, 1, default_dir=f"./save/Gen_NN_NonDP/{args.dataset_pub}/"
                                 "3_286_0/256_1000_False/", seed=0, loss_p=2, lr=5e-4,
                                 eta_min=1e-7, max_idxs=10000, max_iters=1)
        pre.load("best.pt")
    algo = IterAlgoGEM(G, args.T, eps0, alpha=0.5,
                       default_dir=f"{args.save_dir}/{args.algo}/{args.seed}-{os.getpid()}",
                       seed=args.seed, loss_p=2, lr=1e-4, eta_min=None, max_idxs=10000,
                       max_iters=100, ema_weights=public, ema_weights_beta=0.9)
    steps = []
    optimize = algo._optimize_past_queries

    def counted():
        loss, step = optimize()
        steps.append(int(step))
        return loss, step

    algo._optimize_past_queries = counted
    tracer = Tracer(algo, G, qm, data, args.trace, args.rounds) if args.trace else None
    start, cpu = time.perf_counter(), time.process_time()
    try:
        algo.fit(true_answers)
    except StopTrace:
        pass
    fit_s, cpu = time.perf_counter() - start, time.process_time() - cpu
    if tracer:
        tracer.close()
    exact = get_errors(true_answers, G.get_qm_answers())
    sampled = get_errors(true_answers, qm.get_answers(G.get_syndata(100000))) \
        if args.sampled else {"error_max": float("nan"), "error_mean": float("nan")}
    print(json.dumps({
        "code": "reference", "algo": args.algo, "seed": args.seed, "T": args.T,
        "fit_s": fit_s, "per_round_s": fit_s / len(steps),
        "cpu_per_round_s": cpu / len(steps), "rounds": len(steps),
        "steps": steps,
        "max_error": float(exact["error_max"]), "mean_error": float(exact["error_mean"]),
        "sampled_max_error": float(sampled["error_max"]),
        "sampled_mean_error": float(sampled["error_mean"]), "rho": rho, "eps0": eps0,
        "threads": torch.get_num_threads(), "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
