"""Functional (untimed) simulators of FTL effects, used to validate the analytic models.

* :func:`simulate_ftl` - a page-mapped FTL: ``U`` logical pages on ``B`` blocks of ``Np``
  pages (``alpha = B Np / U``), one write frontier shared by host writes and GC copies, greedy
  or FIFO victim selection. Measures WAF = NAND page programs / host page writes at steady
  state; compare with :mod:`ssdco.ftl.waf`.
* :func:`simulate_lru_cache` / :func:`run_lru_cache` - an LRU mapping cache (DFTL CMT),
  entry-grained or page-grained (one cached unit = one translation page); hit ratio, dirty
  evictions and NAND reads per host read; compare with :mod:`ssdco.ftl.mapping_cache`.
* :func:`simulate_partitioned_cache` - the clean/dirty partitioned cache of seed 002 with an
  entry-logged dirty area and greedy batch update; counts the NAND reads of every host read.

The inner loops are numba ``@njit`` kernels (O(1) work per page operation: bucketed greedy
victim selection, intrusive doubly linked LRU lists). Addresses are drawn with numpy from an
explicit generator in chunks (seed convention of :mod:`ssdco.rng`), so a run is reproduced
exactly by its seed.

References
----------
.. [1] P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012 (the simulated
   FTL follows his model: page mapping, one LRW frontier, greedy/FIFO cleaning).
.. [2] A. Gupta, Y. Kim, B. Urgaonkar, DFTL, ASPLOS 2009.
.. [3] Seed document ``002_*.txt``: clean/dirty partitioned DFTL cache, batch update.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ssdco.ftl.address_patterns import AddressPattern, UniformPattern
from ssdco.ftl.mapping_cache import _check_int
from ssdco.rng import SeedLike, as_generator

__all__ = [
    "FtlSimResult",
    "simulate_ftl",
    "LruSimResult",
    "run_lru_cache",
    "simulate_lru_cache",
    "PartitionedSimResult",
    "simulate_partitioned_cache",
]

_CHUNK = 1 << 20
_MIN_FREE_BLOCKS = 2  # GC keeps one free block for its own copies besides the one the host opens


def _check_fraction(name: str, value) -> float:
    v = float(value)
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


# --------------------------------------------------------------------------------------------
# Page-mapped FTL
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _bucket_insert(b, v, bhead, bnext, bprev):
    h = bhead[v]
    bnext[b] = h
    bprev[b] = -1
    if h >= 0:
        bprev[h] = b
    bhead[v] = b


@njit(cache=True)
def _bucket_remove(b, v, bhead, bnext, bprev):
    p = bprev[b]
    n = bnext[b]
    if p >= 0:
        bnext[p] = n
    else:
        bhead[v] = n
    if n >= 0:
        bprev[n] = p
    bnext[b] = -1
    bprev[b] = -1


@njit(cache=True, inline="always")
def _program(lpn, cur, wp, l2p, p2l, valid, np_pages):
    """Program logical page ``lpn`` at the frontier block ``cur``'s write pointer ``wp``; returns the next one."""
    ppn = cur * np_pages + wp
    p2l[ppn] = lpn
    l2p[lpn] = ppn
    valid[cur] += 1
    return wp + 1


@njit(cache=True, inline="always")
def _close(cur, valid, fifo, bhead, bnext, bprev, fh, fc, minb, greedy):
    """Close the full frontier block ``cur``: into the bucket of its valid count (greedy) or at the FIFO's tail;
    returns the new (FIFO count, lowest bucket)."""
    if greedy:
        _bucket_insert(cur, valid[cur], bhead, bnext, bprev)
        if valid[cur] < minb:
            minb = valid[cur]
    else:
        t = fh + fc
        if t >= valid.shape[0]:
            t -= valid.shape[0]
        fifo[t] = cur
        fc += 1
    return fc, minb


