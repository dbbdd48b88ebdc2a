"""The random designs of the accuracy campaigns and property tests (ssdco/validation/random_designs.py)."""

import pytest

from ssdco.spec import MODULES, config_from_dict
from ssdco.validation.random_designs import core_group_config, one_more_server, open_at, random_config


@pytest.mark.parametrize("mixed", [False, True])
def test_a_seed_gives_one_valid_design_every_time(mixed):
    for seed in range(30):
        d = random_config(seed, mixed_sizes=mixed)
        assert d == random_config(seed, mixed_sizes=mixed)
        config = config_from_dict(d)  # valid: the loader's checks hold
        assert config.workload.queue_depth is not None and 1 <= config.workload.queue_depth <= 48
        assert set(config.workload.request_sizes_kib) <= ({4.0, 8.0, 16.0} if mixed else {4.0})
        placed = [m for g in d["controller"]["core_groups"] for m in g["modules"]]
        assert sorted(placed + list(d["controller"].get("accelerators", {}))) == sorted(MODULES)
    assert random_config(1, mixed_sizes=False) != random_config(2, mixed_sizes=False)


def test_one_more_server_adds_exactly_one_core_or_unit():
    d = random_config(7, mixed_sizes=False)
    for label, more in one_more_server(d):
        cores = [g["count"] for g in d["controller"]["core_groups"]]
        cores_more = [g["count"] for g in more["controller"]["core_groups"]]
        units = sum(d["controller"].get("accelerators", {}).values())
        units_more = sum(more["controller"].get("accelerators", {}).values())
        assert sum(cores_more) + units_more == sum(cores) + units + 1, label
    assert d == random_config(7, mixed_sizes=False)  # the design itself is left as it was


def test_open_at_a_load_of_the_closed_designs_capacity():
    from ssdco import evaluate

    d = random_config(3, mixed_sizes=False)
    capacity = evaluate(config_from_dict(d)).bounds.capacity_iops
    o = open_at(d, 0.5)
    assert "queue_depth" not in o["workload"] and o["workload"]["arrival_iops"] == pytest.approx(0.5 * capacity)
    assert "queue_depth" in d["workload"]  # a copy


def test_a_core_group_design_runs_the_named_modules_on_one_group():
    d = core_group_config(2, ("parse", "translate"))
    (group,) = [g for g in d["controller"]["core_groups"] if "parse" in g["modules"]]
    assert group["count"] == 2 and group["modules"] == ["parse", "translate"]
    config_from_dict(d)
