"""Independent DES replications: does the DES's answer depend on its seed (ssdco/sim/replications.py)?"""

from pathlib import Path

import numpy as np
import pytest

from ssdco import load_config
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim import stats as S
from ssdco.sim.des import simulate
from ssdco.sim.replications import DEFAULT_RUNS, HETEROGENEITY_P, default_runs, heterogeneity_p, standard_error
from ssdco.spec import config_from_dict
from ssdco.validation.compare import validate, with_replications
from tests.conftest import PM9A3
from tests.gallery import gallery

LOCKING_TOML = Path(__file__).parents[1] / "data" / "reads_locking_into_patterns.toml"


def _estimate(value: float, se: float, batches: int = 20) -> S.Estimate:
    return S.Estimate(value, se * S.t_quantile(0.95, batches - 1), 0.95, batches)


def test_standard_error_inverts_the_batch_means_interval():
    x = np.random.default_rng(3).normal(10.0, 2.0, 20)
    est = S.t_interval(x)
    assert standard_error(est) == pytest.approx(x.std(ddof=1) / np.sqrt(20))


def test_heterogeneity_is_cochrans_q():
    estimates = [_estimate(100.0, 1.0), _estimate(103.0, 2.0), _estimate(98.0, 1.5)]
    w = np.array([1.0, 1 / 4, 1 / 2.25])
    x = np.array([100.0, 103.0, 98.0])
    q = float(w @ (x - w @ x / w.sum()) ** 2)
    from scipy import stats

    assert heterogeneity_p(estimates) == pytest.approx(stats.chi2.sf(q, 2))


def test_heterogeneity_p_is_uniform_when_the_runs_share_one_mean():
    """Runs that estimate one mean with the standard errors they report: p < 0.05 about 5 % of the time."""
    rng = np.random.default_rng(20261125)
    ps = []
    for _ in range(2000):
        se = rng.uniform(0.5, 3.0, 5)
        ps.append(heterogeneity_p([_estimate(v, s) for v, s in zip(rng.normal(50.0, se), se)]))
    ps = np.array(ps)
    # binomial(2000, 0.05): sd 9.7; allow 4 sd
    assert abs((ps < 0.05).sum() - 100) < 40
    assert (ps < HETEROGENEITY_P).sum() <= 8


def test_runs_locked_in_different_patterns_are_heterogeneous_and_equal_ones_are_not():
    locked = [S.Estimate(27_994.0, 1e-9, 0.95, 20), S.Estimate(33_171.0, 1e-9, 0.95, 20)]
    assert heterogeneity_p(locked) < 1e-100
    assert heterogeneity_p([locked[0], locked[0]]) == 1.0


def test_default_runs_only_where_service_is_deterministic_and_the_workload_closed():
    locking = config_from_dict(gallery("reads-locking-into-start-dependent-patterns"))
    assert default_runs(build_network(locking)) == DEFAULT_RUNS
    d = gallery("reads-locking-into-start-dependent-patterns")
    d["variability"] = {"nand_scv": 0.01}
    assert default_runs(build_network(config_from_dict(d))) == 0
    open_workload = load_config(PM9A3, controller="c01", overrides=["workload.arrival_iops=100000"])
    assert default_runs(build_network(open_workload)) == 0


def test_a_200k_request_des_can_sit_in_a_transient_pattern_that_the_long_run_leaves():
    # The design's four requests hold a 28.0 k IOPS pattern (a convoy at the two slow cores) for a long
    # time; the 33.2 k pattern the collapsed schedule and the Markov chain find (its only closed class) is
    # where every long run ends. Seed 0: 28.0 k over 200,000 requests, 33.2 k from about 250,000 on.
    config = config_from_dict(gallery("reads-locking-into-start-dependent-patterns"))
    network = build_network(config)
    model = evaluate_network(config, network)
    short = simulate(network, requests=200_000, seed=0)
    long = simulate(network, requests=2_000_000, seed=0, batches=40)
    assert short.iops.value / model.iops - 1.0 < -0.15  # and its interval is a few IOPS wide
    assert short.iops.relative_half_width < 1e-3
    assert long.batch_iops[-20:] == pytest.approx(model.iops, rel=1e-4)


def test_validate_says_unsettled_where_runs_from_other_seeds_disagree():
    config = config_from_dict(gallery("reads-locking-into-start-dependent-patterns"))
    v = validate(config, seed=0, replications=4)
    assert v.replications is not None and len(v.replications.seeds) == 4
    assert v.replications.iops_spread > 0.03 and v.replications.heterogeneity_p < HETEROGENEITY_P
    assert v.verdict == "UNSETTLED" and not v.agrees
    doc = v.to_dict()
    assert doc["verdict"] == "UNSETTLED" and doc["des_replications"]["unsettled"] is True
    assert len(doc["des_replications"]["runs"]) == 4
    # the same seed gives the same check
    again = validate(config, seed=0, replications=4)
    assert again.replications == v.replications
    # without the extra runs the main run alone (in the 28.0 k pattern) makes the model look 18 % high
    alone = validate(config, seed=0)
    assert alone.replications is None and alone.verdict == "DISAGREE"
    assert (v.des_runs, alone.des_runs) == (5, 1)
    assert alone.to_dict()["des_replications"] is None


def test_validate_on_a_settled_preset_agrees():
    v = validate(load_config(PM9A3, controller="c01"), requests=40_000, seed=1, replications=2)
    assert not v.unsettled and v.verdict == "AGREE"
    assert v.replications.requests == 10_000 and v.replications.iops_spread < 0.01
    auto = validate(load_config(PM9A3, controller="c01"), requests=40_000, seed=1, replications="auto")
    assert len(auto.replications.seeds) == DEFAULT_RUNS and auto.failed_checks == ()


def test_adding_the_runs_later_equals_making_them_in_validate():
    # the optimizer adds them to its pick's verification this way (ssdco/optimizer/search.py, settle)
    config = load_config(PM9A3, controller="c01")
    both = validate(config, requests=20_000, seed=3, replications=2)
    later = with_replications(validate(config, requests=20_000, seed=3), requests=20_000, seed=3, runs=2)
    assert later.replications == both.replications and later.des.iops == both.des.iops
    assert with_replications(later, requests=20_000, seed=3, runs=0) is later


def test_locking_toml_is_the_design():
    from_file = build_network(load_config(LOCKING_TOML))
    from_dict = build_network(config_from_dict(gallery("reads-locking-into-start-dependent-patterns")))
    assert from_file.stations == from_dict.stations and from_file.steps == from_dict.steps
    assert from_file.queue_depth == from_dict.queue_depth == 4