@njit(cache=True)
def _ftl_kernel(lpns, l2p, p2l, valid, free_stack, fifo, bhead, bnext, bprev, st, ctr, np_pages, greedy):
    """Apply host page writes ``lpns``. st = [cur, wp, n_free, fifo_head, fifo_count, min_bucket];
    ctr = [host_writes, nand_programs, gc_reads, erases, victim_valid_pages, victims]. Host and GC writes share one
    frontier block (:func:`_program`), closed when full (:func:`_close`)."""
    n_blocks = valid.shape[0]
    cur = st[0]
    wp = st[1]
    n_free = st[2]
    fh = st[3]
    fc = st[4]
    minb = st[5]
    for i in range(lpns.shape[0]):
        lpn = lpns[i]
        old = l2p[lpn]
        if old >= 0:
            b = old // np_pages
            p2l[old] = -1
            v = valid[b]
            valid[b] = v - 1
            if greedy and b != cur:
                _bucket_remove(b, v, bhead, bnext, bprev)
                _bucket_insert(b, v - 1, bhead, bnext, bprev)
                if v - 1 < minb:
                    minb = v - 1
        if cur < 0:
            # the host needs a new frontier block: clean until enough blocks are free
            while n_free < 2:
                if greedy:
                    while bhead[minb] < 0:
                        minb += 1
                    vb = bhead[minb]
                    _bucket_remove(vb, minb, bhead, bnext, bprev)
                else:
                    vb = fifo[fh]
                    fh += 1
                    if fh == n_blocks:
                        fh = 0
                    fc -= 1
                ctr[4] += valid[vb]
                ctr[5] += 1
                base = vb * np_pages
                for k in range(np_pages):
                    lv = p2l[base + k]
                    if lv >= 0:
                        p2l[base + k] = -1
                        if cur < 0:
                            n_free -= 1
                            cur = free_stack[n_free]
                            wp = 0
                        wp = _program(lv, cur, wp, l2p, p2l, valid, np_pages)
                        ctr[1] += 1
                        ctr[2] += 1
                        if wp == np_pages:
                            fc, minb = _close(cur, valid, fifo, bhead, bnext, bprev, fh, fc, minb, greedy)
                            cur = -1
                valid[vb] = 0
                free_stack[n_free] = vb
                n_free += 1
                ctr[3] += 1
            if cur < 0:
                n_free -= 1
                cur = free_stack[n_free]
                wp = 0
        wp = _program(lpn, cur, wp, l2p, p2l, valid, np_pages)
        ctr[0] += 1
        ctr[1] += 1
        if wp == np_pages:
            fc, minb = _close(cur, valid, fifo, bhead, bnext, bprev, fh, fc, minb, greedy)
            cur = -1
    st[0] = cur
    st[1] = wp
    st[2] = n_free
    st[3] = fh
    st[4] = fc
    st[5] = minb


@dataclass(frozen=True)
class FtlSimResult:
    """Steady-state measurement of the functional page-mapped FTL.

    Attributes
    ----------
    policy : str
        ``"greedy"`` or ``"fifo"``.
    logical_pages : int
        ``U``.
    physical_blocks : int
        ``B``.
    pages_per_block : int
        ``Np``.
    alpha : float
        Simulated ``B * Np / U`` (may differ from the requested value by rounding to whole blocks).
    host_writes : int
        Host page writes in the measurement window.
    nand_writes : int
        NAND page programs in the window (host pages + GC copies).
    gc_reads : int
        NAND page reads for GC copies in the window.
    erases : int
        Block erases in the window.
    waf : float
        ``nand_writes / host_writes``.
    mean_victim_valid_fraction : float
        Mean valid pages of the GC victims / ``Np`` (``u``; ``waf ~= 1/(1-u)``).
    """

    policy: str
    logical_pages: int
    physical_blocks: int
    pages_per_block: int
    alpha: float
    host_writes: int
    nand_writes: int
    gc_reads: int
    erases: int
    waf: float
    mean_victim_valid_fraction: float


def _ftl_geometry(logical_pages: int, pages_per_block: int, alpha: float, policy: str) -> tuple[int, int, int]:
    """(logical pages, pages per block, physical blocks) of :func:`simulate_ftl`'s arguments, or ValueError where
    one is out of range or the spare space cannot hold the free blocks GC keeps."""
    u = _check_int("logical_pages", logical_pages, 1)
    npb = _check_int("pages_per_block", pages_per_block, 1)
    a = float(alpha)
    if not np.isfinite(a) or a <= 1.0:
        raise ValueError(f"alpha must be finite and > 1, got {alpha!r}")
    if policy not in ("greedy", "fifo"):
        raise ValueError(f"policy must be 'greedy' or 'fifo', got {policy!r}")
    n_blocks = int(round(a * u / npb))
    if (n_blocks - 2 * _MIN_FREE_BLOCKS) * npb <= u:
        raise ValueError(
            f"too little spare space: {n_blocks} blocks of {npb} pages for {u} logical pages; "
            f"need more than {2 * _MIN_FREE_BLOCKS} spare blocks (raise alpha or logical_pages)"
        )
    if n_blocks * npb >= 2**31:
        raise ValueError(f"at most 2**31 - 1 physical pages are supported, got {n_blocks * npb}")
    return u, npb, n_blocks


