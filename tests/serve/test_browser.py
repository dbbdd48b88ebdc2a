"""The page in a real headless browser (Playwright driving Chromium): load it, move controls and see the IOPS
change, validate with the DES, download the design and load it again with ``ssdco whatif``.

Needs the ``playwright`` Python package and a Chromium (``SSDCO_CHROMIUM``, else ``chromium`` on the PATH, as
Debian's package installs it; ``make test`` installs it where it can). Without them the test is skipped, unless
``SSDCO_REQUIRE_BROWSER=1`` (CI sets it): then it fails, so that CI never passes without the browser test.
``SSDCO_SCREENSHOT_DIR``: where to keep the screenshots (else the test's temporary directory).
"""

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from ssdco.cli import main
from ssdco.serve.design import answer, controls_for, design_from_values
from ssdco.spec import load_config
from tests.conftest import PM9A3

DES_REQUESTS = 20_000
TIMEOUT_MS = 120_000  # a guard against a page that never answers, not a speed check
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def _missing(why: str):
    if os.environ.get("SSDCO_REQUIRE_BROWSER") == "1":
        pytest.fail(f"SSDCO_REQUIRE_BROWSER=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser():
    pytest.importorskip("dash")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (the test extra has it)")
    executable = os.environ.get("SSDCO_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        _missing("no Chromium found (set SSDCO_CHROMIUM, or install Debian's chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def c01():
    return load_config(PM9A3, controller="c01")


@pytest.fixture(scope="module")
def url(c01):
    from ssdco.serve.app import start_server

    server = start_server(c01, port=0, des_requests=DES_REQUESTS)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}/"
    server.shutdown()
    server.server_close()


def _iops(page) -> int:
    return int(page.inner_text("#kpi-iops").replace(",", ""))


def _wait_for_new_iops(page, before: int) -> int:
    page.wait_for_function(f"document.querySelector('#kpi-iops') && "
                           f"document.querySelector('#kpi-iops').innerText.replace(/,/g, '') != '{before}'",
                           timeout=TIMEOUT_MS)
    return _iops(page)


def _shots(tmp_path) -> Path:
    where = Path(os.environ.get("SSDCO_SCREENSHOT_DIR") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def test_the_page_answers_live_validates_and_downloads_a_design_whatif_loads(browser, url, c01, tmp_path, capsys):
    page = browser.new_page(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("#kpi-iops", timeout=TIMEOUT_MS)
    controls = controls_for(c01)
    assert _iops(page) == round(answer(c01, design_from_values(c01, controls, {})).result.iops)
    shots = _shots(tmp_path)
    page.screenshot(path=str(shots / "serve-start.png"), full_page=True)

    # a number field: queue depth 32 -> 8, applied on Enter
    before = _iops(page)
    page.fill("#workload-queue_depth", "8")
    page.press("#workload-queue_depth", "Enter")
    qd8 = _wait_for_new_iops(page, before)
    expected = answer(c01, design_from_values(c01, controls, {"workload-queue_depth": 8})).result
    assert qd8 == round(expected.iops) and qd8 < before

    # a choice: cache lookup (c01's bottleneck at queue depth 32) onto its hardware accelerator
    page.click("#place-cache_lookup")
    page.get_by_role("option", name="hardware accelerator").click()
    moved = _wait_for_new_iops(page, qd8)
    values = {"workload-queue_depth": 8, "place-cache_lookup": "accelerator"}
    assert moved == round(answer(c01, design_from_values(c01, controls, values)).result.iops)
    assert "cores:cache" not in page.inner_text("#utilisation-figure")

    # the DES in the background, with progress, then its verdict
    page.click("#des-button")
    page.wait_for_function("document.querySelector('#des-result').innerText.includes('IOPS (model')",
                           timeout=TIMEOUT_MS)
    assert page.inner_text("#des-result").startswith(("DES AGREE", "DES DISAGREE", "DES UNSETTLED"))
    assert page.eval_on_selector("#des-progress", "e => e.value") == 1
    page.screenshot(path=str(shots / "serve-moved.png"), full_page=True)

    # the design as TOML, loaded again by whatif: the same IOPS as the page shows
    with page.expect_download() as download:
        page.click("#download-button")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    capsys.readouterr()
    assert main(["whatif", str(path), "--fast", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert round(doc["iops"]) == moved and doc["workload"]["queue_depth"] == 8
    assert errors == []
    page.close()


def test_a_value_out_of_range_shows_why_and_no_figures(browser, url):
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector("#kpi-iops", timeout=TIMEOUT_MS)
    page.fill("#nand-channels", "0")
    page.press("#nand-channels", "Enter")
    page.wait_for_function("document.querySelector('#error').innerText.length > 0", timeout=TIMEOUT_MS)
    assert page.inner_text("#error") == ("channels: no value (empty, or outside the field's range); expected an "
                                         "integer in [1, 64]")
    assert page.query_selector("#kpi-iops") is None
    page.close()
