"""The gallery (``configs/gallery/``): every design file has a header comment, loads, and has a finite answer."""

import math

import pytest

import ssdco
from tests.gallery import GALLERY, gallery, gallery_paths


def test_the_gallery_is_found():
    assert len(gallery_paths()) >= 40


@pytest.mark.parametrize("path", gallery_paths(), ids=lambda p: p.stem)
def test_a_gallery_design_says_what_it_is_loads_and_evaluates(path):
    lines = path.read_text().splitlines()
    header = lines[:next(i for i, line in enumerate(lines) if not line.startswith("#"))]
    assert header and sum(len(line) for line in header) > 100, f"{path.name}: no header comment saying what it is"
    config = ssdco.load_config(path)
    assert config.controller is not None and config.name
    # --fast keeps this a check of the file; the default effort's answers are pinned in tools/golden.json
    result = ssdco.evaluate(config, effort="fast")
    assert result.iops > 0 and all(math.isfinite(x) for x in (result.iops, result.latency_mean_us,
                                                                result.latency_p99_us)), result


def test_a_keyword_sets_the_one_field_of_its_name():
    assert gallery("reads-saturating-one-slow-core", queue_depth=16)["workload"]["queue_depth"] == 16
    assert gallery("writes-holding-a-start-pattern", t_prog_us=500.0)["nand"]["t_prog_us"] == 500.0
    with pytest.raises(KeyError):
        gallery("two-reads-two-dies", no_such_field=1)
    assert (GALLERY / "two-reads-two-dies.toml").is_file()
