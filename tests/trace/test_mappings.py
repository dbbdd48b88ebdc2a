"""FTL mappings: merges by kind for BAST and FAST on hand-worked writes; the page-level WAF against Desnoyers'
greedy formula."""

import numpy as np
import pytest

from ssdco.ftl.waf import waf_greedy
from ssdco.trace.mapping import BastFtl, FastFtl, PageFtl

NP = 4  # pages per block in the hand-worked cases


def counts_after(ftl, *groups):
    for group in groups:
        ftl.write(list(group))
    return ftl.counts()


@pytest.mark.parametrize("ftl_type", [BastFtl, FastFtl])
def test_a_sequential_overwrite_of_a_block_is_a_switch_merge(ftl_type):
    # the first fill is itself a switch merge (no old data block: nothing erased); the overwrite is a second one
    # that erases the old data block; nothing is copied
    c = counts_after(ftl_type(NP, log_blocks=2), range(4), range(4))
    assert (c.switch_merges, c.partial_merges, c.full_merges) == (2, 0, 0)
    assert (c.copies, c.erases, c.programs) == (0, 1, 8)


def test_bast_random_overwrite_is_a_full_merge():
    # fill block 0 (switch merge); rewrite pages 2, 0 into its log block; blocks 1 and 2 need log blocks, and with
    # two log blocks the block-0 log (least recently written) is merged: not in order -> full merge, copying the 4
    # valid pages and erasing the log block and the old data block
    c = counts_after(BastFtl(NP, log_blocks=2), range(4), [2, 0], [4], [8])
    assert (c.switch_merges, c.partial_merges, c.full_merges) == (1, 0, 1)
    assert (c.copies, c.erases, c.programs) == (4, 2, 8 + 4)


def test_bast_partial_merge_copies_the_tail():
    # fill block 0; rewrite pages 0, 1 in order; blocks 1 and 2 push the log out: partial merge copying pages 2, 3
    c = counts_after(BastFtl(NP, log_blocks=2), range(4), [0, 1], [4], [8])
    assert (c.switch_merges, c.partial_merges, c.full_merges) == (1, 1, 0)
    assert (c.copies, c.erases) == (2, 1)


def test_fast_random_overwrite_is_a_full_merge():
    # two log blocks: one sequential (SW), one random (RW). Fill block 0 through the SW block (switch merge).
    # 2, 1, 3 (block 0) and 6 (block 1, page 2) do not start at page 0: they fill the RW block. 7 finds it full:
    # it is reclaimed: full merge of block 0 (page 0 from the data block + 1, 2, 3 from the RW block: 4 copies,
    # the old data block erased) and of block 1 (page 2: 1 copy, no old data block), then the RW block is erased
    c = counts_after(FastFtl(NP, log_blocks=2), range(4), [2, 1, 3, 6], [7])
    assert (c.switch_merges, c.partial_merges, c.full_merges) == (1, 0, 2)
    assert (c.copies, c.erases, c.programs) == (5, 2, 9 + 5)


def test_fast_partial_merge_of_the_sequential_block():
    # fill block 0; 0, 1 start a SW block for it; 4 (page 0 of block 1) needs the SW block: partial merge of
    # block 0 copying pages 2, 3 and erasing the old data block
    c = counts_after(FastFtl(NP, log_blocks=2), range(4), [0, 1], [4])
    assert (c.switch_merges, c.partial_merges, c.full_merges) == (1, 1, 0)
    assert (c.copies, c.erases) == (2, 1)


def test_page_level_waf_under_uniform_random_writes_matches_the_greedy_formula():
    # Desnoyers' greedy WAF for alpha = 1.25, 64 pages per block is 2.60; the simulated mapping shares its
    # assumptions (one frontier, greedy victims) but keeps 2 free blocks and has 320 blocks, not infinitely many:
    # within 5 %, the tolerance tests/sim/test_ftlsim.py allows the functional simulator
    logical = 64 * 256
    ftl = PageFtl(64, over_provisioning=0.25, logical_pages=logical)
    ftl.write(list(range(logical)))
    gen = np.random.default_rng(3)
    ftl.write(gen.integers(0, logical, 6 * logical).tolist())  # warm-up to steady state
    before = ftl.counts()
    ftl.write(gen.integers(0, logical, 8 * logical).tolist())
    after = ftl.counts()
    measured = (after.programs - before.programs) / (after.host_writes - before.host_writes)
    assert ftl.physical_blocks == 320
    assert measured == pytest.approx(waf_greedy(1.25, 64), rel=0.05)


def test_page_level_sequential_rewrites_need_no_copies():
    # rewriting the whole logical space in order invalidates whole blocks: greedy victims have no valid pages
    ftl = PageFtl(8, over_provisioning=0.5, logical_pages=64)
    for _ in range(5):
        ftl.write(list(range(64)))
    c = ftl.counts()
    assert c.copies == 0 and c.waf == 1.0 and c.erases > 0
    assert c.switch_merges == c.partial_merges == c.full_merges == 0


def test_page_level_grows_with_the_pages_written():
    ftl = PageFtl(8, over_provisioning=0.25)
    ftl.write(list(range(200)))
    assert ftl.physical_blocks == int(np.ceil(200 * 1.25 / 8))  # 32 blocks: 7 spare, more than the minimum 3
    small = PageFtl(64, over_provisioning=0.07)
    small.write(list(range(200)) * 20)  # 4 blocks of data and 7 % are less than 3 spare blocks: 4 + 3 blocks
    assert small.physical_blocks == 4 + 3 and small.counts().erases > 0
