"""docs/mqsim.md is generated: it must be what ``benchmarks/mqsim.py render`` makes of the committed run
(reports/mqsim/crossval.json), and that run covers every MQSim reference row. The script runs as a subprocess."""

import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "mqsim.py"
RUN = ROOT / "reports" / "mqsim" / "crossval.json"


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "render", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_the_mqsim_page_is_the_one_the_run_renders():
    done = render("--check")
    assert done.returncode == 0, done.stderr


def test_the_check_fails_on_a_page_edited_by_hand(tmp_path):
    page = tmp_path / "mqsim.md"
    page.write_text((ROOT / "docs" / "mqsim.md").read_text().replace("| yes |", "| no |", 1))
    done = render("--check", "--out", str(page))
    assert done.returncode == 1 and "differs" in done.stderr


def test_the_run_covers_every_reference_row_and_names_its_command():
    doc = json.loads(RUN.read_text())
    assert doc["command"].startswith("python benchmarks/mqsim.py run")
    reference = {r["run_id"]: float(r["iops_total"]) for r in csv.DictReader((ROOT / "data" / "mqsim" / "results.csv")
                                                                            .open())}
    assert {r["run_id"]: r["mqsim_iops"] for r in doc["rows"]} == reference
