"""The page's figures and texts, and ``ssdco serve`` on the command line (the browser test is test_browser.py)."""

import socket
import sys
import tomllib

import pytest

from ssdco.cli import main
from ssdco.model.whatif import evaluate
from ssdco.serve.app import SERVE_HINT, des_text, power_figure, utilisation_figure
from ssdco.serve.jobs import JobStatus
from ssdco.spec import config_from_dict, load_config
from tests.conftest import PM9A3


@pytest.fixture(scope="module")
def c01():
    return evaluate(load_config(PM9A3, controller="c01"), effort="fast")


def test_the_power_figure_draws_each_set_budget_over_its_bar(c01):
    fig = power_figure(c01)
    assert fig["data"][0]["x"] == ["core side", "DRAM"]
    assert fig["data"][0]["y"] == [c01.power.core_side_mw, c01.power.dram_mw]
    assert [s["y0"] for s in fig["layout"]["shapes"]] == [192.0, 800.0]
    # c01's five 1 GHz cores are over the 192 mW budget: that bar is marked, the DRAM bar is not
    assert c01.power.core_side_mw > 192.0 and c01.power.dram_mw < 800.0
    colours = fig["data"][0]["marker"]["color"]
    assert colours[0] != colours[1]


def test_an_unset_budget_draws_no_line():
    raw = tomllib.loads(PM9A3.read_text(encoding="utf-8"))
    del raw["budgets"]["core_power_mw"]
    r = evaluate(config_from_dict(raw, source=str(PM9A3), base_dir=PM9A3.parent, controller="c01"), effort="fast")
    assert [s["y0"] for s in power_figure(r)["layout"]["shapes"]] == [800.0]


def test_the_utilisation_figure_marks_the_bottleneck_alone(c01):
    fig = utilisation_figure(c01)
    bars = fig["data"][0]
    assert bars["y"] == list(c01.utilization)
    marked = [name for name, text in zip(bars["y"], bars["text"]) if "bottleneck" in text]
    assert marked == [c01.bottleneck]
    assert len(set(bars["marker"]["color"])) == 2


def test_the_des_text_follows_the_run():
    assert des_text(None) == ""
    assert des_text(JobStatus(job=1, requests=20_000, completed=5_000)) == \
        "DES running: 5,000 of 20,000 requests"
    assert des_text(JobStatus(job=1, requests=20_000, error="boom")) == "DES: boom"


def test_serve_without_dash_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dash", None)  # import dash raises ImportError
    assert main(["serve", str(PM9A3)]) == 2
    assert SERVE_HINT in capsys.readouterr().err


def test_serve_on_a_port_in_use_says_so(capsys):
    pytest.importorskip("dash")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", str(PM9A3), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err


def test_serve_refuses_a_bad_port_before_starting(capsys):
    with pytest.raises(SystemExit) as e:
        main(["serve", str(PM9A3), "--port", "70000"])
    assert e.value.code == 2
    assert "--port: expected 0 or an integer in [1, 65,535], got '70000'" in capsys.readouterr().err


def test_serve_refuses_a_bad_configuration_before_starting(capsys):
    pytest.importorskip("dash")
    assert main(["serve", str(PM9A3), "--set", "nand.channels=0"]) == 2
    assert "nand.channels" in capsys.readouterr().err


def test_serve_on_the_command_line_serves_the_page_until_ctrl_c():
    """The console command as a user runs it: it says where the page is, serves it, and stops on Ctrl-C (exit 0)."""
    import re
    import signal
    import subprocess
    import urllib.request

    pytest.importorskip("dash")
    proc = subprocess.Popen([sys.executable, "-m", "ssdco", "serve", str(PM9A3), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    try:
        line = proc.stdout.readline()
        url = re.search(r"on (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)", line).group(1)
        with urllib.request.urlopen(url + "_dash-layout", timeout=60) as page:
            assert b"ssdco serve: pm9a3-960" in page.read()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "ssdco serve: stopped" in err
