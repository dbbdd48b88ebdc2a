"""A sequential stream striped over consecutive dies (``nand.sequential_allocation = "channel_first"``, ``"stripe"``
routing): which steps it places, the solvers that decline it, the caveat, the measured model-vs-DES gap in both
directions, and the config field's errors."""

import pytest

from ssdco import evaluate
from ssdco.errors import ConfigError
from ssdco.model.solvers import answer, context
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import load_config
from tests.conftest import PM9A3

STRIPED = ["workload.address_pattern='sequential'", "nand.sequential_allocation='channel_first'",
           "workload.read_fraction=1.0"]


def striped_config(size_kib: int, qd: int):
    return load_config(PM9A3, controller="c09", overrides=STRIPED + [
        f"workload.request_size_kib={size_kib}", f"workload.queue_depth={qd}"])


def striped_network(size_kib: int, qd: int):
    return build_network(striped_config(size_kib, qd))


def test_the_data_steps_of_a_sequential_stream_are_striped_and_nothing_else_is():
    network = striped_network(128, 4)
    labels = {network.steps[i].label for i in network.striped_steps}
    assert labels == {"nand_array", "nand_transfer"}
    assert network.copy_batches["die"][1][1] == pytest.approx(1.0)  # one page per die per request
    # random addresses, or a sequential stream on random dies, are not striped
    for overrides in (["workload.address_pattern='uniform'", "nand.sequential_allocation='channel_first'"],
                      ["workload.address_pattern='sequential'"]):
        assert not build_network(load_config(PM9A3, controller="c09", overrides=overrides)).striped_steps


def test_the_chain_and_the_platoon_stage_decline_a_striped_stream_and_the_route_mva_says_where_it_is_unsure():
    network = striped_network(128, 4)
    ctx = context(network)
    found = answer(ctx)
    assert "striped" in ctx.trace.declined["markov-chain"]
    assert found.solver == "route-mva"
    assert any("striped over consecutive dies" in c for c in evaluate(striped_config(128, 4)).caveats)
    assert not any("striped" in c for c in evaluate(load_config(PM9A3, controller="c09")).caveats)


@pytest.mark.parametrize("size_kib, qd, low, high", [
    (128, 1, -0.01, 0.01),  # one request at a time: nothing to meet
    (128, 16, -0.01, 0.01),  # PCIe-bound: the link sets the pace
    (128, 4, -0.30, -0.05),  # the requests in flight sit on disjoint dies: the model waits where the DES does not
])
def test_the_model_against_the_des_on_a_striped_stream(size_kib, qd, low, high):
    """The measured gap the caveat states: exact where nothing meets or the link is the bottleneck, low in
    between (a pinned measurement: if the model learns the stream's lockstep, this test says so)."""
    config = striped_config(size_kib, qd)
    model = evaluate(config).iops
    des = simulate(build_network(config), requests=40_000, seed=1).iops.value
    assert low <= model / des - 1.0 <= high


def test_an_unknown_allocation_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"sequential_allocation.*way_first.*channel_first"):
        load_config(PM9A3, controller="c09", overrides=["nand.sequential_allocation='way_first'"])
