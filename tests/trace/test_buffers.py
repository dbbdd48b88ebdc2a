"""Buffer policies on short hand-made sequences. Each expectation is worked out by hand in the comments (the
sequences are constructed for these tests, not taken from the papers' figures)."""

import pytest

from ssdco.trace.buffers import ArcBuffer, FabBuffer, LirsBuffer, LruBuffer


class Recorder:
    """A flash sink that records the traffic."""

    def __init__(self):
        self.reads, self.writes = [], []

    def read(self, lpn):
        self.reads.append(lpn)

    def write(self, lpns):
        self.writes.append(list(lpns))


def run(buffer_type, capacity, sequence, **kw):
    sink = Recorder()
    buffer = buffer_type(capacity, sink, **kw)
    for lpn, op in sequence:
        buffer.access(lpn, op == "W")
    return buffer, sink


def test_lru():
    # capacity 3: 1R 2W 3R | 1R hit (order 2,3,1) | 4W evicts 2 (dirty: written back) | 5R evicts 3 (clean)
    # | 2R evicts 1 (clean); left: 4, 5, 2
    seq = [(1, "R"), (2, "W"), (3, "R"), (1, "R"), (4, "W"), (5, "R"), (2, "R")]
    buffer, sink = run(LruBuffer, 3, seq)
    assert (buffer.hits, buffer.misses, buffer.evictions) == (1, 6, 3)
    assert sink.reads == [1, 3, 5, 2] and sink.writes == [[2]]
    assert buffer.resident() == {4, 5, 2} and buffer.dirty_pages() == {4}


def test_fab_evicts_the_fullest_block_and_the_least_recent_among_ties():
    # 4 pages per block, capacity 4. 0W 1W 4W 8R fill it: block 0 {0,1}, block 1 {4}, block 2 {8}.
    # 2W: block 0 holds most pages -> evicted, its dirty pages [0, 1] written together; then block 0 {2}.
    # 5W fills: block 1 {4,5}. 9R: block 1 holds most (2) -> [4, 5] written; block 2 {8,9}.
    # 3W fills: block 0 {2,3}. 10W: blocks 2 and 0 tie at 2 pages; block 2 was used last at 9R, before 3W,
    # so block 2 goes (clean: nothing written). 2R: a hit.
    seq = [(0, "W"), (1, "W"), (4, "W"), (8, "R"), (2, "W"), (5, "W"), (9, "R"), (3, "W"), (10, "W"), (2, "R")]
    buffer, sink = run(FabBuffer, 4, seq, pages_per_block=4)
    assert (buffer.hits, buffer.misses) == (1, 9)
    assert sink.writes == [[0, 1], [4, 5]] and sink.reads == [8, 9]
    assert buffer.resident() == {2, 3, 10} and buffer.evictions == 2 + 2 + 2


def test_fab_writes_a_blocks_dirty_pages_in_page_order():
    # capacity 3, 4 pages per block: 3W 1W 2R fill block 0; 4W evicts it, writing 1 and 3 in order (2 is clean)
    buffer, sink = run(FabBuffer, 3, [(3, "W"), (1, "W"), (2, "R"), (4, "W")], pages_per_block=4)
    assert sink.writes == [[1, 3]] and buffer.resident() == {4}


def test_lirs():
    # capacity 3: 2 LIR pages, 1 resident HIR page. S is bottom first.
    # 1R, 2W: filling, both LIR; S=[1,2]. 3R: resident HIR; S=[1,2,3], Q=[3].
    # 4W: full, evict Q's front 3 (stays in S, non-resident); S=[1,2,3,4], Q=[4].
    # 3R: miss; evict 4 (dirty: written back; stays in S). 3 is in S -> LIR, to the top; the bottom LIR 1
    #     becomes resident HIR (Q=[1]) and leaves S; S=[2,4,3].
    # 1R: resident HIR hit, not in S: S=[2,4,3,1], Q=[1].
    # 1R: resident HIR hit, in S -> LIR; the bottom LIR 2 becomes HIR (Q=[2]); pruning drops the non-resident 4;
    #     S=[3,1].
    # 4R: miss; evict 2 (dirty: written back; not in S, forgotten); 4 is not in S -> resident HIR;
    #     S=[3,1,4], Q=[4].
    seq = [(1, "R"), (2, "W"), (3, "R"), (4, "W"), (3, "R"), (1, "R"), (1, "R"), (4, "R")]
    buffer, sink = run(LirsBuffer, 3, seq, hir_pages=1)
    assert (buffer.hits, buffer.misses, buffer.evictions) == (2, 6, 3)
    assert sink.reads == [1, 3, 3, 4] and sink.writes == [[4], [2]]
    assert buffer.stack() == [3, 1, 4] and buffer.queue() == [4] and buffer.lir() == {1, 3}
    assert buffer.resident() == {1, 3, 4}


