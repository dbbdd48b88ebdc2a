"""The code's line length: at most ``MAX_LINE_CHARS`` characters in every Python file of the package, the tests
and the benchmarks (the layout ``../shared/STYLE.md`` asks for; three docstring lines had grown past it)."""

from pathlib import Path

import pytest

MAX_LINE_CHARS = 120
ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for folder in ("ssdco", "tests", "benchmarks") for p in (ROOT / folder).rglob("*.py"))


def test_the_sources_are_found():
    assert any(p.name == "whatif.py" for p in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_line_is_longer_than_the_limit(path):
    long_lines = [(number, len(line)) for number, line in enumerate(path.read_text().splitlines(), start=1)
                  if len(line) > MAX_LINE_CHARS]
    assert not long_lines, f"{path.relative_to(ROOT)}: lines (number, characters) over {MAX_LINE_CHARS}: {long_lines}"