def simulate_ftl(
    logical_pages: int,
    pages_per_block: int,
    alpha: float,
    *,
    seed: SeedLike,
    policy: str = "greedy",
    pattern: AddressPattern = UniformPattern(),
    host_writes: int | None = None,
    warmup_host_writes: int | None = None,
    precondition: bool = True,
) -> FtlSimResult:
    """Simulate a page-mapped FTL under a host write stream and measure its steady-state WAF.

    The device has ``B = round(alpha * U / Np)`` blocks. All host and GC writes go to one
    frontier block; when the host needs a new frontier and fewer than two blocks are free,
    victims are cleaned (valid pages read and re-programmed at the frontier, block erased)
    until two are free. Greedy picks a closed block with the fewest valid pages (bucket lists,
    O(1) amortised); FIFO picks the block closed longest ago.

    Steady state: with ``precondition`` the whole logical space is first written sequentially,
    then ``warmup_host_writes`` pattern writes are applied, and only the following
    ``host_writes`` are measured.

    Parameters
    ----------
    logical_pages : int
        ``U``, logical pages (mapping units).
    pages_per_block : int
        ``Np``.
    alpha : float
        Requested physical/logical ratio ``T / U`` (> 1).
    seed : int or numpy.random.Generator
        Randomness of the address stream (see :func:`ssdco.rng.as_generator`); the same int
        seed reproduces the run exactly. Required: there is no default.
    policy : {"greedy", "fifo"}
        Victim selection.
    pattern : AddressPattern
        Write-address generator from :mod:`ssdco.ftl.address_patterns`.
    host_writes : int, optional
        Measured host page writes (default ``4 U``).
    warmup_host_writes : int, optional
        Unmeasured pattern writes before measuring (default ``4 U``).
    precondition : bool
        Sequentially fill the logical space first.

    Returns
    -------
    FtlSimResult
    """
    u, npb, n_blocks = _ftl_geometry(logical_pages, pages_per_block, alpha, policy)
    n_meas = 4 * u if host_writes is None else _check_int("host_writes", host_writes, 1)
    n_warm = 4 * u if warmup_host_writes is None else _check_int("warmup_host_writes", warmup_host_writes, 0)
    rng = as_generator(seed)

    # int32 page maps halve the memory traffic of the random l2p/p2l accesses (~1.5x faster).
    l2p = np.full(u, -1, dtype=np.int32)
    p2l = np.full(n_blocks * npb, -1, dtype=np.int32)
    valid = np.zeros(n_blocks, dtype=np.int64)
    free_stack = np.arange(n_blocks - 1, -1, -1, dtype=np.int64)
    fifo = np.zeros(n_blocks, dtype=np.int64)
    bhead = np.full(npb + 1, -1, dtype=np.int64)
    bnext = np.full(n_blocks, -1, dtype=np.int64)
    bprev = np.full(n_blocks, -1, dtype=np.int64)
    st = np.array([-1, 0, n_blocks, 0, 0, npb], dtype=np.int64)
    ctr = np.zeros(6, dtype=np.int64)
    greedy = policy == "greedy"

    def run(lpns: np.ndarray) -> None:
        _ftl_kernel(lpns, l2p, p2l, valid, free_stack, fifo, bhead, bnext, bprev, st, ctr, npb, greedy)

    if precondition:
        for s in range(0, u, _CHUNK):
            run(np.arange(s, min(u, s + _CHUNK), dtype=np.int64))
    pos = 0
    for s in range(0, n_warm, _CHUNK):
        n = min(_CHUNK, n_warm - s)
        run(np.ascontiguousarray(pattern.sample_lpns(rng, n, u, start_index=pos), dtype=np.int64))
        pos += n
    before = ctr.copy()
    for s in range(0, n_meas, _CHUNK):
        n = min(_CHUNK, n_meas - s)
        run(np.ascontiguousarray(pattern.sample_lpns(rng, n, u, start_index=pos), dtype=np.int64))
        pos += n
    d = ctr - before
    victims = int(d[5])
    return FtlSimResult(
        policy=policy,
        logical_pages=u,
        physical_blocks=n_blocks,
        pages_per_block=npb,
        alpha=n_blocks * npb / u,
        host_writes=int(d[0]),
        nand_writes=int(d[1]),
        gc_reads=int(d[2]),
        erases=int(d[3]),
        waf=float(d[1]) / float(d[0]),
        mean_victim_valid_fraction=float(d[4]) / (victims * npb) if victims else 0.0,
    )