def test_lirs_keeps_one_percent_for_hir_pages_and_at_least_one():
    assert LirsBuffer(1000, Recorder()).hir_pages == 10
    assert LirsBuffer(20, Recorder()).hir_pages == 1


def test_lirs_resists_a_scan_that_lru_does_not():
    # a loop over 5 pages in a 4-page buffer: LRU misses every time; LIRS keeps 3 LIR pages resident
    seq = [(p, "R") for _ in range(20) for p in range(5)]
    lru, _ = run(LruBuffer, 4, seq)
    lirs, _ = run(LirsBuffer, 4, seq, hir_pages=1)
    assert lru.hits == 0
    assert lirs.hits >= 19 * 3 - 5


def test_arc():
    # capacity 2, lists least recent first, p starts at 0.
    # 1W, 2W: T1=[1,2]. 1R: hit, T1=[2], T2=[1].
    # 3R: new; |T1|+|B1| = 1 < 2, all lists 3 >= 2 -> REPLACE: |T1| = 1 > p = 0 -> 2 (dirty, written) to B1.
    #     T1=[3], T2=[1], B1=[2].
    # 2R: B1 hit: p = min(2, 0 + max(0/1, 1)) = 1; REPLACE: |T1| = 1 not > p -> 1 (dirty, written) from T2 to B2;
    #     T1=[3], T2=[2], B1=[], B2=[1].
    # 4R: new; |T1|+|B1| = 1; all lists 3 -> REPLACE: |T1| = 1 not > 1 -> 2 (clean) to B2; T1=[3,4], B2=[1,2].
    # 1R: B2 hit: p = max(0, 1 - max(0/2, 1)) = 0; REPLACE: |T1| = 2 > 0 -> 3 to B1; T2=[1], B2=[2].
    seq = [(1, "W"), (2, "W"), (1, "R"), (3, "R"), (2, "R"), (4, "R"), (1, "R")]
    buffer, sink = run(ArcBuffer, 2, seq)
    assert (buffer.hits, buffer.misses, buffer.evictions) == (1, 6, 4)
    assert sink.writes == [[2], [1]] and sink.reads == [3, 2, 4, 1]
    assert list(buffer.t1) == [4] and list(buffer.t2) == [1]
    assert list(buffer.b1) == [3] and list(buffer.b2) == [2]
    assert buffer.p == 0.0


@pytest.mark.parametrize("policy", [LruBuffer, FabBuffer, LirsBuffer, ArcBuffer])
def test_every_policy_keeps_its_capacity_and_accounts_for_every_access(policy):
    import numpy as np
    gen = np.random.default_rng(4)
    seq = [(int(p), "W" if w else "R") for p, w in zip(gen.integers(0, 300, 5000), gen.random(5000) < 0.4)]
    sink = Recorder()
    buffer = policy(64, sink, pages_per_block=8)
    for lpn, op in seq:
        buffer.access(lpn, op == "W")
        assert len(buffer.resident()) <= 64
    assert buffer.hits + buffer.misses == len(seq)
    reads_missed = len(sink.reads)
    assert reads_missed == buffer.flash_reads <= buffer.misses
    # every page written back was dirty once, and every dirty page is written back at most once per write
    assert sum(len(w) for w in sink.writes) + len(buffer.dirty_pages()) <= sum(op == "W" for _, op in seq)


def test_lirs_memory_is_bounded_by_the_buffer_not_by_the_pages_seen():
    """A long scan of distinct pages: without a bound, S would keep every page seen as a non-resident HIR entry."""
    buffer, _ = run(LirsBuffer, 50, [(p, False) for p in range(20_000)])
    assert len(buffer.stack()) <= buffer.capacity_pages + buffer.max_nonresident
    assert len(buffer.resident()) == 50
    # a tight bound holds too, on a loop longer than the buffer
    small, _ = run(LirsBuffer, 3, [(p % 7, False) for p in range(40)], hir_pages=1, max_nonresident=1)
    assert len(small.stack()) <= 3 + 1
