"""Mapping-table and cached-mapping-table (DFTL) analytics.

What is computed here:

* :func:`che_hit_ratio` - hit ratio of an LRU cache of ``C`` items under the independent
  reference model (IRM), by Che's approximation. Popularity is either piecewise constant
  (:class:`ZonePopularity`: zone item counts + zone access fractions, never materialised, so
  10^8 mapping entries cost nothing) or an explicit probability vector.
* :func:`translation_page_popularity` - the popularity of *translation pages* (groups of
  ``entries_per_page`` consecutive mapping entries) induced by an entry popularity, for a
  page-grained mapping cache.
* :func:`dftl_cost` - extra NAND operations per host request of a demand-based FTL (DFTL) whose
  cached mapping table (CMT) holds a fraction ``f`` of the entries, entry- or page-grained.
* :func:`partitioned_cache_cost` - the same for the clean/dirty partitioned cache with an
  entry-logged dirty area and greedy batch update (seed document 002).
* :func:`mapping_dram_bytes` - DRAM bytes for a full or cached mapping table plus the GTD.

Units: counts of mapping entries / translation pages, probabilities, NAND operations per host
request (or per host read / write), bytes.

References
----------
.. [1] C. Fricker, P. Robert, J. Roberts, "A versatile and accurate approximation for LRU
   cache performance", ITC 24, 2012, arXiv:1202.3974 (Che's approximation, TTL interpretation).
.. [2] A. Gupta, Y. Kim, B. Urgaonkar, "DFTL: a flash translation layer employing demand-based
   selective caching of page-level address mappings", ASPLOS 2009.
.. [3] Seed document ``002_*.txt`` (Korean): DFTL cache partitioning for bounded read latency -
   clean/dirty split mapping cache, entry-logged dirty area, greedy batch update, page- vs
   entry-grained caches.
.. [4] ``shared/reference-parameters.md`` sections 4.3 (table size), 7.1 (DFTL) and 7.2 (Che).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence, Union

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma

__all__ = [
    "ZonePopularity",
    "CheResult",
    "che_characteristic_time",
    "che_hit_ratio",
    "translation_page_popularity",
    "dirty_eviction_probability",
    "DftlCost",
    "dftl_cost",
    "batch_update_entries_per_flush",
    "PartitionedCacheCost",
    "partitioned_cache_cost",
    "MappingDramBytes",
    "full_mapping_table_bytes",
    "mapping_dram_bytes",
]


# --------------------------------------------------------------------------------------------
# Popularity
# --------------------------------------------------------------------------------------------


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _check_prob(name: str, value, *, open_low: bool = False, open_high: bool = False) -> float:
    v = float(value)
    ok = math.isfinite(v) and (v > 0.0 if open_low else v >= 0.0) and (v < 1.0 if open_high else v <= 1.0)
    if not ok:
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"{name} must be in {lo}, {hi}, got {value!r}")
    return v


@dataclass(frozen=True)
class ZonePopularity:
    """Piecewise-constant item popularity: ``item_counts[i]`` items share ``access_fractions[i]``
    of the requests equally (per-item request probability ``access_fractions[i] / item_counts[i]``).

    Parameters
    ----------
    item_counts : tuple of int
        Number of items in each group (>= 1).
    access_fractions : tuple of float
        Fraction of all requests going to each group; each in [0, 1], summing to 1.
    """

    item_counts: tuple[int, ...]
    access_fractions: tuple[float, ...]

    def __post_init__(self) -> None:
        counts = tuple(_check_int("item_counts", c, 1) for c in self.item_counts)
        fr = tuple(float(v) for v in self.access_fractions)
        if len(counts) == 0 or len(counts) != len(fr):
            raise ValueError(
                f"item_counts and access_fractions must be non-empty and of equal length, got {self.item_counts!r}"
                f" and {self.access_fractions!r}"
            )
        if any(not math.isfinite(v) or v < 0.0 or v > 1.0 for v in fr):
            raise ValueError(f"access_fractions must all be in [0, 1], got {fr!r}")
        if abs(math.fsum(fr) - 1.0) > 1e-9:
            raise ValueError(f"access_fractions must sum to 1, got {fr!r} (sum {math.fsum(fr)!r})")
        object.__setattr__(self, "item_counts", counts)
        object.__setattr__(self, "access_fractions", fr)

    @property
    def n_items(self) -> int:
        """Total number of items."""
        return int(sum(self.item_counts))

    @property
    def item_probabilities(self) -> np.ndarray:
        """Per-item request probability of each group, ``access_fractions / item_counts``."""
        return np.asarray(self.access_fractions) / np.asarray(self.item_counts, dtype=float)

    @classmethod
    def uniform(cls, n_items: int) -> "ZonePopularity":
        """All ``n_items`` items equally popular."""
        return cls((_check_int("n_items", n_items, 1),), (1.0,))

    @classmethod
    def from_pattern(cls, pattern, n_items: int) -> "ZonePopularity":
        """Popularity of the LPNs of an address pattern over ``n_items`` LPNs.

        ``pattern`` is a :class:`~ssdco.ftl.address_patterns.ZonedPattern` or
        :class:`~ssdco.ftl.address_patterns.UniformPattern` (anything with
        ``zone_item_counts(n)`` and ``access_fractions``); a sequential pattern is not an IRM
        stream and is rejected.
        """
        if not (hasattr(pattern, "zone_item_counts") and hasattr(pattern, "access_fractions")):
            raise ValueError(
                f"pattern must be an independent-reference (zoned or uniform) pattern, got {pattern!r}"
            )
        return cls(tuple(pattern.zone_item_counts(n_items)), tuple(pattern.access_fractions))


PopularityLike = Union[ZonePopularity, Sequence[float], np.ndarray]


def _groups(popularity: PopularityLike) -> tuple[np.ndarray, np.ndarray]:
    """Return (counts, per-item probabilities) with zero-probability groups kept (they never hit)."""
    if isinstance(popularity, ZonePopularity):
        return np.asarray(popularity.item_counts, dtype=float), popularity.item_probabilities
    q = np.asarray(popularity, dtype=float).ravel()
    if q.size == 0 or not np.all(np.isfinite(q)) or np.any(q < 0.0):
        raise ValueError("an explicit popularity vector must be non-empty, finite and non-negative")
    total = math.fsum(q)
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"an explicit popularity vector must sum to 1, got sum {total!r}")
    return np.ones_like(q), q / total


# --------------------------------------------------------------------------------------------
# Che's approximation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheResult:
    """Che's approximation for one LRU cache.

    Attributes
    ----------
    characteristic_time : float
        ``T_C`` in units of requests (per-item rates are request probabilities, i.e. the total
        request rate is 1 per unit time); ``inf`` when everything with positive popularity fits.
    hit_ratio : float
        Overall hit ratio ``H = sum_n q_n h_n``.
    item_hit_ratios : numpy.ndarray
        ``h_n = 1 - exp(-q_n T_C)`` for each popularity group (or each item of an explicit vector).
    """

    characteristic_time: float
    hit_ratio: float
    item_hit_ratios: np.ndarray


def che_characteristic_time(popularity: PopularityLike, cache_items: float) -> float:
    """Solve Che's equation ``sum_n (1 - exp(-q_n T_C)) = C`` for ``T_C``.

    Parameters
    ----------
    popularity : ZonePopularity or array_like of float
        Item popularity (per-item request probabilities, summing to 1).
    cache_items : float
        Cache capacity ``C`` in items, ``0 <= C <= N``.

    Returns
    -------
    float
        ``T_C`` in requests; 0 for ``C = 0`` and ``inf`` when ``C`` is at least the number of
        items with positive probability.

    References
    ----------
    Fricker, Robert, Roberts, ITC 2012 (arXiv:1202.3974), Eq. (1).
    """
    counts, q = _groups(popularity)
    n_total = float(counts.sum())
    c = float(cache_items)
    if not math.isfinite(c) or c < 0.0 or c > n_total:
        raise ValueError(f"cache_items must be in [0, {n_total:g}] (the number of items), got {cache_items!r}")
    n_positive = float(counts[q > 0.0].sum())
    if c == 0.0:
        return 0.0
    if c >= n_positive:
        return math.inf

    def f(log_t: float) -> float:
        t = math.exp(log_t)
        return float(np.sum(counts * -np.expm1(-q * t))) - c

    # occupancy(t) = sum counts*(1-exp(-q t)) <= t * sum(counts*q) = t, so t = C/e undershoots.
    lo = math.log(c) - 1.0
    hi = max(lo + 1.0, math.log(1.0 / float(q[q > 0.0].min())))
    while f(hi) <= 0.0:
        hi += 2.0
        if hi > 690.0:  # C indistinguishable from the number of items in double precision
            return math.inf
    log_t = brentq(f, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    return math.exp(log_t)


def che_hit_ratio(popularity: PopularityLike, cache_items: float) -> CheResult:
    """Hit ratio of an LRU cache of ``C`` items under the IRM, by Che's approximation.

    ``h_n = 1 - exp(-q_n T_C)`` and ``H = sum_n q_n h_n`` (probabilities ``q_n`` sum to 1), with
    ``T_C`` from :func:`che_characteristic_time`. Uniform popularity gives ``H = C / N``. With a
    :class:`ZonePopularity` the cost is O(number of zones) per iteration, independent of ``N``.

    Parameters
    ----------
    popularity : ZonePopularity or array_like of float
        Item popularity.
    cache_items : float
        Cache capacity ``C`` in items.

    Returns
    -------
    CheResult

    References
    ----------
    H. Che, Y. Tung, Z. Wang, IEEE JSAC 2002; Fricker, Robert, Roberts, ITC 2012
    (arXiv:1202.3974), who show the approximation is asymptotically exact.
    """
    counts, q = _groups(popularity)
    t = che_characteristic_time(popularity, cache_items)
    if math.isinf(t):
        h = np.where(q > 0.0, 1.0, 0.0)
    else:
        h = -np.expm1(-q * t)
    hit = float(np.sum(counts * q * h))
    return CheResult(characteristic_time=t, hit_ratio=min(1.0, max(0.0, hit)), item_hit_ratios=h)


def translation_page_popularity(popularity: PopularityLike, entries_per_page: int) -> PopularityLike:
    """Popularity of translation pages induced by a zoned entry popularity.

    Entry ``e`` lives in translation page ``e // entries_per_page``; zones are contiguous in the
    order given (as in :class:`~ssdco.ftl.address_patterns.ZonedPattern`). A page lying
    wholly inside zone ``i`` has access probability ``entries_per_page * q_i``; pages that
    straddle a zone boundary, and a short last page, become singleton groups with their exact
    probability. The result has at most ``2 * zones + 1`` extra groups, whatever ``N``.

    An explicit per-entry probability vector is summed page by page instead.

    Parameters
    ----------
    popularity : ZonePopularity or array_like of float
        Per-entry popularity; zones contiguous from entry 0.
    entries_per_page : int
        Mapping entries per translation page (``page_bytes // entry_bytes``, e.g. 4096).

    Returns
    -------
    ZonePopularity or numpy.ndarray
        Popularity over ``ceil(N / entries_per_page)`` translation pages (same kind as the input).
    """
    e = _check_int("entries_per_page", entries_per_page, 1)
    if not isinstance(popularity, ZonePopularity):
        _, qv = _groups(popularity)
        n_pages = -(-qv.size // e)
        padded = np.zeros(n_pages * e)
        padded[: qv.size] = qv
        return padded.reshape(n_pages, e).sum(axis=1)
    counts = np.asarray(popularity.item_counts, dtype=np.int64)
    q = popularity.item_probabilities
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    ends = starts + counts
    n = int(ends[-1])
    n_pages = -(-n // e)
    # pages that contain a zone boundary or are short: computed exactly.
    special = {int(s // e) for s in starts} | {int((x - 1) // e) for x in ends} | {n_pages - 1}
    special_prob: dict[int, float] = {}
    for p in sorted(special):
        lo, hi = p * e, min((p + 1) * e, n)
        prob = 0.0
        for s, x, qi in zip(starts, ends, q):
            overlap = min(hi, int(x)) - max(lo, int(s))
            if overlap > 0:
                prob += overlap * qi
        special_prob[p] = prob
    out_counts: list[int] = []
    out_fracs: list[float] = []
    for s, x, qi in zip(starts, ends, q):
        first_full = -(-int(s) // e)
        last_full = int(x) // e - 1
        if last_full < first_full:
            continue
        n_full = last_full - first_full + 1 - sum(1 for p in special if first_full <= p <= last_full)
        if n_full > 0:
            out_counts.append(n_full)
            out_fracs.append(n_full * e * qi)
    for p in sorted(special_prob):
        out_counts.append(1)
        out_fracs.append(special_prob[p])
    total = math.fsum(out_fracs)
    return ZonePopularity(tuple(out_counts), tuple(v / total for v in out_fracs))


# --------------------------------------------------------------------------------------------
# DFTL
# --------------------------------------------------------------------------------------------


def dirty_eviction_probability(item_hit_ratios, write_fraction: float):
    """Probability that a cached item is dirty when it is evicted, per popularity group.

    Derivation (Che's TTL view, Fricker et al. 2012): an item stays cached while successive
    requests to it arrive within ``T_C`` of each other. Under the IRM each further request
    arrives in time with probability ``h_n``, so a residence sees ``K`` requests with
    ``P(K = k) = h_n^(k-1) (1 - h_n)``. Each request is a write with probability ``w``,
    independently of the address, and one write during the residence makes the cached entry
    dirty. The item leaves clean iff all ``K`` requests were reads:
    ``P(clean) = E[(1-w)^K] = (1-w)(1-h_n) / (1 - (1-w) h_n)``, hence

    ``d_n = 1 - P(clean) = w / (1 - (1 - w) h_n)``.

    Parameters
    ----------
    item_hit_ratios : float or array_like
        ``h_n`` from :func:`che_hit_ratio`.
    write_fraction : float
        ``w``, fraction of requests that are writes, in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``d_n`` in [0, 1].
    """
    w = _check_prob("write_fraction", write_fraction)
    h = np.asarray(item_hit_ratios, dtype=float)
    denom = 1.0 - (1.0 - w) * h
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(denom > 0.0, w / np.where(denom > 0.0, denom, 1.0), 1.0)
    return float(d) if d.ndim == 0 else d


@dataclass(frozen=True)
class DftlCost:
    """Extra NAND operations of a DFTL cached mapping table, at steady state.

    Attributes
    ----------
    granularity : str
        ``"entry"`` (fine-grained CMT of (LPN, PPN) pairs) or ``"page"`` (whole translation pages).
    cache_units : float
        Cache capacity in cached units (entries or translation pages).
    hit_ratio : float
        ``h``, CMT hit ratio (Che's approximation).
    dirty_eviction_probability : float
        ``d``, probability that the unit evicted on a miss is dirty.
    translation_reads_per_request : float
        Translation-page reads per host request (reads and writes alike).
    translation_writes_per_request : float
        Translation-page programs per host request.
    max_nand_reads_per_read : int
        Worst-case NAND reads for one host page read (mapping fetch, read-modify-write of a
        dirty victim when entry-grained, data read).
    max_nand_writes_per_read : int
        Worst-case NAND programs caused by one host page read (dirty write-back).
    """

    granularity: str
    cache_units: float
    hit_ratio: float
    dirty_eviction_probability: float
    translation_reads_per_request: float
    translation_writes_per_request: float
    max_nand_reads_per_read: int
    max_nand_writes_per_read: int

    @property
    def miss_ratio(self) -> float:
        """``1 - h``: translation-page fetches per host request."""
        return 1.0 - self.hit_ratio


def dftl_cost(
    popularity: PopularityLike,
    cached_fraction: float,
    write_fraction: float,
    granularity: str = "entry",
    entries_per_page: int = 4096,
) -> DftlCost:
    """Per-request extra NAND operations of DFTL with a CMT holding a fraction ``f`` of the entries.

    Model (Gupta et al. 2009, reference-parameters.md §7.1): every miss (read or write: a
    write needs the old PPN to invalidate the old data page) fetches one translation page, and
    evicts one LRU unit, which is dirty with probability ``d`` (:func:`dirty_eviction_probability`,
    averaged over evictions, which happen at rate ``q_n (1 - h_n)`` for group ``n``).

    * entry-grained (``granularity="entry"``): capacity ``f N`` entries; a dirty victim entry
      needs a read-modify-write of its translation page, so per request
      ``reads = (1-h)(1 + d)`` and ``writes = (1-h) d``; worst case for a host read:
      3 reads + 1 program.
    * page-grained (``"page"``): capacity ``f N / E`` translation pages (``E`` entries per page),
      hit ratio by Che over translation-page popularity
      (:func:`translation_page_popularity`); a dirty victim page is already in DRAM, so
      ``reads = 1-h`` and ``writes = (1-h) d``; worst case for a host read: 2 reads + 1 program.

    DFTL's batching of evicted entries that share a translation page is not modelled, so the
    entry-grained write term is an upper bound. Read/write type is assumed independent of the
    address, so these per-request figures also hold per read and per write.

    Parameters
    ----------
    popularity : ZonePopularity or array_like of float
        Popularity of mapping entries (one per mapped 4 KiB unit), zones contiguous.
    cached_fraction : float
        ``f``, cached entries / all entries, in [0, 1].
    write_fraction : float
        ``w``, fraction of host requests that are writes, in [0, 1].
    granularity : {"entry", "page"}
        Cached unit.
    entries_per_page : int
        ``E``, entries per translation page (page bytes / entry bytes), used by ``"page"``.

    Returns
    -------
    DftlCost

    References
    ----------
    Gupta, Kim, Urgaonkar, ASPLOS 2009; seed 002 §II.2 (two cache forms); Fricker et al., ITC 2012.
    """
    f = _check_prob("cached_fraction", cached_fraction)
    w = _check_prob("write_fraction", write_fraction)
    n_entries = float(_groups(popularity)[0].sum())
    if granularity == "entry":
        pop = popularity
        units = f * n_entries
        rmw_reads = 1.0
    elif granularity == "page":
        e = _check_int("entries_per_page", entries_per_page, 1)
        pop = translation_page_popularity(popularity, e)
        units = math.floor(f * n_entries / e + 1e-9)
        rmw_reads = 0.0
    else:
        raise ValueError(f"granularity must be 'entry' or 'page', got {granularity!r}")
    counts, q = _groups(pop)
    units = min(float(units), float(counts.sum()))
    che = che_hit_ratio(pop, units)
    miss_rate = counts * q * (1.0 - che.item_hit_ratios)
    miss = float(miss_rate.sum())
    d_n = np.atleast_1d(dirty_eviction_probability(che.item_hit_ratios, w))
    d = float((miss_rate * d_n).sum() / miss) if miss > 0.0 else 0.0
    dirty_evictions = miss * d
    # worst case for one host read: mapping fetch (+ RMW read of a dirty victim entry) + data read.
    if miss <= 0.0:
        max_reads, max_writes = 1, 0
    elif w <= 0.0:
        max_reads, max_writes = 2, 0
    else:
        max_reads, max_writes = 2 + int(rmw_reads), 1
    return DftlCost(
        granularity=granularity,
        cache_units=units,
        hit_ratio=che.hit_ratio,
        dirty_eviction_probability=d,
        translation_reads_per_request=miss + rmw_reads * dirty_evictions,
        translation_writes_per_request=dirty_evictions,
        max_nand_reads_per_read=max_reads,
        max_nand_writes_per_read=max_writes,
    )


def batch_update_entries_per_flush(
    popularity: PopularityLike, dirty_capacity_entries: float, entries_per_page: int
) -> tuple[float, float]:
    """Greedy batch update: dirty entries and host writes covered by one translation-page flush.

    Model of the entry-logged dirty area of seed 002 (§III.2, Fig. 4): every host write logs
    its (LPN, PPN) entry in the dirty area, grouped by translation page; when the area (``D``
    entries) is full, the page with the most dirty entries is written back in one batch.

    Fluid limit: greedy keeps every written page on a saw-tooth from 0 to one common threshold
    ``b_f`` distinct dirty entries, whatever its write rate. A page whose ``E`` entries are
    written uniformly holds ``E (1 - exp(-m / E))`` distinct entries after ``m`` writes, so it
    is flushed every ``-E ln(1 - b_f / E)`` writes to it and holds on average
    ``E - E b_f / m`` distinct entries; summing over the ``P`` pages that receive writes,
    ``D = P (E - E b_f / m)`` fixes ``b_f`` (``b_f = 2 D / P`` for ``b_f << E``).

    Discrete correction: counts are integers; a page spends about one inter-write interval at
    each count ``0 .. b-1`` and is flushed soon after reaching ``b`` (flushes are far more
    frequent than writes to one page), so its mean content is that of a fluid saw-tooth to
    ``b - 1``: ``b = b_f + 1`` (at least one entry per flush, as it must be). Host writes per
    flush are the expected writes to collect ``b`` distinct entries out of ``E``,
    ``m* = E (psi(E + 1) - psi(E - b + 1))`` (``~ b + b^2 / (2E)``). Checked against
    :func:`ssdco.sim.ftlsim.simulate_partitioned_cache` in the tests.

    Pages straddling zone boundaries are treated as if uniform inside; pages with no writes
    hold nothing.

    Parameters
    ----------
    popularity : ZonePopularity
        Popularity of *writes* over mapping entries.
    dirty_capacity_entries : float
        ``D``, dirty-area capacity in entries (> 0).
    entries_per_page : int
        ``E``, entries per translation page.

    Returns
    -------
    tuple of float
        ``(b, m_star)``: distinct entries written back per flush, and host writes per flush
        (so translation-page writes per host write = ``1 / m_star``).

    References
    ----------
    Seed 002 (§III.2 batch update, greedy victim page). The fluid saw-tooth argument is the
    one Desnoyers (SYSTOR 2012) uses for cleaning; the discrete correction is this module's
    own (validated by simulation, not taken from a paper).
    """
    e = _check_int("entries_per_page", entries_per_page, 1)
    dcap = float(dirty_capacity_entries)
    page_counts, page_q = _groups(translation_page_popularity(popularity, e))
    p_written = float(page_counts[page_q > 0.0].sum())
    if not math.isfinite(dcap) or dcap <= 0.0 or dcap >= p_written * e:
        raise ValueError(
            f"dirty_capacity_entries must be in (0, {p_written * e:g}) (entries of written pages), "
            f"got {dirty_capacity_entries!r}"
        )
    target = dcap / p_written  # mean distinct dirty entries per page

    def mean_content(b: float) -> float:
        m_star = -e * math.log1p(-b / e)
        return e - e * b / m_star

    # mean_content rises monotonically from 0 (b -> 0) to E (b -> E).
    b_fluid = brentq(lambda x: mean_content(x) - target, 1e-12 * e, e * (1.0 - 1e-15), xtol=1e-12, maxiter=500)
    b = min(b_fluid + 1.0, float(e))
    m_star = e * float(digamma(e + 1.0) - digamma(e - b + 1.0))
    return b, m_star


@dataclass(frozen=True)
class PartitionedCacheCost:
    """NAND cost of the clean/dirty partitioned mapping cache (seed 002, write-optimised form).

    Attributes
    ----------
    clean_hit_ratio : float
        Probability that a host read finds its translation page in the clean area (Che's
        approximation over translation-page popularity).
    dirty_hit_probability : float
        Probability that a read's entry is in the dirty area, ``D / N_w`` (``N_w`` entries in
        pages that receive writes: in the greedy fluid model every written page holds the same
        mean number of dirty entries).
    read_hit_ratio : float
        ``h_clean + (1 - h_clean) * p_dirty`` (the two areas taken as independent).
    translation_reads_per_read : float
        ``1 - read_hit_ratio``: one translation-page read per read miss.
    translation_writes_per_read : float
        Always 0: a read evicts only clean pages.
    max_nand_reads_per_read : int
        Always 2 (mapping page + data page).
    entries_per_flush : float
        ``b``, distinct dirty entries written back per batch update.
    host_writes_per_flush : float
        ``m*``, host writes covered by one batch update.
    translation_writes_per_write : float
        ``1 / m*``, translation-page programs per host write.
    translation_reads_per_write : float
        ``1 / m*``: the read of the old translation page before a batch update (upper bound: a
        page that is also in the clean area needs no read).
    """

    clean_hit_ratio: float
    dirty_hit_probability: float
    read_hit_ratio: float
    translation_reads_per_read: float
    translation_writes_per_read: float
    max_nand_reads_per_read: int
    entries_per_flush: float
    host_writes_per_flush: float
    translation_writes_per_write: float
    translation_reads_per_write: float


def partitioned_cache_cost(
    popularity: PopularityLike,
    clean_capacity_pages: float,
    dirty_capacity_entries: float,
    entries_per_page: int = 4096,
) -> PartitionedCacheCost:
    """Per-request NAND cost of the clean/dirty partitioned DFTL cache of seed 002.

    Model (seed 002, §III, Fig. 3c): the clean area is a page-grained LRU of clean translation
    pages filled only by read misses; the dirty area logs dirty (LPN, PPN) entries. A read
    looks up the dirty area, then the clean area; on a miss it reads one translation page and
    evicts the LRU *clean* page, which needs no write-back, so a read costs at most one
    mapping read plus the data read (two NAND reads) and never a NAND program. A write only
    logs its entry; when the dirty area is full the translation page with the most dirty
    entries is read, patched and programmed in one batch (greedy batch update), see
    :func:`batch_update_entries_per_flush`.

    Parameters
    ----------
    popularity : ZonePopularity
        Popularity of mapping entries (reads and writes assumed to share it).
    clean_capacity_pages : float
        Clean-area capacity in translation pages.
    dirty_capacity_entries : float
        Dirty-area capacity in entries.
    entries_per_page : int
        ``E``, entries per translation page.

    Returns
    -------
    PartitionedCacheCost

    References
    ----------
    Seed 002 (clean/dirty cache partitioning, entry logging, greedy batch update);
    Fricker et al., ITC 2012 (Che's approximation for the clean area).
    """
    e = _check_int("entries_per_page", entries_per_page, 1)
    page_pop = translation_page_popularity(popularity, e)
    n_pages = float(_groups(page_pop)[0].sum())
    c = float(clean_capacity_pages)
    if not math.isfinite(c) or c < 0.0:
        raise ValueError(f"clean_capacity_pages must be >= 0, got {clean_capacity_pages!r}")
    h_clean = che_hit_ratio(page_pop, min(c, n_pages)).hit_ratio
    b, m_star = batch_update_entries_per_flush(popularity, dirty_capacity_entries, e)
    page_counts, page_q = _groups(page_pop)
    n_written_entries = min(float(page_counts[page_q > 0.0].sum()) * e, float(_groups(popularity)[0].sum()))
    p_dirty = min(1.0, float(dirty_capacity_entries) / n_written_entries)
    h = h_clean + (1.0 - h_clean) * p_dirty
    return PartitionedCacheCost(
        clean_hit_ratio=h_clean,
        dirty_hit_probability=p_dirty,
        read_hit_ratio=h,
        translation_reads_per_read=1.0 - h,
        translation_writes_per_read=0.0,
        max_nand_reads_per_read=2,
        entries_per_flush=b,
        host_writes_per_flush=m_star,
        translation_writes_per_write=1.0 / m_star,
        translation_reads_per_write=1.0 / m_star,
    )


# --------------------------------------------------------------------------------------------
# DRAM
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MappingDramBytes:
    """DRAM needed by a mapping option, in bytes.

    Attributes
    ----------
    n_entries : int
        Mapping entries (one per mapped unit).
    full_table_bytes : int
        Size of the whole page-level table, ``n_entries * entry_bytes``.
    cache_bytes : int
        Bytes of cached mapping entries (the whole table when ``cached_fraction = 1``).
    gtd_bytes : int
        Global translation directory (one PPN per translation page; 0 for a full table).
    total_bytes : int
        ``cache_bytes + gtd_bytes``.
    """

    n_entries: int
    full_table_bytes: int
    cache_bytes: int
    gtd_bytes: int
    total_bytes: int


def full_mapping_table_bytes(logical_bytes: int, mapping_unit_bytes: int = 4096, entry_bytes: int = 4) -> int:
    """Bytes of a full page-level mapping table: ``ceil(logical_bytes / unit) * entry_bytes``.

    4 B per 4 KiB mapped unit (about 0.098 % of capacity): 960 GB gives 234.4 M entries, 894 MiB
    (reference-parameters.md §4.3).
    """
    cap = _check_int("logical_bytes", logical_bytes, 1)
    unit = _check_int("mapping_unit_bytes", mapping_unit_bytes, 1)
    eb = _check_int("entry_bytes", entry_bytes, 1)
    return -(-cap // unit) * eb


def mapping_dram_bytes(
    logical_bytes: int,
    cached_fraction: float = 1.0,
    mapping_unit_bytes: int = 4096,
    entry_bytes: int = 4,
    translation_page_bytes: int = 16384,
    gtd_entry_bytes: int = 4,
    granularity: str = "page",
) -> MappingDramBytes:
    """DRAM bytes for a full (``cached_fraction = 1``) or cached (DFTL) page-level mapping table.

    * full table: ``N * entry_bytes`` with ``N = ceil(logical_bytes / mapping_unit_bytes)``;
    * cached: ``ceil(f * N) * per-entry bytes`` plus the GTD,
      ``ceil(N / E) * gtd_entry_bytes`` with ``E = translation_page_bytes // entry_bytes``.
      A page-grained cache stores translation pages as arrays (``entry_bytes`` per entry); an
      entry-grained cache stores (LPN, PPN) pairs, ``2 * entry_bytes`` per entry (seed 002
      §II.2: the page form holds twice the entries in the same memory). LRU pointers and hash
      overheads are not counted.

    Parameters
    ----------
    logical_bytes : int
        User capacity in bytes.
    cached_fraction : float
        ``f``, fraction of entries held in DRAM, in (0, 1].
    mapping_unit_bytes, entry_bytes, translation_page_bytes, gtd_entry_bytes : int
        Mapped unit (4 KiB), mapping entry (4 B), translation page (NAND page, 16 KiB) and
        GTD entry (4 B) sizes in bytes.
    granularity : {"page", "entry"}
        Form of the cache (ignored for a full table).

    Returns
    -------
    MappingDramBytes

    References
    ----------
    reference-parameters.md §4.3 (4 B per 4 KiB) and §7.1 (DFTL CMT + GTD); seed 002 §II.2.
    """
    full = full_mapping_table_bytes(logical_bytes, mapping_unit_bytes, entry_bytes)
    n = full // entry_bytes
    f = _check_prob("cached_fraction", cached_fraction, open_low=True)
    if f >= 1.0:
        return MappingDramBytes(n_entries=n, full_table_bytes=full, cache_bytes=full, gtd_bytes=0, total_bytes=full)
    tp = _check_int("translation_page_bytes", translation_page_bytes, entry_bytes)
    gb = _check_int("gtd_entry_bytes", gtd_entry_bytes, 1)
    if granularity == "page":
        per_entry = entry_bytes
    elif granularity == "entry":
        per_entry = 2 * entry_bytes
    else:
        raise ValueError(f"granularity must be 'page' or 'entry', got {granularity!r}")
    e = tp // entry_bytes
    cache = math.ceil(f * n) * per_entry
    gtd = -(-n // e) * gb
    return MappingDramBytes(n_entries=n, full_table_bytes=full, cache_bytes=cache, gtd_bytes=gtd,
                            total_bytes=cache + gtd)
