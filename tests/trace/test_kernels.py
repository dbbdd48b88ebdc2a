"""Each compiled engine gives exactly what its Python class (the specification) gives: hits, misses, evictions,
the pages written back in their order, and every flash count, on random traces fed in random chunks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.trace.engines import COMPILED_BUFFERS, COMPILED_MAPPINGS, buffer_engine, mapping_engine


@st.composite
def page_trace(draw):
    """Page accesses over a small address space (so that pages repeat and blocks fill), with sequential runs,
    and the points where the trace is cut into chunks."""
    pages = draw(st.integers(8, 200))
    n = draw(st.integers(1, 600))
    seed = draw(st.integers(0, 2**32 - 1))
    gen = np.random.default_rng(seed)
    lpns = gen.integers(0, pages, n)
    runs = gen.random(n) < draw(st.sampled_from([0.0, 0.5, 0.9]))
    for i in range(1, n):  # a run continues at the next page
        if runs[i]:
            lpns[i] = lpns[i - 1] + 1
    writes = gen.random(n) < draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    return lpns.astype(np.int64), writes, cuts


def chunks(lpns, writes, cuts):
    bounds = [0, *cuts, len(lpns)]
    return [(lpns[a:b], writes[a:b]) for a, b in zip(bounds, bounds[1:])]


@pytest.mark.parametrize("policy", sorted(COMPILED_BUFFERS))
@settings(max_examples=150, deadline=None)
@given(trace=page_trace(), capacity=st.integers(2, 40), ppb=st.sampled_from([2, 4, 8, 64]))
def test_a_compiled_buffer_evicts_and_writes_back_as_its_python_class(policy, trace, capacity, ppb):
    engines = [buffer_engine(policy, capacity, ppb, compiled=c) for c in (True, False)]
    traffic = [[], []]
    for lpns, writes in chunks(*trace):
        for engine, out in zip(engines, traffic):
            reads, written = engine.feed(lpns, writes)
            out.append((reads, written.tolist()))
    for engine, out in zip(engines, traffic):
        out.append((0, engine.flush_all().tolist()))
    compiled, python = engines
    assert traffic[0] == traffic[1]
    reference = python.policy
    assert (compiled.hits, compiled.misses, compiled.evictions, compiled.flash_reads, compiled.flushed_pages) == (
        reference.hits, reference.misses, reference.evictions, reference.flash_reads, reference.flushed_pages)
    assert compiled.resident() == reference.resident()


@pytest.mark.parametrize("name", sorted(COMPILED_MAPPINGS))
@settings(max_examples=150, deadline=None)
@given(trace=page_trace(), ppb=st.sampled_from([2, 4, 8, 64, 70]), log_blocks=st.integers(2, 6),
       op=st.sampled_from([0.07, 0.3]))
def test_a_compiled_mapping_counts_as_its_python_class(name, trace, ppb, log_blocks, op):
    lpns, writes, cuts = trace
    engines = [mapping_engine(name, ppb, log_blocks, op, compiled=c) for c in (True, False)]
    for part, _ in chunks(lpns, writes, cuts):
        for engine in engines:
            engine.take(3, part)
    assert engines[0].counts() == engines[1].counts()


@pytest.mark.parametrize("policy", sorted(COMPILED_BUFFERS))
def test_a_compiled_buffer_grows_with_the_pages_it_holds_not_to_its_capacity(policy):
    from ssdco.trace.kernels.counters import INITIAL_SLOTS

    huge = buffer_engine(policy, 1 << 40, 64)  # a 4 PiB buffer of 4 KiB pages: allocated as pages come in
    gen = np.random.default_rng(3)
    lpns = gen.integers(0, 1 << 30, 3000).astype(np.int64)
    huge.feed(lpns, gen.random(3000) < 0.5)
    assert huge.misses == 3000 and max(a.size for a in vars(huge).values() if isinstance(a, np.ndarray)) < 1 << 20
    # past the first allocation, on a buffer that fills and evicts: the same as the class
    engines = [buffer_engine(policy, 3 * INITIAL_SLOTS, 64, compiled=c) for c in (True, False)]
    lpns = np.concatenate([gen.integers(0, 8 * INITIAL_SLOTS, 20_000), gen.integers(0, 2 * INITIAL_SLOTS, 20_000)])
    writes = gen.random(len(lpns)) < 0.4
    traffic = [[engine.feed(lpns[i:i + 7000], writes[i:i + 7000]) for i in range(0, len(lpns), 7000)]
               for engine in engines]
    assert [(r, w.tolist()) for r, w in traffic[0]] == [(r, w.tolist()) for r, w in traffic[1]]
    assert (engines[0].hits, engines[0].evictions) == (engines[1].policy.hits, engines[1].policy.evictions)
    assert engines[0].resident() == engines[1].policy.resident()
