"""examples/tour.py runs (small sizes) and prints what the API answers."""

import runpy

import pytest

import ssdco
from tests.conftest import PM9A3, ROOT

TOUR = ROOT / "examples" / "tour.py"


def _figures(line: str) -> dict[str, str]:
    """``tour: <step> k=v k=v ...`` -> {k: v}."""
    return dict(part.split("=", 1) for part in line.split()[2:] if "=" in part)


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    """The tour run as a script, its printed lines and its namespace."""
    mp = pytest.MonkeyPatch()
    plots = tmp_path_factory.mktemp("tour-plots")
    mp.setenv("SSDCO_TOUR_REQUESTS", "5000")
    mp.setenv("SSDCO_TOUR_QUEUE_DEPTHS", "1,8,32")
    try:
        import matplotlib  # noqa: F401
        mp.setenv("SSDCO_TOUR_PLOTS", str(plots))
    except ImportError:
        mp.delenv("SSDCO_TOUR_PLOTS", raising=False)
    from contextlib import redirect_stdout
    from io import StringIO

    buf = StringIO()
    try:
        with redirect_stdout(buf):
            namespace = runpy.run_path(str(TOUR), run_name="__main__")
    finally:
        mp.undo()
    lines = buf.getvalue().splitlines()
    steps = {}
    for line in lines:
        if line.startswith("tour: "):
            steps.setdefault(line.split()[1], []).append(_figures(line))
    return lines, steps, namespace


def test_the_tour_prints_the_whatif_answer_of_c07(tour):
    lines, steps, ns = tour
    c07 = ssdco.evaluate(PM9A3, controller="c07")  # the API, called here on its own
    (printed,) = steps["whatif"]
    assert float(printed["iops"]) == c07.iops
    assert float(printed["latency_mean_us"]) == c07.latency_mean_us
    assert float(printed["power_total_mw"]) == c07.power.total_mw
    assert float(printed["capacity_iops"]) == c07.bounds.capacity_iops
    assert repr(c07) in "\n".join(lines)


def test_the_tour_optimizes_at_the_studys_target(tour):
    _, steps, ns = tour
    (printed,) = steps["optimize"]
    c01 = ssdco.evaluate(PM9A3, controller="c01")
    assert float(printed["target_iops"]) == c01.iops  # the study's target: the baseline's IOPS
    best = ns["best"]
    assert printed["status"] == best.status == "optimal"
    assert float(printed["cost"]) == best.cost
    assert float(printed["pick_iops"]) == best.verdict.analytic.iops >= c01.iops
    assert best.verdict.analytic.power.core_side_mw <= best.targets.core_power_mw


def test_the_tour_validates_the_pick(tour):
    _, steps, ns = tour
    (printed,) = steps["validate"]
    again = ssdco.validate(ns["best"].pick_config("pick"), requests=5000)  # same seed: the same DES run
    assert float(printed["des_iops"]) == again.des.iops.value
    assert float(printed["model_iops"]) == again.analytic.iops == ns["best"].verdict.analytic.iops
    assert printed["verdict"] == again.verdict


def test_the_tours_sweep_matches_evaluate_at_each_queue_depth(tour):
    _, steps, _ = tour
    rows = steps["sweep"]
    assert [int(r["queue_depth"]) for r in rows] == [1, 8, 32]
    for r in rows:
        direct = ssdco.evaluate(PM9A3, controller="c07", effort="fast",
                                overrides=[f"workload.queue_depth={r['queue_depth']}"])
        assert float(r["iops"]) == direct.iops
        assert float(r["latency_mean_us"]) == direct.latency_mean_us
    iops = [float(r["iops"]) for r in rows]
    assert iops == sorted(iops)


def test_the_tours_plots_are_pngs(tour):
    pytest.importorskip("matplotlib")
    from pathlib import Path

    lines, _, _ = tour
    paths = [Path(line[len("tour: plot "):]) for line in lines if line.startswith("tour: plot ")]
    assert [p.name for p in paths] == ["optimize.png", "validate.png", "sweep.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 1000
