"""Plots (ssdco/report/plots.py): each --plot option writes a PNG; the figure functions refuse bad input clearly."""

import importlib.util
import sys
from types import SimpleNamespace

import pytest

from ssdco.cli import main
from ssdco.report.plots import PlotError, latency_tail_figure, pareto_figure, sweep_figure, validation_figure
from tests.conftest import PM9A3

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
MATPLOTLIB_MODULES = ("matplotlib", "matplotlib.figure", "matplotlib.backends", "matplotlib.backends.backend_agg")

needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib (the plot extra) is missing")


def _is_png(path):
    data = path.read_bytes()
    return len(data) > 1000 and data[:8] == PNG_MAGIC


@needs_matplotlib
def test_validate_plot_writes_a_png(tmp_path, capsys):
    out = tmp_path / "v.png"
    assert main(["validate", str(PM9A3), "-c", "c07", "--requests", "5000", "--replications", "0",
                 "--plot", str(out)]) == 0
    assert _is_png(out) and str(out) in capsys.readouterr().out


@needs_matplotlib
def test_optimize_plot_writes_a_png(tmp_path, capsys):
    out = tmp_path / "sub" / "o.png"
    assert main(["optimize", str(PM9A3), "--min-iops", "300000", "--no-des", "--plot", str(out), "--json"]) == 0
    assert _is_png(out)
    assert '"plot"' in capsys.readouterr().out


@needs_matplotlib
def test_sweep_plot_writes_a_png(tmp_path):
    out = tmp_path / "s.png"
    assert main(["sweep", str(PM9A3), "--grid", "workload.queue_depth=1,8,32", "--grid", "controller=c01,c07",
                 "--fast", "--out", str(tmp_path / "s.csv"), "--plot", str(out), "--progress", "off"]) == 0
    assert _is_png(out)


def test_plot_without_matplotlib_exits_2_before_running(tmp_path, monkeypatch, capsys):
    for m in MATPLOTLIB_MODULES:
        monkeypatch.setitem(sys.modules, m, None)
    import ssdco.validation.compare as compare

    monkeypatch.setattr(compare, "validate", lambda *a, **k: pytest.fail("must check matplotlib first"))
    out = tmp_path / "v.png"
    assert main(["validate", str(PM9A3), "-c", "c07", "--plot", str(out)]) == 2
    err = capsys.readouterr().err
    assert "matplotlib" in err and "ssdco[plot]" in err and not out.exists()
    with pytest.raises(PlotError, match=r"ssdco\[plot\]"):
        pareto_figure([1.0], [1.0], [True])


def test_plot_to_an_unwritable_path_exits_2(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["sweep", str(PM9A3), "--grid", "workload.queue_depth=1", "--out", str(tmp_path / "s.csv"),
                 "--plot", str(blocker / "s.png")]) == 2
    assert "--plot" in capsys.readouterr().err


@needs_matplotlib
@pytest.mark.parametrize("args, match", [
    (([1.0, 2.0], [1.0], [True, True]), "equally long"),
    (([1.0, float("nan")], [1.0, 2.0], [True, True]), r"costs: value nan"),
    (([1.0], [-5.0], [True]), r"iops: value -5.0"),
    (([], [], []), "costs: expected at least one value"),
    ((["a"], [1.0], [True]), "costs: expected a sequence of numbers"),
])
def test_pareto_figure_refuses_bad_input(args, match):
    with pytest.raises(PlotError, match=match):
        pareto_figure(*args)


@needs_matplotlib
def test_pareto_figure_refuses_a_bad_pick_and_target():
    with pytest.raises(PlotError, match="pick"):
        pareto_figure([1.0], [1.0], [True], pick=(1.0,))
    with pytest.raises(PlotError, match="target_iops"):
        pareto_figure([1.0], [1.0], [True], target_iops=float("inf"))


@needs_matplotlib
def test_sweep_figure_refuses_bad_input():
    rows = [{"workload.queue_depth": 1, "iops": 10.0, "latency_us.mean": 5.0}]
    with pytest.raises(PlotError, match="axes: expected at least one"):
        sweep_figure(rows, [])
    with pytest.raises(PlotError, match="'nand.dies' is not a column"):
        sweep_figure(rows, ["nand.dies"])
    with pytest.raises(PlotError, match="no grid point has an IOPS value"):
        sweep_figure([{"workload.queue_depth": 1, "iops": None, "error": "ConfigError: x"}], ["workload.queue_depth"])
    with pytest.raises(PlotError, match="latency_us.mean: value -5.0"):
        sweep_figure([dict(rows[0], **{"latency_us.mean": -5.0})], ["workload.queue_depth"])


