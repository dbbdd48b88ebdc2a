"""docs/accuracy.md is generated: it must be what ``benchmarks/accuracy.py render`` makes of the committed campaign
(reports/accuracy/campaign.json). The script runs as a subprocess; the tests import nothing from benchmarks/."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "accuracy.py"
CAMPAIGN = ROOT / "reports" / "accuracy" / "campaign.json"


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "render", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_the_accuracy_page_is_the_one_the_campaign_renders():
    done = render("--check")
    assert done.returncode == 0, done.stderr


def test_the_check_fails_on_a_page_edited_by_hand(tmp_path):
    page = tmp_path / "accuracy.md"
    page.write_text((ROOT / "docs" / "accuracy.md").read_text() + "\nedited by hand\n")
    done = render("--check", "--out", str(page))
    assert done.returncode == 1
    assert "differs" in done.stderr


def test_the_campaign_is_small_and_names_its_command():
    assert CAMPAIGN.stat().st_size < 500_000
    doc = json.loads(CAMPAIGN.read_text())
    assert doc["command"].startswith("python benchmarks/accuracy.py run")
    assert len(doc["designs"]) >= 150


def test_no_test_imports_from_the_benchmarks():
    offending = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                 if any(line.lstrip().startswith(("import benchmarks", "from benchmarks"))
                        for line in p.read_text().splitlines())]
    assert not offending


def test_the_readmes_accuracy_table_is_the_one_the_runs_give():
    tool = ROOT / "tools" / "readme_accuracy.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # the table counts what the runs hold: as many designs as the campaign, as many rows as the MQSim run
    readme = (ROOT / "README.md").read_text()
    campaign = json.loads(CAMPAIGN.read_text())
    crossval = json.loads((ROOT / "reports" / "mqsim" / "crossval.json").read_text())
    assert f"| {len(campaign['designs'])} | {sum(d['within'] for d in campaign['designs'])} |" in readme
    assert readme.count(f"| {len(crossval['rows'])} | ") == 2
