"""LIRS against its authors' own simulator: the same misses and the same pages evicted, in the same order.

tests/trace/data/lirs_reference.json holds what Song Jiang's lirs.c (the simulator of the LIRS paper) gives on the
sequences of tests/trace/lirs_traces.py at caches of 10, 20 and 50 pages: the miss count, the number of evictions,
the first evictions and a SHA-256 digest of the whole eviction sequence. The reference keeps every non-resident HIR
entry in its stack, so the check sets ``max_nonresident`` past any trace's length; every access is a write, so
each eviction reaches the sink, in order.
"""

import hashlib
import json
from pathlib import Path

import pytest

from ssdco.trace.buffers.lirs import LirsBuffer
from tests.trace.lirs_traces import TRACES

REFERENCE = json.loads((Path(__file__).parent / "data" / "lirs_reference.json").read_text())


class _Evictions:
    """A flash sink that records the pages written back (each eviction of a dirty page), in order."""

    def __init__(self):
        self.pages: list[int] = []

    def read(self, lpn: int) -> None:
        pass

    def write(self, lpns: list[int]) -> None:
        self.pages.extend(lpns)


@pytest.mark.parametrize("run", REFERENCE["runs"], ids=lambda r: f"{r['trace']}-{r['cache_pages']}")
def test_lirs_matches_the_reference_simulator(run):
    sink = _Evictions()
    lirs = LirsBuffer(run["cache_pages"], sink, hir_pages=run["hir_pages"], max_nonresident=10**9)
    for block in TRACES[run["trace"]]:
        lirs.access(block, True)
    assert lirs.misses == run["misses"]
    assert len(sink.pages) == run["evictions"] and sink.pages[:12] == run["first_evictions"]
    assert hashlib.sha256(",".join(map(str, sink.pages)).encode()).hexdigest() == run["evictions_sha256"]


def test_a_loop_larger_than_the_cache_keeps_its_lir_pages():
    """The loop the paper uses against LRU: 12 blocks cycled through 10 pages. LRU misses every reference; LIRS
    keeps its 8 LIR pages and misses only the cycling HIR ones (the reference's 88 of 240)."""
    run = next(r for r in REFERENCE["runs"] if r["trace"] == "loop12" and r["cache_pages"] == 10)
    assert run["misses"] == 88 and len(TRACES["loop12"]) == 240
    assert set(run["first_evictions"]) == {8, 9, 10, 11}