@needs_matplotlib
def test_sweep_figure_draws_a_line_per_other_axis_value():
    rows = [{"workload.queue_depth": q, "controller": c, "iops": q * k * 1e3, "latency_us.mean": 50.0 + k}
            for c, k in (("c01", 1.0), ("c07", 2.0)) for q in (1, 8, 32)]
    fig = sweep_figure(rows, ["workload.queue_depth", "controller"])
    iops_ax = fig.axes[0]
    assert [t.get_text() for t in iops_ax.get_legend().get_texts()] == ["model, controller=c01",
                                                                      "model, controller=c07"]
    assert list(iops_ax.lines[1].get_ydata()) == [2e3, 16e3, 64e3]


@needs_matplotlib
def test_validation_figure_refuses_bad_input():
    good = dict(model_mean_us=10.0, model_p99_us=20.0, des_mean_us=10.0, des_p99_us=20.0)
    with pytest.raises(PlotError, match="non-decreasing CDF"):
        validation_figure([1.0, 2.0], [0.6, 0.5], **good)
    with pytest.raises(PlotError, match="ascending latencies"):
        validation_figure([2.0, 1.0], [0.5, 1.0], **good)
    with pytest.raises(PlotError, match="DES latency_us: value 0.0"):
        validation_figure([0.0, 1.0], [0.5, 1.0], **good)
    with pytest.raises(PlotError, match="model_mean_us"):
        validation_figure([1.0, 2.0], [0.5, 1.0], **dict(good, model_mean_us=float("nan")))


@needs_matplotlib
def test_latency_tail_figure_refuses_bad_input_and_shows_every_curve():
    with pytest.raises(PlotError, match="at least one"):
        latency_tail_figure([])
    with pytest.raises(PlotError, match="labels must differ"):
        latency_tail_figure([("a", [1.0, 2.0], [0.5, 1.0]), ("a", [1.0, 2.0], [0.5, 1.0])])
    curves = [(f"c{k:02d}", [10.0, 20.0, 30.0 + k], [0.5, 0.99, 1.0]) for k in range(1, 13)]
    fig = latency_tail_figure(curves, highlight=["c12"])
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [c[0] for c in curves]
    names = {c[0] for c in curves}
    styles = {(line.get_color(), line.get_linestyle()) for line in ax.lines if line.get_label() in names}
    assert len(styles) == len(curves)  # every design reads apart


@needs_matplotlib
def test_the_studys_latency_plot_shows_every_design():
    from matplotlib.figure import Figure

    from ssdco.report.study import _plot_cdf

    def run(name, origin="preset"):
        return SimpleNamespace(name=name, origin=origin, latency_cdf_us=([50.0, 60.0, 70.0], [0.5, 0.99, 1.0]),
                               des=SimpleNamespace(latency_mean_us=55.0, latency_p99_us=60.0))

    study = SimpleNamespace(runs=[run(f"c{k:02d}") for k in range(1, 11)] + [run("pick", "optimizer")],
                            requests=20_000, seed=0)
    fig = _plot_cdf(study, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert len(labels) == 11 and labels[-1].startswith("optimizer pick")
    assert fig.axes[0].get_yscale() == "log"


def test_pareto_figure_draws_power_and_colours_device_options():
    fig = pareto_figure([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [True, True, False], pick=(2.0, 20.0),
                        power_mw=[50.0, 40.0, 30.0], power_budget_mw=45.0, devices=["a", "b", "b"],
                        pick_power_mw=40.0)
    ax_iops, ax_power = fig.axes
    labels = [t.get_text() for t in ax_power.get_legend().get_texts()]
    assert any("(a)" in t for t in labels) and any("(b)" in t for t in labels)
    assert any("core-side budget 45 mW" in t for t in labels) and any("pick: 40.0 mW" in t for t in labels)
    assert ax_power.get_ylabel().startswith("core-side power")
    with pytest.raises(PlotError, match="equally long"):
        pareto_figure([1.0, 2.0], [1.0, 2.0], [True, True], power_mw=[1.0])
    one = pareto_figure([1.0], [1.0], [True], devices=["only"])  # one option: no colour per option
    assert not any("(only)" in t.get_text() for t in one.axes[0].get_legend().get_texts())
