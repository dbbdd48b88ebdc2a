"""The start's long-held pattern: with deterministic service, requests issued at once can hold a pattern for
millions of requests before a rare collision sends them, for good, into the long-run pattern the Markov chain's
stationary answer describes. The chain gives the expected requests and time before that (its transient's
fundamental matrix), and whatif reports the start pattern (docs/accuracy.md)."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse import csgraph

from ssdco import load_config
from ssdco.cli import main
from ssdco.model.caveats import PATTERN_SPREAD, START_PATTERN_MIN_REQUESTS, start_pattern, start_pattern_caveats
from ssdco.model.queueing.schedule_chain import ChainSolution, _transient_visits
from ssdco.model.whatif import evaluate
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, validate
from tests.gallery import gallery

START_TOML = Path(__file__).parents[1] / "data" / "writes_holding_a_start_pattern.toml"


def test_the_expected_visits_before_settling_are_the_fundamental_matrixs():
    # state 0 stays with probability 0.9 and goes to 1 or 2 (transient, 2 returns to 0 half the time); 3 is closed
    P = sparse.csr_matrix(np.array([[0.9, 0.05, 0.05, 0.0],
                                    [0.0, 0.0, 0.0, 1.0],
                                    [0.5, 0.0, 0.0, 0.5],
                                    [0.0, 0.0, 0.0, 1.0]]))
    _, labels = csgraph.connected_components(P, directed=True, connection="strong")
    closed = np.array([labels[3]])
    transient, visits = _transient_visits(P, np.array([1.0, 0.0, 0.0, 0.0]), labels, closed)
    assert list(transient) == [0, 1, 2]
    # N = (I - Q)^-1, first row: visits to 0 solve v0 = 1 + 0.9 v0 + 0.5 v2 with v2 = 0.05 v0, v1 = 0.05 v0
    v0 = 1.0 / (1.0 - 0.9 - 0.025)
    assert visits == pytest.approx([v0, 0.05 * v0, 0.05 * v0], rel=1e-12)
    # a start already in the closed class visits no transient state
    _, none = _transient_visits(P, np.array([0.0, 0.0, 0.0, 1.0]), labels, closed)
    assert not none.any()


def _chain(x_per_us: float, settle_requests: float, settle_us: float) -> ChainSolution:
    z = np.zeros(1)
    return ChainSolution(throughput_per_us=x_per_us, response_us=4.0 / x_per_us, mean_jobs=z, busy_servers=z,
                         p_wait=z, states=1, grid_us=1.0, seconds=0.0, patterns=((1.0, x_per_us),),
                         settle_requests=settle_requests, settle_us=settle_us)


def test_a_start_pattern_is_reported_only_where_it_is_long_and_differs():
    x = 0.01  # per us
    slow = START_PATTERN_MIN_REQUESTS / (0.9 * x)  # the time for the threshold's requests at 0.9 X
    sp = start_pattern(_chain(x, START_PATTERN_MIN_REQUESTS, slow), x)
    assert sp is not None and sp.iops == pytest.approx(0.9 * x * 1e6) and sp.settle_s == pytest.approx(slow / 1e6)
    assert start_pattern(_chain(x, START_PATTERN_MIN_REQUESTS - 1, slow), x) is None  # swallowed by a warm-up
    near = START_PATTERN_MIN_REQUESTS / ((1.0 - PATTERN_SPREAD / 2) * x)
    assert start_pattern(_chain(x, START_PATTERN_MIN_REQUESTS, near), x) is None  # within the spread
    assert start_pattern(_chain(x, 0.0, 0.0), x) is None  # the start is in the long-run pattern
    assert start_pattern(None, x) is None
    assert start_pattern_caveats(None, 1.0, 4) == ()


def test_writes_hold_their_start_pattern_for_millions_of_requests_and_a_des_run_measures_it():
    config = config_from_dict(gallery("writes-holding-a-start-pattern"))
    result = evaluate(config)
    assert result.method == "markov-chain"
    start = result.start_pattern
    assert start is not None and start.settle_requests > 1_000_000
    # the long run is 5.8 % faster than the start (measured: 8,072 against 7,631 IOPS)
    assert result.iops / start.iops - 1.0 > 0.05
    assert result.caveats == start_pattern_caveats(start, result.iops, 4)
    assert "hold a pattern of about 7,631 IOPS (-5.5%)" in result.caveats[0]
    doc = result.to_dict()["start_pattern"]
    assert doc == {"iops": start.iops, "settle_requests": start.settle_requests, "settle_s": start.settle_s}
    des = simulate(build_network(config), requests=60_000, seed=3)
    assert des.iops.value == pytest.approx(start.iops, rel=0.002)
    assert abs(result.iops / des.iops.value - 1.0) > IOPS_TOLERANCE  # what the held-out set counted as a miss


def test_a_des_run_long_enough_to_leave_the_start_pattern_agrees_with_the_long_run():
    # tPROG 500 us: the start is left after about 1.1 M requests on average; the long run is 4.8 % faster
    config = config_from_dict(gallery("writes-holding-a-start-pattern", t_prog_us=500.0))
    result = evaluate(config)
    start = result.start_pattern
    assert start is not None and 500_000 < start.settle_requests < 2_000_000
    assert result.iops / start.iops - 1.0 > IOPS_TOLERANCE
    des = simulate(build_network(config), requests=10_000_000, seed=0)
    # the run's first part is still the start's (measured: left after about 1 M requests at this seed)
    assert abs(result.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE


def test_validate_says_the_des_run_is_still_in_the_start_pattern(tmp_path, capsys):
    config = config_from_dict(gallery("writes-holding-a-start-pattern"))
    v = validate(config, requests=60_000, seed=0)
    assert v.in_start_pattern and v.unsettled and v.verdict == "UNSETTLED" and not v.agrees
    assert v.failed_checks[0] == "IOPS"
    assert "the DES run is still in the start pattern the model reports: 7,631 IOPS" in v.unsettled_reason()
    doc = v.to_dict()
    assert doc["des_in_start_pattern"] is True and doc["verdict"] == "UNSETTLED"
    assert doc["analytic"]["start_pattern"]["iops"] == pytest.approx(v.des.iops.value, rel=0.002)


def test_without_the_collision_that_leaves_it_there_is_no_start_pattern():
    # four planes per die: four programs never collide, nothing draws, the periodic schedule answers
    d = gallery("writes-holding-a-start-pattern")
    d["nand"]["planes_per_die"] = 4
    result = evaluate(config_from_dict(d))
    assert result.method == "periodic-schedule" and result.start_pattern is None
    assert result.to_dict()["start_pattern"] is None


def test_the_data_file_is_the_design():
    from_file, from_dict = load_config(START_TOML), config_from_dict(gallery("writes-holding-a-start-pattern"))
    assert dataclasses.replace(from_file, source="", raw={}) == dataclasses.replace(from_dict, source="", raw={})


def test_whatif_and_validate_say_it_on_the_command_line(capsys):
    assert main(["whatif", str(START_TOML)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("CAVEAT: from a standing start (all 4 requests issued at once) the requests hold a pattern of about "
            "7,631 IOPS") in out
    assert main(["validate", str(START_TOML), "--requests", "60000", "--replications", "0"]) == 1  # not AGREE
    out = " ".join(capsys.readouterr().out.split())
    assert "verdict: UNSETTLED - the DES run is still in the start pattern the model reports: 7,631 IOPS" in out
    assert "; rerun with more --requests" in out
