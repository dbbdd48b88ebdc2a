"""What a transaction moves on its channel: a read that fits one mapping unit its own sectors (a 4 KiB read of a
16 KiB unit moves 4 KiB, as MQSim's sector-granular reads do), any other read and every write its mapping unit."""

import pytest

from ssdco.network.build import build_network
from ssdco.spec import load_config
from tests.conftest import PM9A3

KIB = 1024


def _transfer(overrides: list[str]):
    config = load_config(PM9A3, controller="c01", overrides=["workload.mapping_unit_kib=16", *overrides])
    step = next(s for s in build_network(config).steps if s.label == "nand_transfer")
    return config.nand, step


def test_a_read_moves_its_own_sectors_and_a_write_its_unit():
    nand, step = _transfer(["workload.request_size_kib=4", "workload.read_fraction=0.7"])
    assert step.read_us == pytest.approx(nand.transfer_us(4 * KIB))
    assert step.write_us == pytest.approx(nand.transfer_us(16 * KIB))


def test_requests_of_whole_units_move_whole_units():
    nand, step = _transfer(["workload.request_size_kib=32", "workload.read_fraction=1.0"])
    assert step.read_us == pytest.approx(nand.transfer_us(16 * KIB))


def test_a_mix_of_sizes_within_one_unit_moves_its_mean_size():
    """Half 4 KiB, half 8 KiB, each one transaction of a 16 KiB unit: a read moves 6 KiB on average."""
    nand, step = _transfer(["workload.request_size_kib={sizes = [4, 8], probabilities = [0.5, 0.5]}",
                            "workload.read_fraction=1.0"])
    assert step.read_us == pytest.approx(nand.transfer_us(6 * KIB))


def test_requests_that_split_into_several_units_move_whole_units():
    """4 and 32 KiB requests of a 16 KiB unit: the 32 KiB ones split in two, and every read moves a unit."""
    nand, step = _transfer(["workload.request_size_kib={sizes = [4, 32], probabilities = [0.5, 0.5]}",
                            "workload.read_fraction=1.0"])
    assert step.read_us == pytest.approx(nand.transfer_us(16 * KIB))
