"""The code's style: at most ``MAX_LINE_CHARS`` characters a line in every Python file of the package, the tests
and the benchmarks (the layout ``../shared/STYLE.md`` asks for), and no development history (dates, campaign
seeds, session counts, before/after narrative) in the package's comments, docstrings and strings."""

import io
import re
import tokenize
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


PACKAGE_SOURCES = sorted((ROOT / "ssdco").rglob("*.py"))
MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
         r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth"
           r"|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth"
           r"|(?:twenty|thirty|forty)-(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)"
           r"|\d+(?:st|nd|rd|th))")
HISTORY_PATTERNS = {
    "ISO date": r"\b20\d\d-\d\d-\d\d\b",
    "month-name date": rf"\b{MONTH}\.? +(?:\d{{1,2}},? +)?20\d\d\b|\b\d{{1,2}} +{MONTH}\.? +20\d\d\b",
    "8-digit campaign seed": r"\b20\d{6}\b",
    "session count": rf"\bsessions?\b|\b{ORDINAL}[- ](?:session|campaign|round|run of the)\b",
    "progress narrative": r"\bnow within\b|\bnow [-+]?\d|\bwas [-+]?\d|\bwere [-+]?\d|\bwent from\b|\bas before\b"
                          r"|\bsince 20\d\d\b|\buntil 20\d\d\b|\bmeasured (?:on|in) 20\d\d\b",
}
HISTORY_RE = re.compile("|".join(f"(?:{p})" for p in HISTORY_PATTERNS.values()), re.IGNORECASE)


def history_hits(text: str) -> list[tuple[int, str]]:
    """Return (line number, stripped line) for each line of ``text`` that carries a date, a campaign seed or a
    development-log phrase (the patterns of ``HISTORY_PATTERNS``)."""
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1)
            if HISTORY_RE.search(line)]


def prose_hits(source: str) -> list[tuple[int, str]]:
    """Return (line number, stripped line) for each line of the Python ``source`` whose comments, docstrings or
    string literals carry history; code (a numeric constant such as a fixed seed) is not prose and is not read."""
    hits = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            hits.update((token.start[0] + offset, line)
                        for offset, line in ((n - 1, text) for n, text in history_hits(token.string)))
    return sorted(hits)


@pytest.mark.parametrize("text", ["measured 2026-11-27", "in Nov 2026", "27 November 2026", "seeds 20261246-57",
                                  "the twenty-first session", "the error is now within 5 %", "was 3.1 %, now 2.0 %",
                                  "since 2025", "until 2027", "-3.3 %, now -0.1 %", "went from 87 to 75",
                                  "added as before", "measured on 2026"])
def test_the_history_patterns_catch_each_kind_of_history(text):
    assert history_hits(text) == [(1, text)]


@pytest.mark.parametrize("text", ["t_read_us = 60.0", "seed = 0x2026AB11", "Little's law (Little 1961)",
                                  "see docs/model.md", "IEEE Std 1003.1-2017"])
def test_the_history_patterns_spare_present_tense_text(text):
    assert history_hits(text) == []


def test_prose_hits_read_comments_and_strings_but_not_code():
    source = ('SEED = 20261129  # one fixed stream\nx = 1  # tuned 2026-11-27\n'
              'def f():\n    """Text.\n\n    Since 2025."""\n')
    assert prose_hits(source) == [(2, "# tuned 2026-11-27"), (6, 'Since 2025."""')]


def test_no_history_in_the_package():
    """Comments, docstrings and strings of ``ssdco/`` describe the software as it is: no dates, no campaign seeds,
    no session counts, no before/after narrative (git log keeps the history)."""
    assert len(PACKAGE_SOURCES) > 30, f"only {len(PACKAGE_SOURCES)} package files found under {ROOT / 'ssdco'}"
    hits = [f"{path.relative_to(ROOT)}:{number}: {line}"
            for path in PACKAGE_SOURCES for number, line in prose_hits(path.read_text())]
    assert not hits, f"{len(hits)} lines carry history:\n" + "\n".join(hits)


MAX_COMPLEXITY = 20  # radon's grade C ends at 20


def _numba_kernels(tree) -> set[int]:
    """Line numbers of the functions compiled by numba (``@njit``, ``@nb.njit(...)``, ``@jit``): event loops whose
    speed needs one flat body, so the complexity limit does not apply to them."""
    import ast

    def is_numba(decorator) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        return name in ("njit", "jit")

    return {node.lineno for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(is_numba(d) for d in node.decorator_list)}


@pytest.mark.parametrize("path", PACKAGE_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_is_more_complex_than_grade_c(path):
    import ast

    from radon import complexity as radon_complexity
    text = path.read_text()
    kernels = _numba_kernels(ast.parse(text))
    blocks = radon_complexity.cc_visit(text)
    functions = [b for b in blocks if not hasattr(b, "methods")]
    functions += [m for b in blocks if hasattr(b, "methods") for m in b.methods]
    over = [(f.name, f.lineno, f.complexity) for f in functions
            if f.complexity > MAX_COMPLEXITY and f.lineno not in kernels]
    assert not over, f"{path.relative_to(ROOT)}: functions over complexity {MAX_COMPLEXITY} (name, line, score): {over}"