# --------------------------------------------------------------------------------------------
# LRU mapping cache (DFTL CMT)
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _lru_kernel(keys, is_write, capacity, prev, nxt, incache, dirty, st, ctr, rmw, count_from):
    """st = [head (MRU), tail (LRU), size]; ctr = [requests, hits, evictions, dirty_evictions,
    reads, read_nand_reads, max_read_nand_reads, reads_with_nand_write]."""
    head = st[0]
    tail = st[1]
    size = st[2]
    for i in range(keys.shape[0]):
        k = keys[i]
        w = is_write[i]
        count = i >= count_from
        nand_reads = 1  # the data page
        nand_writes = 0
        if incache[k]:
            if count:
                ctr[1] += 1
            if k != head:  # unlink and push to MRU
                p = prev[k]
                n = nxt[k]
                nxt[p] = n
                if n >= 0:
                    prev[n] = p
                else:
                    tail = p
                prev[k] = -1
                nxt[k] = head
                prev[head] = k
                head = k
            if w:
                dirty[k] = True
        else:
            nand_reads += 1  # fetch the translation page
            if capacity > 0:
                if size == capacity:
                    v = tail
                    tail = prev[v]
                    if tail >= 0:
                        nxt[tail] = -1
                    else:
                        head = -1
                    incache[v] = False
                    size -= 1
                    if count:
                        ctr[2] += 1
                    if dirty[v]:
                        dirty[v] = False
                        nand_writes += 1
                        if rmw:
                            nand_reads += 1
                        if count:
                            ctr[3] += 1
                incache[k] = True
                dirty[k] = w
                prev[k] = -1
                nxt[k] = head
                if head >= 0:
                    prev[head] = k
                else:
                    tail = k
                head = k
                size += 1
        if count:
            ctr[0] += 1
            if not w:
                ctr[4] += 1
                ctr[5] += nand_reads
                if nand_reads > ctr[6]:
                    ctr[6] = nand_reads
                if nand_writes > 0:
                    ctr[7] += 1
    st[0] = head
    st[1] = tail
    st[2] = size


@dataclass(frozen=True)
class LruSimResult:
    """Measured behaviour of an LRU mapping cache (counts exclude the warm-up).

    Attributes
    ----------
    n_units : int
        Distinct cacheable units (entries, or translation pages when page-grained).
    capacity_units : int
        Cache capacity in units.
    entries_per_unit : int
        1 for an entry-grained cache, ``E`` for a page-grained one.
    requests, hits : int
        Measured requests and cache hits.
    hit_ratio : float
        ``hits / requests``.
    evictions, dirty_evictions : int
        Units evicted, and those evicted dirty (written since they were loaded).
    dirty_evictions_per_request : float
        ``dirty_evictions / requests``.
    dirty_eviction_fraction : float
        ``dirty_evictions / evictions`` (``d``).
    reads : int
        Host reads among the requests.
    mean_nand_reads_per_read, max_nand_reads_per_read : float, int
        NAND reads per host read: data page + translation page on a miss + the read of a
        read-modify-write when an entry-grained cache evicts a dirty entry.
    reads_with_nand_write : int
        Host reads that caused a NAND program (dirty write-back).
    """

    n_units: int
    capacity_units: int
    entries_per_unit: int
    requests: int
    hits: int
    hit_ratio: float
    evictions: int
    dirty_evictions: int
    dirty_evictions_per_request: float
    dirty_eviction_fraction: float
    reads: int
    mean_nand_reads_per_read: float
    max_nand_reads_per_read: int
    reads_with_nand_write: int


