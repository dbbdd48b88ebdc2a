"""A sequential stream striped over consecutive dies (``nand.sequential_allocation = "channel_first"``, ``"stripe"``
routing): which steps it places, which solvers answer it, the caveat, the model against the DES on designs it
answers within its tolerances (``benchmarks/semantics.py striped`` measures random ones), the share of the others a
transaction meets at its die, and the config field's errors."""

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


def test_the_chain_declines_a_striped_stream_and_the_platoon_stage_answers_it_at_low_queue_depth():
    network = striped_network(128, 4)
    ctx = context(network)
    found = answer(ctx)
    assert "striped" in ctx.trace.declined["markov-chain"]
    assert found.solver == "platoon-stage"  # the stream's requests on disjoint dies, run event by event
    assert any("striped over consecutive dies" in c for c in evaluate(striped_config(128, 4)).caveats)
    assert not any("striped" in c for c in evaluate(load_config(PM9A3, controller="c09")).caveats)


@pytest.mark.parametrize("size_kib, qd", [
    (128, 1),  # one request at a time: nothing to meet
    (128, 4),  # the requests in flight on disjoint dies, in step behind the link (the platoon stage)
    (128, 16),  # PCIe-bound: the link sets the pace
    (8, 64),  # 4,096 transactions in flight wrap around the dies (stripe_others_share)
])
def test_the_model_against_the_des_on_a_striped_stream(size_kib, qd):
    config = striped_config(size_kib, qd)
    model = evaluate(config).iops
    des = simulate(build_network(config), requests=40_000, seed=1).iops.value
    assert model == pytest.approx(des, rel=0.03)


def test_the_others_met_at_a_striped_copy():
    from ssdco.model.queueing.route_mva import stripe_others_share

    assert stripe_others_share(2, 4, 8.0) == 0.0  # positions 4-7: the other request's window is beside its own
    assert stripe_others_share(3, 4, 8.0) == pytest.approx(1.0)  # positions 4-11: 8-11 wrap onto its four copies
    assert stripe_others_share(3, 3, 8.0) == pytest.approx(1 * 8 / (2 * 9))  # positions 3-8: only 8 wraps
    assert stripe_others_share(32, 1, 32.0) == 0.0  # 32 one-page requests on 32 dies: never on the same die
    assert stripe_others_share(33, 1, 32.0) == pytest.approx(32 / 32)  # the 33rd request is on the first's die
    assert stripe_others_share(5, 8, 8.0) == 1.0  # a request on every copy meets all the others' as at random
    assert stripe_others_share(1, 4, 8.0) == 1.0  # nobody else (Schweitzer's (n - 1) / n makes it 0)
    # many requests in flight: the wraps even out to the random share
    assert stripe_others_share(1001, 3, 8.0) == pytest.approx(1.0, rel=0.01)


def test_an_unknown_allocation_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"sequential_allocation.*way_first.*channel_first"):
        load_config(PM9A3, controller="c09", overrides=["nand.sequential_allocation='way_first'"])
