"""README.md as a guide: its size, its worked example (run as a new user would) and user-facing text free of history.

The worked example is the device file between ``<!-- file: my-drive.toml -->`` and ``<!-- /file -->`` and the
command of the ``<!-- tour: example -->`` block; ``tools/readme_tour.py`` reads the same markers.
"""

import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 250
MAX_LINE_CHARS = 120

_spec = importlib.util.spec_from_file_location("readme_tour", ROOT / "tools" / "readme_tour.py")
readme_tour = sys.modules.setdefault("readme_tour", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(readme_tour)

MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
          "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
#: 2026-12-05; 5 December 2026, December 5, 2026, Dec 2026 (month-name dates); 20261455 (a campaign seed)
ISO_DATE = re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b")
MONTH_DATE = re.compile(rf"\b\d{{1,2}}\s+({MONTHS})\.?,?\s+(19|20)\d\d\b"
                        rf"|\b({MONTHS})\.?\s+(\d{{1,2}}(st|nd|rd|th)?,?\s+)?(19|20)\d\d\b")
CAMPAIGN_SEED = re.compile(r"\b20\d{6}\b")


def user_facing_files() -> list[Path]:
    """README.md, docs/*.md (docs/accuracy.md too, which benchmarks/accuracy.py renders), configs/**/*.toml and
    configs/*.md."""
    files = [README]
    files += sorted((ROOT / "docs").glob("*.md"))
    files += sorted((ROOT / "configs").rglob("*.toml"))
    files += sorted((ROOT / "configs").glob("*.md"))
    return files


def history_marks(text: str) -> list[tuple[int, str]]:
    """(line number, match) of every ISO date, month-name date and 8-digit campaign seed in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern in (ISO_DATE, MONTH_DATE, CAMPAIGN_SEED):
            found += [(number, m.group(0)) for m in pattern.finditer(line)]
    return found


def test_history_patterns_catch_what_they_are_for():
    text = "a 2026-12-05 b\nmeasured 5 December 2026\nDecember 5, 2026\nseeds 20261455-90\nin Sep 2010\n"
    assert [n for n, _ in history_marks(text)] == [1, 2, 3, 4, 5]
    assert history_marks("PCIe 4.0 x4, 580,000 IOPS, 198,648 designs, tools/x.py, JESD219 (2010), seed 0") == []


def test_readme_is_short_and_its_lines_fit():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; at most {MAX_README_LINES}"
    long_lines = [(n, len(line)) for n, line in enumerate(lines, start=1) if len(line) > MAX_LINE_CHARS]
    assert not long_lines, f"README.md lines (number, characters) over {MAX_LINE_CHARS}: {long_lines}"


@pytest.mark.parametrize("path", user_facing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_facing_text_has_no_dates_or_campaign_seeds(path):
    marks = history_marks(path.read_text())
    assert not marks, f"{path.relative_to(ROOT)}: dates or campaign seeds (line, text): {marks}"


def test_the_readme_keeps_its_two_setup_commands_and_the_makefile_has_them():
    text = README.read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, re.DOTALL).group(1)
    assert [line.split()[:2] for line in first_block.splitlines()] == [["make", "demo"], ["make", "test"]]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.MULTILINE) and re.search(r"^test:", makefile, re.MULTILINE)


def test_every_tour_block_has_a_command_and_its_output():
    found = readme_tour.tours(README.read_text())
    assert [t.name for t in found] == ["whatif", "optimize", "validate", "study", "sweep", "example"]
    for tour in found:
        assert tour.commands, tour.name
        body = README.read_text()[tour.start:tour.end]
        assert len(body.splitlines()) > len(tour.commands) + 2, f"tour {tour.name} shows no output"


@pytest.fixture(scope="module")
def worked_example(tmp_path_factory):
    """The README's device file written into a scratch directory, and the environment to run its command."""
    text = README.read_text()
    workdir = tmp_path_factory.mktemp("readme")
    env = readme_tour.scratch_environment(workdir, text)
    example = next(t for t in readme_tour.tours(text) if t.name == "example")
    return workdir, env, example, readme_tour.files(text)


def test_the_worked_example_describes_the_drive_the_readme_promises(worked_example):
    _, _, _, files = worked_example
    assert list(files) == ["my-drive.toml"]
    device = tomllib.loads(files["my-drive.toml"])
    assert device["nand"]["channels"] == 4 and device["nand"]["ways_per_channel"] == 2
    assert device["core_specs"] and all(s["frequency_mhz"] == 100.0 for s in device["core_specs"].values())


def test_the_worked_example_finds_the_cheapest_controller_on_100_mhz_cores(worked_example):
    workdir, env, example, files = worked_example
    (command,) = example.commands
    assert command.startswith("ssdco optimize my-drive.toml")
    status, output = readme_tour.run(command, workdir, env)
    assert status in (0, 1), output
    if status == 0:
        assert "PICK" in output, output
    else:
        assert "infeasible" in output.lower() or "no design" in output.lower(), output
    status_json, document = readme_tour.run(command + " --json", workdir, env)
    assert status_json == status, document
    result = json.loads(document)
    frequencies = {name: spec["frequency_mhz"]
                   for name, spec in tomllib.loads(files["my-drive.toml"])["core_specs"].items()}
    if result["feasible"]:
        groups = result["design"]["core_groups"]
        assert groups, "the pick runs no module on a core"
        assert all(frequencies[g["spec"]] == 100.0 for g in groups), groups
    else:
        assert result["message"]


def test_tour_output_is_shortened_as_marked():
    lines = readme_tour.shorten("\n".join(f"line {i}" for i in range(10)) + "\n", head=3, tail=2)
    assert lines == ["line 0", "line 1", "line 2", "...", "line 8", "line 9"]
    assert readme_tour.shorten("x" * 130, None, 0) == ["x" * 117 + "..."]
    assert readme_tour.shorten("a  \nb\n", head=3, tail=1) == ["a", "b"]


def test_the_configuration_reference_is_the_generated_one():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "config_reference.py"), "--check"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _load_tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = sys.modules.setdefault(name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def _documented_value(text: str):
    """A default as the reference prints it, as a Python value; None for a default described in words."""
    if text in ("true", "false"):
        return text == "true"
    if text == "unlimited":
        return float("inf")
    if text.startswith('"') and text.endswith('"') and text.count('"') == 2:
        return text[1:-1]
    try:
        return float(text)
    except ValueError:
        return None


def test_the_documented_defaults_are_the_ones_the_parser_applies():
    from ssdco.spec import config_from_dict

    reference = _load_tool("config_reference")
    tables = reference.spec_tables()
    raw = tomllib.loads(readme_tour.files(README.read_text())["my-drive.toml"])  # required fields only, mostly
    raw["accelerator_specs"] = {"parse": {"latency_us": 0.1, "idle_mw": 1.0, "energy_per_op_nj": 0.5}}
    raw["ftl"] = {}
    config = config_from_dict(raw)
    objects = {"nand": config.nand, "host": config.host, "dram": config.dram, "workload": config.workload,
               "variability": config.variability, "budgets": config.budgets, "ftl": config.ftl,
               "core_specs.<name>": config.core_specs["c100m"], "modules.<name>": config.modules["parse"],
               "accelerator_specs.<name>": config.accelerator_specs["parse"]}
    given = {"core_specs.<name>": raw["core_specs"]["c100m"], "modules.<name>": raw["modules"]["parse"],
             "accelerator_specs.<name>": raw["accelerator_specs"]["parse"]}
    checked = []
    for path, parsed in objects.items():
        for key, field in tables[path].fields.items():
            documented = _documented_value(field.default)
            if documented is None or key in given.get(path, raw.get(path, {})) or not hasattr(parsed, key):
                continue  # described in words, set by the file, or stored under another name
            assert getattr(parsed, key) == documented, f"[{path}] {key}: parsed {getattr(parsed, key)!r}, " \
                                                        f"documented {field.default}"
            checked.append(f"{path}.{key}")
    assert len(checked) >= 30, checked


def test_the_contribution_table_in_the_model_reference_is_the_rendered_campaign():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "solver_contributions.py"), "--render", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