def _lru_state(n_units: int):
    prev = np.full(n_units, -1, dtype=np.int64)
    nxt = np.full(n_units, -1, dtype=np.int64)
    incache = np.zeros(n_units, dtype=np.bool_)
    dirty = np.zeros(n_units, dtype=np.bool_)
    st = np.array([-1, -1, 0], dtype=np.int64)
    ctr = np.zeros(8, dtype=np.int64)
    return prev, nxt, incache, dirty, st, ctr


def _lru_result(ctr, n_units, capacity, epu) -> LruSimResult:
    req, hits, ev, dev, reads, rnr, rmax, rw = (int(x) for x in ctr)
    return LruSimResult(
        n_units=n_units,
        capacity_units=capacity,
        entries_per_unit=epu,
        requests=req,
        hits=hits,
        hit_ratio=hits / req if req else 0.0,
        evictions=ev,
        dirty_evictions=dev,
        dirty_evictions_per_request=dev / req if req else 0.0,
        dirty_eviction_fraction=dev / ev if ev else 0.0,
        reads=reads,
        mean_nand_reads_per_read=rnr / reads if reads else 0.0,
        max_nand_reads_per_read=rmax,
        reads_with_nand_write=rw,
    )


def run_lru_cache(
    lpns,
    capacity_units: int,
    *,
    is_write=None,
    entries_per_unit: int = 1,
    n_entries: int | None = None,
    warmup_requests: int = 0,
) -> LruSimResult:
    """Replay an explicit address stream through an LRU mapping cache (deterministic).

    Parameters
    ----------
    lpns : array_like of int
        Requested mapping entries (LPNs), ``>= 0``.
    capacity_units : int
        Cache capacity in units (entries, or translation pages if ``entries_per_unit > 1``).
    is_write : array_like of bool, optional
        Whether each request is a write (default: all reads).
    entries_per_unit : int
        1 = entry-grained; ``E`` = page-grained, caching translation page ``lpn // E``.
    n_entries : int, optional
        Size of the entry space (default ``max(lpns) + 1``).
    warmup_requests : int
        Leading requests excluded from the counts.

    Returns
    -------
    LruSimResult
    """
    lp = np.ascontiguousarray(lpns, dtype=np.int64)
    if lp.ndim != 1 or (lp.size and lp.min() < 0):
        raise ValueError("lpns must be a 1-D array of non-negative ints")
    epu = _check_int("entries_per_unit", entries_per_unit, 1)
    cap = _check_int("capacity_units", capacity_units, 0)
    warm = _check_int("warmup_requests", warmup_requests, 0)
    n_ent = int(lp.max()) + 1 if n_entries is None else _check_int("n_entries", n_entries, 1)
    if lp.size and lp.max() >= n_ent:
        raise ValueError(f"lpns must be < n_entries={n_ent}")
    n_units = -(-n_ent // epu)
    w = np.zeros(lp.size, dtype=np.bool_) if is_write is None else np.ascontiguousarray(is_write, dtype=np.bool_)
    if w.shape != lp.shape:
        raise ValueError("is_write must have the same length as lpns")
    keys = lp // epu if epu > 1 else lp
    prev, nxt, incache, dirty, st, ctr = _lru_state(n_units)
    _lru_kernel(keys, w, min(cap, n_units), prev, nxt, incache, dirty, st, ctr, epu == 1, warm)
    return _lru_result(ctr, n_units, min(cap, n_units), epu)


def simulate_lru_cache(
    n_entries: int,
    capacity_units: int,
    *,
    seed: SeedLike,
    pattern: AddressPattern = UniformPattern(),
    requests: int | None = None,
    warmup_requests: int | None = None,
    write_fraction: float = 0.0,
    entries_per_unit: int = 1,
) -> LruSimResult:
    """Simulate an LRU mapping cache (DFTL CMT) under a random request stream.

    Each request is a write with probability ``write_fraction``, independently of its address.
    A miss loads the unit (clean on a read, dirty on a write); a write hit dirties it; the LRU
    unit is evicted when the cache is full. An entry-grained cache (``entries_per_unit = 1``)
    must read-modify-write the translation page of a dirty victim; a page-grained cache holds
    the whole translation page, so it only programs it.

    Parameters
    ----------
    n_entries : int
        Mapping entries (logical pages) addressed by the pattern.
    capacity_units : int
        Cache capacity in units (entries, or translation pages).
    seed : int or numpy.random.Generator
        Randomness of the stream; the same seed reproduces the run exactly.
    pattern : AddressPattern
        Address generator from :mod:`ssdco.ftl.address_patterns`.
    requests : int, optional
        Measured requests (default ``20 * capacity`` entries, at least 10^5).
    warmup_requests : int, optional
        Unmeasured leading requests (default ``5 * capacity`` entries).
    write_fraction : float
        Probability that a request is a write.
    entries_per_unit : int
        1 = entry-grained; ``E`` = page-grained.

    Returns
    -------
    LruSimResult
    """
    n_ent = _check_int("n_entries", n_entries, 1)
    epu = _check_int("entries_per_unit", entries_per_unit, 1)
    cap = _check_int("capacity_units", capacity_units, 0)
    wf = _check_fraction("write_fraction", write_fraction)
    n_units = -(-n_ent // epu)
    cap = min(cap, n_units)
    cap_entries = cap * epu
    n_meas = max(100_000, 20 * cap_entries) if requests is None else _check_int("requests", requests, 1)
    n_warm = 5 * cap_entries if warmup_requests is None else _check_int("warmup_requests", warmup_requests, 0)
    rng = as_generator(seed)
    prev, nxt, incache, dirty, st, ctr = _lru_state(n_units)
    total = n_warm + n_meas
    for s in range(0, total, _CHUNK):
        n = min(_CHUNK, total - s)
        lp = np.ascontiguousarray(pattern.sample_lpns(rng, n, n_ent, start_index=s), dtype=np.int64)
        w = rng.random(n) < wf
        keys = lp // epu if epu > 1 else lp
        _lru_kernel(keys, w, cap, prev, nxt, incache, dirty, st, ctr, epu == 1, max(0, n_warm - s))
    return _lru_result(ctr, n_units, cap, epu)


# --------------------------------------------------------------------------------------------
# Clean/dirty partitioned cache (seed 002)
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _partitioned_kernel(
    lpns, is_write, epp, clean_cap, dirty_cap,
    cprev, cnext, cin, dflag, dcnt, bhead, bnext, bprev, st, ctr, count_from,
):
    """st = [clean_head, clean_tail, clean_size, dirty_entries, max_bucket];
    ctr = [reads, read_hits, read_nand_reads, max_read_nand_reads, read_nand_writes,
           writes, coalesced, flushes, flushed_entries, flush_reads, flush_writes]."""
    head = st[0]
    tail = st[1]
    size = st[2]
    dtot = st[3]
    maxb = st[4]
    for i in range(lpns.shape[0]):
        lpn = lpns[i]
        pg = lpn // epp
        count = i >= count_from
        if not is_write[i]:
            nand_reads = 1  # data page
            nand_writes = 0  # nothing on the read path may program NAND
            if dflag[lpn]:
                hit = True
            elif cin[pg]:
                hit = True
                if pg != head:
                    p = cprev[pg]
                    n = cnext[pg]
                    cnext[p] = n
                    if n >= 0:
                        cprev[n] = p
                    else:
                        tail = p
                    cprev[pg] = -1
                    cnext[pg] = head
                    cprev[head] = pg
                    head = pg
            else:
                hit = False
                nand_reads += 1  # translation page
                if clean_cap > 0:
                    if size == clean_cap:  # evict the LRU clean page: no write-back needed
                        v = tail
                        tail = cprev[v]
                        if tail >= 0:
                            cnext[tail] = -1
                        else:
                            head = -1
                        cin[v] = False
                        size -= 1
                    cin[pg] = True
                    cprev[pg] = -1
                    cnext[pg] = head
                    if head >= 0:
                        cprev[head] = pg
                    else:
                        tail = pg
                    head = pg
                    size += 1
            if count:
                ctr[0] += 1
                if hit:
                    ctr[1] += 1
                ctr[2] += nand_reads
                if nand_reads > ctr[3]:
                    ctr[3] = nand_reads
                ctr[4] += nand_writes
        else:
            if count:
                ctr[5] += 1
            if dflag[lpn]:
                if count:
                    ctr[6] += 1
                continue
            if dtot == dirty_cap:
                # greedy batch update: write back the translation page with most dirty entries
                while bhead[maxb] < 0:
                    maxb -= 1
                vp = bhead[maxb]
                _bucket_remove(vp, maxb, bhead, bnext, bprev)
                c = dcnt[vp]
                base = vp * epp
                for e in range(base, min(base + epp, dflag.shape[0])):
                    dflag[e] = False
                dcnt[vp] = 0
                dtot -= c
                if count:
                    ctr[7] += 1
                    ctr[8] += c
                    if not cin[vp]:
                        ctr[9] += 1  # read the old translation page before patching it
                    ctr[10] += 1
            c = dcnt[pg]
            if c > 0:
                _bucket_remove(pg, c, bhead, bnext, bprev)
            dcnt[pg] = c + 1
            _bucket_insert(pg, c + 1, bhead, bnext, bprev)
            if c + 1 > maxb:
                maxb = c + 1
            dflag[lpn] = True
            dtot += 1
    st[0] = head
    st[1] = tail
    st[2] = size
    st[3] = dtot
    st[4] = maxb


@dataclass(frozen=True)
class PartitionedSimResult:
    """Measured behaviour of the clean/dirty partitioned mapping cache (warm-up excluded).

    Attributes
    ----------
    reads : int
        Host reads.
    read_hit_ratio : float
        Reads whose mapping was in the dirty area or in a cached clean page.
    mean_nand_reads_per_read : float
        NAND reads per host read (data page + translation page on a miss).
    max_nand_reads_per_read : int
        The largest number of NAND reads any single host read needed (2 by design).
    nand_writes_during_reads : int
        NAND programs caused by host reads (0 by design).
    writes : int
        Host writes.
    coalesced_writes : int
        Writes to an entry already dirty (no new dirty entry).
    flushes : int
        Batch updates (translation-page programs).
    mean_entries_per_flush : float
        Dirty entries written back per batch update.
    translation_writes_per_write : float
        ``flushes / writes``.
    translation_reads_per_write : float
        Translation-page reads (pages not in the clean area) per host write.
    """

    reads: int
    read_hit_ratio: float
    mean_nand_reads_per_read: float
    max_nand_reads_per_read: int
    nand_writes_during_reads: int
    writes: int
    coalesced_writes: int
    flushes: int
    mean_entries_per_flush: float
    translation_writes_per_write: float
    translation_reads_per_write: float


def _partitioned_run_lengths(cached_entries: int, write_fraction: float, requests: int | None,
                             warmup_requests: int | None) -> tuple[int, int]:
    """(measured, warm-up) requests of :func:`simulate_partitioned_cache`: as given, else long enough to turn the
    ``cached_entries`` (clean and dirty) over many times."""
    n_meas = max(1_000_000, 20 * cached_entries) if requests is None else _check_int("requests", requests, 1)
    if warmup_requests is not None:
        return n_meas, _check_int("warmup_requests", warmup_requests, 0)
    m = min(write_fraction, 1.0 - write_fraction)
    return n_meas, int(min(10_000_000, 5 * cached_entries / m)) if m > 0 else 5 * cached_entries


def simulate_partitioned_cache(
    n_entries: int,
    entries_per_page: int,
    clean_capacity_pages: int,
    dirty_capacity_entries: int,
    *,
    seed: SeedLike,
    pattern: AddressPattern = UniformPattern(),
    write_fraction: float = 0.5,
    requests: int | None = None,
    warmup_requests: int | None = None,
) -> PartitionedSimResult:
    """Simulate the clean/dirty partitioned DFTL cache of seed 002 (write-optimised form, Fig. 3c).

    * Clean area: LRU list of up to ``clean_capacity_pages`` clean translation pages, filled by
      read misses only.
    * Dirty area: up to ``dirty_capacity_entries`` logged (LPN, PPN) entries, grouped by
      translation page. A write logs its entry (a write to an already dirty entry is
      coalesced). When the area is full, the page with the most dirty entries is read
      (unless it is in the clean area), patched and programmed: greedy batch update.
    * A read checks the dirty area, then the clean area; on a miss it reads the translation
      page and evicts the LRU clean page (never a write-back), then reads the data page.

    Parameters
    ----------
    n_entries : int
        Mapping entries (logical pages).
    entries_per_page : int
        ``E``, entries per translation page.
    clean_capacity_pages : int
        Clean-area capacity in translation pages.
    dirty_capacity_entries : int
        Dirty-area capacity in entries (>= 1).
    seed : int or numpy.random.Generator
        Randomness of the stream; the same seed reproduces the run exactly.
    pattern : AddressPattern
        Address generator (reads and writes share it).
    write_fraction : float
        Probability that a request is a write.
    requests : int, optional
        Measured requests (default ``max(10^6, 20 (clean entries + dirty entries))``).
    warmup_requests : int, optional
        Unmeasured leading requests (default ``5 (clean entries + dirty entries) / min(w, 1-w)``
        capped at 10^7).

    Returns
    -------
    PartitionedSimResult
    """
    n_ent = _check_int("n_entries", n_entries, 1)
    epp = _check_int("entries_per_page", entries_per_page, 1)
    dcap = _check_int("dirty_capacity_entries", dirty_capacity_entries, 1)
    wf = _check_fraction("write_fraction", write_fraction)
    n_pages = -(-n_ent // epp)
    ccap = min(_check_int("clean_capacity_pages", clean_capacity_pages, 0), n_pages)
    n_meas, n_warm = _partitioned_run_lengths(ccap * epp + dcap, wf, requests, warmup_requests)
    rng = as_generator(seed)
    cprev = np.full(n_pages, -1, dtype=np.int64)
    cnext = np.full(n_pages, -1, dtype=np.int64)
    cin = np.zeros(n_pages, dtype=np.bool_)
    dflag = np.zeros(n_ent, dtype=np.bool_)
    dcnt = np.zeros(n_pages, dtype=np.int64)
    bhead = np.full(epp + 1, -1, dtype=np.int64)
    bnext = np.full(n_pages, -1, dtype=np.int64)
    bprev = np.full(n_pages, -1, dtype=np.int64)
    st = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
    ctr = np.zeros(11, dtype=np.int64)
    total = n_warm + n_meas
    for s in range(0, total, _CHUNK):
        n = min(_CHUNK, total - s)
        lp = np.ascontiguousarray(pattern.sample_lpns(rng, n, n_ent, start_index=s), dtype=np.int64)
        w = rng.random(n) < wf
        _partitioned_kernel(
            lp, w, epp, ccap, dcap, cprev, cnext, cin, dflag, dcnt, bhead, bnext, bprev, st, ctr,
            max(0, n_warm - s),
        )
    reads, rhits, rnr, rmax, rnw, writes, coal, fl, fle, flr, flw = (int(x) for x in ctr)
    return PartitionedSimResult(
        reads=reads,
        read_hit_ratio=rhits / reads if reads else 0.0,
        mean_nand_reads_per_read=rnr / reads if reads else 0.0,
        max_nand_reads_per_read=rmax,
        nand_writes_during_reads=rnw,
        writes=writes,
        coalesced_writes=coal,
        flushes=fl,
        mean_entries_per_flush=fle / fl if fl else 0.0,
        translation_writes_per_write=flw / writes if writes else 0.0,
        translation_reads_per_write=flr / writes if writes else 0.0,
    )


def simulate_config(config, *, seed: SeedLike, logical_pages: int = 1 << 20, host_writes: int | None = None,
                    warmup_host_writes: int | None = None) -> FtlSimResult:
    """Run :func:`simulate_ftl` on a configuration's device and workload (its ``[ftl]`` table).

    Same inputs as the analytic :func:`ssdco.network.ftl_effects.ftl_effects`: victim policy ``ftl.gc_policy``,
    ``alpha = 1 + nand.over_provisioning``, erase blocks of ``pages_per_block x page / mapping unit``
    units and the workload's address pattern; the logical space is scaled down to ``logical_pages``
    units (WAF depends on the ratios, not the size, once blocks are many).
    """
    from ssdco.network.ftl_effects import address_pattern

    if config.ftl is None:
        raise ValueError("the configuration has no [ftl] table")
    nand, w = config.nand, config.workload
    units_per_page = max(1, int(round(nand.page_size_kib / w.mapping_unit_kib)))
    return simulate_ftl(logical_pages, nand.pages_per_block * units_per_page, 1.0 + nand.over_provisioning,
                        seed=seed, policy=config.ftl.gc_policy, pattern=address_pattern(config),
                        host_writes=host_writes, warmup_host_writes=warmup_host_writes)
