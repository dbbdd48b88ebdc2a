"""``host.full_duplex``: each direction of the PCIe link is its own station (MQSim's link, real PCIe)."""

import pytest

from ssdco import evaluate, load_config
from ssdco.errors import ConfigError
from ssdco.network.build import build_network
from ssdco.spec.schema import CQE_BYTES
from tests.conftest import PM9A3

DUPLEX = ["host.full_duplex=true"]
# a link-bound mix: 128 KiB halves of reads and writes over a PCIe 3.0 x2 link in front of fast NAND
LINK_BOUND = ["workload.request_size_kib=128", "workload.read_fraction=0.5", "host.pcie_gen=3", "host.pcie_lanes=2",
              "nand.channel_rate_mts=4000", "nand.t_prog_us=100", "workload.queue_depth=64"]


def _link_us(config, station: str, op: str) -> float:
    net = build_network(config)
    return sum(net.step_moments(s, op)[0] for s in net.steps if s.station == station and s.ops in ("both", op))


def test_each_direction_carries_its_own_bytes_and_together_the_shared_link_s():
    shared, duplex = load_config(PM9A3, controller="c07"), load_config(PM9A3, controller="c07", overrides=DUPLEX)
    assert [s.name for s in build_network(duplex).stations][:2] == ["pcie", "pcie_in"]
    link = 1.0 / duplex.host.bytes_per_us
    data = 4096 * link
    # a read: its data and the completion entry toward the host, the rest of the command toward the device
    assert _link_us(duplex, "pcie", "read") == pytest.approx(data + CQE_BYTES * link)
    assert _link_us(duplex, "pcie_in", "read") == pytest.approx((duplex.host.command_bytes - CQE_BYTES) * link)
    # a write: its data toward the device, only the completion entry toward the host
    assert _link_us(duplex, "pcie_in", "write") == pytest.approx(data + (duplex.host.command_bytes - CQE_BYTES) * link)
    assert _link_us(duplex, "pcie", "write") == pytest.approx(CQE_BYTES * link)
    for op in ("read", "write"):  # nothing is lost or added: the shared link carries the sum
        assert _link_us(shared, "pcie", op) == pytest.approx(_link_us(duplex, "pcie", op)
                                                             + _link_us(duplex, "pcie_in", op))


def test_a_link_bound_mix_gets_about_twice_the_capacity_and_reads_alone_do_not_change():
    shared = evaluate(load_config(PM9A3, controller="c07", overrides=LINK_BOUND), effort="fast")
    duplex = evaluate(load_config(PM9A3, controller="c07", overrides=LINK_BOUND + DUPLEX), effort="fast")
    assert shared.bottleneck == "pcie"
    assert duplex.bounds.capacity_iops == pytest.approx(2 * shared.bounds.capacity_iops, rel=0.01)
    assert duplex.iops > 1.9 * shared.iops
    reads = [o for o in LINK_BOUND if "read_fraction" not in o] + ["workload.read_fraction=1.0"]
    alone = evaluate(load_config(PM9A3, controller="c07", overrides=reads), effort="fast")
    alone_duplex = evaluate(load_config(PM9A3, controller="c07", overrides=reads + DUPLEX), effort="fast")
    assert alone_duplex.bounds.capacity_iops == pytest.approx(alone.bounds.capacity_iops, rel=0.01)


@pytest.mark.parametrize("overrides", [DUPLEX, DUPLEX + ["workload.read_fraction=0.7"], DUPLEX + LINK_BOUND,
                                       DUPLEX + ["workload.read_fraction=0.5", "workload.queue_depth=4"]])
def test_the_des_agrees_with_the_model_on_a_full_duplex_link(overrides):
    from ssdco.validation.compare import validate

    v = validate(load_config(PM9A3, controller="c07", overrides=overrides), requests=60_000, seed=4, replications=0)
    assert v.agrees, (v.relative_error, v.analytic.method)


def test_a_duplex_link_needs_the_completion_entry_s_bytes():
    with pytest.raises(ConfigError, match="host.command_bytes"):
        load_config(PM9A3, overrides=DUPLEX + ["host.command_bytes=8"])
