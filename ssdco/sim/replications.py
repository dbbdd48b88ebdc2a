"""Does the DES's answer depend on its seed? Independent replications of one configuration.

Why. With every service deterministic, a closed network's requests can hold one pattern (a convoy at a
slow core, an order of turns) for a long time before a collision shifts them into another, and some
patterns are left only after hundreds of thousands of requests. Batch means inside one run then agree
with each other and the confidence interval is tight, but it describes the pattern this run is in, not
the long run. Example (``configs/gallery/reads-locking-into-start-dependent-patterns.toml``): 4 KiB reads at
QD 4, two slow cores; 200,000-request runs give 28.0 k IOPS for most seeds and 33.2 k for some, each
with an interval of a few IOPS. Over 2,000,000 requests every seed tried ends in the 33.2 k pattern (the
Markov chain of ``ssdco/model/queueing/schedule_chain.py`` finds it the only closed class): the 28.0 k pattern is
a long transient, and a 200,000-request DES that stays in it is 16 % short of the long run.

What. ``runs`` more DES runs from seeds spawned from the main run's (:func:`ssdco.rng.spawn_seeds`), each
of a quarter of the main run's requests, and a test of whether all the runs estimate one IOPS: Cochran's
Q = sum_i w_i (x_i - xbar)^2, w_i = 1 / se_i^2 with se_i the batch-means standard error of run i and xbar
the w-weighted mean, against chi-square with (runs) degrees of freedom (W. G. Cochran, "The combination
of estimates from different experiments", Biometrics 10(1), 1954). The runs are **unsettled** when Q is
significant at :data:`HETEROGENEITY_P` *and* the runs' IOPS span more than the IOPS tolerance of the
model-vs-DES verdict: then there is no single DES answer to compare the model with, and
``ssdco validate`` says so instead of AGREE or DISAGREE.

Calibration: over the 1,733 closed deterministic configurations of the cached model-vs-DES
comparisons (Hypothesis and uniform draws), three 60,000-request runs each, Q has p < 0.05 on 82 (87
expected if the intervals are right) and p < 1e-3 on 5 (1.7 expected), and no two runs of one
configuration are more than 2.9 % apart: no false UNSETTLED there. The check can miss: if every run
stays in the same transient pattern, the runs agree (for the example above, with the default four runs
and 200,000 requests, at seeds 1 and 2 of 0-3). It cannot prove that the DES has settled; a longer
``--requests`` can. Where the Markov chain answers, the model also says how long the start lasts
(``whatif.Result.start_pattern``), and ``validate`` says UNSETTLED where the run is still in it
(``compare.Validation.in_start_pattern``), whatever the runs here say.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ssdco import defaults
from ssdco.network.build import Network
from ssdco.rng import spawn_seeds
from ssdco.sim.des import DesResult, min_requests, simulate
from ssdco.sim.stats import Estimate, t_quantile

DEFAULT_RUNS = defaults.AUTO_REPLICATIONS  # extra runs where the check applies by default (closed, deterministic)
MAX_REPLICATIONS = 1000  # most extra runs the command line takes (validate, sweep)
RUN_FRACTION = 0.25  # each extra run completes this share of the main run's requests
HETEROGENEITY_P = 1e-3  # Cochran's Q significance below which the runs differ beyond their intervals


@dataclass(frozen=True)
class ReplicationCheck:
    """The extra runs and the test of whether they and the main run agree on IOPS."""

    seeds: tuple[int, ...]
    iops: tuple[Estimate, ...]  # of the extra runs
    latency_mean_us: tuple[Estimate, ...]
    requests: int  # per extra run
    heterogeneity_p: float  # Cochran's Q p-value over the main and the extra runs' IOPS
    iops_spread: float  # (max - min) / main run's IOPS over all runs
    iops_tolerance: float  # the verdict's IOPS tolerance the spread is held to

    @property
    def unsettled(self) -> bool:
        """The runs estimate different IOPS (Q significant) and span more than the IOPS tolerance."""
        return self.heterogeneity_p < HETEROGENEITY_P and self.iops_spread > self.iops_tolerance

    def to_dict(self) -> dict:
        """The ``des_replications`` entry of ``ssdco validate --json``."""
        return {
            "runs": [{"seed": s, "requests": self.requests, "iops": x.value, "iops_ci95": [x.low, x.high],
                      "latency_mean_us": r.value} for s, x, r in zip(self.seeds, self.iops, self.latency_mean_us)],
            "heterogeneity_p": self.heterogeneity_p,
            "iops_spread": self.iops_spread,
            "unsettled": self.unsettled,
        }


def default_runs(network: Network) -> int:
    """Extra runs ``ssdco validate`` makes by default: :data:`DEFAULT_RUNS` for a closed workload whose every
    service is deterministic (where requests can hold start-dependent patterns), else 0."""
    deterministic = all(step.scv == 0.0 for step in network.steps)
    return DEFAULT_RUNS if network.queue_depth is not None and deterministic else 0


def standard_error(estimate: Estimate) -> float:
    """The standard error behind a batch-means interval: half-width / the Student-t quantile it used."""
    return estimate.half_width / t_quantile(estimate.confidence, max(estimate.batches - 1, 1))


def heterogeneity_p(estimates: list[Estimate]) -> float:
    """Cochran's Q test that ``estimates`` share one mean: the chi-square(k - 1) p-value of
    Q = sum_i (x_i - xbar)^2 / se_i^2 (module docstring). A zero standard error (a run locked in a periodic
    pattern reports an interval of 1e-9) is floored at 1e-12 of the value, so that differing locked runs
    are significant and equal ones are not."""
    x = np.array([e.value for e in estimates])
    se = np.array([standard_error(e) for e in estimates])
    se = np.maximum(se, 1e-12 * np.maximum(np.abs(x), 1.0))
    w = 1.0 / se**2
    mean = float(w @ x / w.sum())
    q = float(w @ (x - mean) ** 2)
    return float(stats.chi2.sf(q, len(estimates) - 1))


def replication_check(network: Network, main: DesResult, *, requests: int, seed, runs: int, iops_tolerance: float,
                      service_family: str = "auto", progress: bool = False) -> ReplicationCheck:
    """``runs`` more DES runs of ``network`` (each of ``RUN_FRACTION`` x ``requests``, at least the DES's
    minimum) from seeds spawned from ``seed``, and whether they agree with ``main`` on IOPS."""
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    seeds = tuple(spawn_seeds(seed, runs))
    n = max(int(requests * RUN_FRACTION), min_requests())
    results = []
    if progress:  # one bar over the runs: each run is short, and a bar per run would vanish before it moves
        import sys

        from tqdm.auto import tqdm

        with tqdm(total=runs, unit="run", desc="DES from more seeds", file=sys.stderr, mininterval=0.0) as bar:
            for s in seeds:
                results.append(simulate(network, requests=n, seed=s, service_family=service_family))
                bar.update(1)
    else:
        results = [simulate(network, requests=n, seed=s, service_family=service_family) for s in seeds]
    iops = [main.iops] + [r.iops for r in results]
    values = [e.value for e in iops]
    spread = (max(values) - min(values)) / main.iops.value if main.iops.value > 0 else 0.0
    return ReplicationCheck(seeds=seeds, iops=tuple(r.iops for r in results),
                            latency_mean_us=tuple(r.mean_latency_us for r in results), requests=n,
                            heterogeneity_p=heterogeneity_p(iops), iops_spread=spread, iops_tolerance=iops_tolerance)
