"""whatif's caveat where the route MVA's flow correction moves the answer far (whatif.trust_caveats)."""

import copy
from pathlib import Path

import pytest

from ssdco import evaluate, load_config
from ssdco.model.caveats import FLOW_CORRECTION_CAVEAT_SHARE, flow_correction_share, trust_caveats
from ssdco.model.queueing.route_mva import ALL_FEATURES, FLOW, route_arrays, solve_route
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE
from tests.gallery import gallery

SHARE = FLOW_CORRECTION_CAVEAT_SHARE
PM9A3 = Path(__file__).resolve().parents[2] / "configs" / "pm9a3-960.toml"
FLOW_CAVEAT = "the regularity of the flow between deterministic stations"


def test_the_share_is_the_route_mvas_answer_over_its_answer_with_poisson_arrivals():
    network = build_network(config_from_dict(gallery("writes-behind-regular-flow")))
    arrays = route_arrays(network, network.loads())
    x = solve_route(arrays, 40).throughput_per_us
    without = solve_route(arrays, 40, features=ALL_FEATURES & ~FLOW).throughput_per_us
    assert without < x  # regular arrivals wait less
    assert flow_correction_share(arrays, 40, x) == pytest.approx(x / without - 1.0, rel=1e-12)


def test_a_fresh_draw_the_flow_correction_raises_by_a_tenth_is_flagged_and_off_the_des():
    # Seed 20261129 one-transaction draw 8 of benchmarks/accuracy.py run --hypothesis: 4 KiB writes at QD 40 behind
    # two slow cores running parse, cache lookup and complete. The flow correction raises the route MVA's IOPS by
    # about 9 %, and the model is 6.2 % above the DES (1,000,000 requests; here 100,000; 6.9 % before the waits at the
    # dies took regularity from the flow, route_mva._wait_displacement). No other caveat applies.
    # Since 2026-11-29 the platoon stage answers there (the bottleneck core group serves several steps), within the
    # tolerance and uncaveated; the caveat is the route MVA's (platoon_stage=False)
    config = config_from_dict(gallery("writes-behind-regular-flow"))
    network = build_network(config)
    r = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    assert r.method == "route-mva"
    (caveat,) = r.caveats
    assert caveat.startswith(FLOW_CAVEAT) and "by +8.9 %" in caveat
    des = simulate(network, requests=100_000, seed=1)
    assert r.iops / des.iops.value - 1.0 > IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and stage.caveats == () and stage.flow_correction_share is None
    assert abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE


def test_only_at_the_threshold_for_closed_deterministic_route_mva_answers():
    network = build_network(config_from_dict(gallery("writes-behind-regular-flow")))
    assert trust_caveats(network, 0.0) == ()  # not checked
    for share in (SHARE, -SHARE, 0.12):
        (caveat,) = trust_caveats(network, 0.0, flow_share=share)
        assert caveat.startswith(FLOW_CAVEAT)
    assert trust_caveats(network, 0.0, flow_share=SHARE - 1e-6) == ()
    assert trust_caveats(network, 0.0, scheduled=True, flow_share=0.1) == ()
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    d["variability"] = {"firmware_scv": 1.0}
    assert trust_caveats(build_network(config_from_dict(d)), 0.0, flow_share=0.1) == ()  # measured: deterministic
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    del d["workload"]["queue_depth"]
    d["workload"]["arrival_iops"] = 50_000.0
    assert trust_caveats(build_network(config_from_dict(d)), 0.0, flow_share=0.1) == ()


def test_the_caveat_comes_after_the_others():
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    d["workload"]["queue_depth"] = 4  # where the chain-outgrown caveat applies
    network = build_network(config_from_dict(d))
    busy = ("cores:g1", 0.95)
    (own,) = trust_caveats(network, 0.0, bottleneck=busy, chain_outgrown=True)
    both = trust_caveats(network, 0.0, bottleneck=busy, chain_outgrown=True, flow_share=0.1)
    assert both[0] == own and both[1].startswith(FLOW_CAVEAT)


def test_not_on_a_scheduled_answer_nor_where_the_correction_moves_little():
    # at QD 1 the periodic schedule answers, not the route MVA: no share is checked
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    d["workload"]["queue_depth"] = 1
    r = evaluate(config_from_dict(d))
    assert r.method != "route-mva" and not any(c.startswith(FLOW_CAVEAT) for c in r.caveats)
    # PM9A3 with c01: the correction raises the answer by less than the threshold (the DES agrees within 0.2 %)
    r = evaluate(load_config(PM9A3, controller="c01"))
    assert r.method == "route-mva" and r.caveats == ()
    assert 0.0 < r.flow_correction_share < SHARE


def test_whatif_reports_the_share_where_it_checks_it():
    config = config_from_dict(gallery("writes-behind-regular-flow"))
    network = build_network(config)
    r = evaluate_network(config, network,
                         solvers=all_but("platoon-stage"))  # the route MVA's (the stage answers by default)
    arrays = route_arrays(network, network.loads())
    assert r.flow_correction_share == pytest.approx(flow_correction_share(arrays, 40, r.iops / 1e6), rel=1e-9)
    assert r.to_dict()["flow_correction_share"] == r.flow_correction_share
    # not checked: a scheduled answer, variable service, an open workload
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    d["workload"]["queue_depth"] = 1
    assert evaluate(config_from_dict(d)).to_dict()["flow_correction_share"] is None
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    d["variability"] = {"firmware_scv": 1.0}
    assert evaluate(config_from_dict(d)).flow_correction_share is None
    d = copy.deepcopy(gallery("writes-behind-regular-flow"))
    del d["workload"]["queue_depth"]
    d["workload"]["arrival_iops"] = 50_000.0
    assert evaluate(config_from_dict(d)).flow_correction_share is None
