"""Logical-address patterns and transfer-size mixes shared by the analytic FTL models and the simulators.

Every sampler is a pure function of an explicit :class:`numpy.random.Generator` (no global RNG)
and is vectorised with numpy, so the functional FTL simulator (``ssdco.sim.ftlsim``) and
the DES can draw millions of addresses per call.

Addresses are *logical page numbers* (LPNs, one per mapping unit, normally 4 KiB) in
``[0, n_pages)``. A zoned pattern lays its zones out contiguously from LPN 0 in the order given,
which is how JESD219 defines its skew ("first 5 % of the LBA space", then the next 15 %, then the
remaining 80 %).

References
----------
JEDEC JESD219, *Solid-State Drive (SSD) Endurance Workloads*, 2010: enterprise
endurance workload (transfer-size mix and 50/30/20 % of accesses to 5/15/80 % of the LBA space).
Summarised in ``shared/reference-parameters.md`` section 7.3 and in the seed document
``004_*.txt`` (JEDEC enterprise workload used for WAF measurement).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

import numpy as np

__all__ = [
    "UniformPattern",
    "ZonedPattern",
    "SequentialPattern",
    "AddressPattern",
    "hot_cold_pattern",
    "JESD219_LBA_SKEW",
    "TransferSizeMix",
    "JESD219_TRANSFER_SIZE_MIX",
    "JESD219_TRANSFER_SIZES_BYTES",
    "JESD219_TRANSFER_SIZE_PROBABILITIES",
]

_FRACTION_TOL = 1e-9


def _check_count(name: str, value: int, minimum: int = 0) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def _check_fractions(name: str, values, *, allow_zero: bool) -> tuple[float, ...]:
    vals = tuple(float(v) for v in values)
    if len(vals) == 0:
        raise ValueError(f"{name} must not be empty")
    for v in vals:
        if not math.isfinite(v) or v < 0.0 or (v == 0.0 and not allow_zero) or v > 1.0:
            allowed = "in [0, 1]" if allow_zero else "in (0, 1]"
            raise ValueError(f"{name} must all be {allowed}, got {vals!r}")
    total = math.fsum(vals)
    if abs(total - 1.0) > _FRACTION_TOL:
        raise ValueError(f"{name} must sum to 1, got {vals!r} (sum {total!r})")
    return vals


@dataclass(frozen=True)
class ZonedPattern:
    """Piecewise-uniform random addresses: zone ``i`` receives ``access_fractions[i]`` of the
    accesses, spread uniformly over its ``space_fractions[i]`` share of the LPN space.

    Zones are contiguous and laid out from LPN 0 in the order given.

    Parameters
    ----------
    access_fractions : tuple of float
        Fraction of accesses (for a write stream: of writes) that go to each zone; each in
        [0, 1], summing to 1.
    space_fractions : tuple of float
        Fraction of the logical space occupied by each zone; each in (0, 1], summing to 1.
    """

    access_fractions: tuple[float, ...]
    space_fractions: tuple[float, ...]

    def __post_init__(self) -> None:
        acc = _check_fractions("access_fractions", self.access_fractions, allow_zero=True)
        spc = _check_fractions("space_fractions", self.space_fractions, allow_zero=False)
        if len(acc) != len(spc):
            raise ValueError(
                f"access_fractions and space_fractions must have the same length, got {len(acc)} and {len(spc)}"
            )
        object.__setattr__(self, "access_fractions", acc)
        object.__setattr__(self, "space_fractions", spc)

    @property
    def n_zones(self) -> int:
        """Number of zones."""
        return len(self.access_fractions)

    def zone_item_counts(self, n_items: int) -> tuple[int, ...]:
        """Number of LPNs in each zone for a space of ``n_items`` LPNs.

        Zone boundaries are ``round(n_items * cumulative space fraction)``; every zone gets at
        least one item (raises ``ValueError`` if ``n_items`` is too small for that).
        """
        n_items = _check_count("n_items", n_items, minimum=1)
        cum = np.cumsum(self.space_fractions)
        edges = [0] + [int(round(n_items * c)) for c in cum[:-1]] + [n_items]
        counts = tuple(int(b - a) for a, b in zip(edges[:-1], edges[1:]))
        if min(counts) < 1:
            raise ValueError(
                f"n_items={n_items} is too small for space_fractions={self.space_fractions}: a zone would be empty"
            )
        return counts

    def zone_starts(self, n_items: int) -> tuple[int, ...]:
        """First LPN of each zone for a space of ``n_items`` LPNs."""
        counts = self.zone_item_counts(n_items)
        return tuple(int(s) for s in np.concatenate(([0], np.cumsum(counts)[:-1])))

    def sample_lpns(
        self, rng: np.random.Generator, n: int, n_pages: int, start_index: int = 0
    ) -> np.ndarray:
        """Draw ``n`` LPNs in ``[0, n_pages)`` (int64 array).

        ``start_index`` (position of the first draw in the whole stream) is ignored: draws are
        independent (independent reference model).
        """
        n = _check_count("n", n)
        counts = np.asarray(self.zone_item_counts(n_pages), dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        cum = np.cumsum(self.access_fractions)
        cum[-1] = 1.0
        zone = np.searchsorted(cum, rng.random(n), side="right")
        # a zone with zero access fraction is never chosen: searchsorted(side="right") skips it.
        zone = np.minimum(zone, len(counts) - 1)
        offset = rng.integers(0, counts[zone], dtype=np.int64)
        return starts[zone] + offset

    def access_probability_per_item(self, n_pages: int) -> np.ndarray:
        """Per-zone access probability of one LPN (``access_fraction / zone item count``)."""
        counts = np.asarray(self.zone_item_counts(n_pages), dtype=float)
        return np.asarray(self.access_fractions) / counts


@dataclass(frozen=True)
class UniformPattern:
    """Uniform random LPNs over the whole logical space (one zone)."""

    @property
    def access_fractions(self) -> tuple[float, ...]:
        """One zone receiving every access."""
        return (1.0,)

    @property
    def space_fractions(self) -> tuple[float, ...]:
        """One zone covering the whole space."""
        return (1.0,)

    @property
    def n_zones(self) -> int:
        """Always 1."""
        return 1

    def zone_item_counts(self, n_items: int) -> tuple[int, ...]:
        """``(n_items,)``."""
        return (_check_count("n_items", n_items, minimum=1),)

    def zone_starts(self, n_items: int) -> tuple[int, ...]:
        """``(0,)``."""
        _check_count("n_items", n_items, minimum=1)
        return (0,)

    def sample_lpns(
        self, rng: np.random.Generator, n: int, n_pages: int, start_index: int = 0
    ) -> np.ndarray:
        """Draw ``n`` i.i.d. uniform LPNs in ``[0, n_pages)`` (int64); ``start_index`` is ignored."""
        n = _check_count("n", n)
        n_pages = _check_count("n_pages", n_pages, minimum=1)
        return rng.integers(0, n_pages, size=n, dtype=np.int64)


@dataclass(frozen=True)
class SequentialPattern:
    """Sequential LPNs ``start_page, start_page + 1, ...`` wrapping around at ``n_pages``.

    Deterministic: the generator is not consumed. ``start_index`` is the position of the first
    draw in the whole stream, so a stream drawn in chunks continues where the last chunk ended.
    """

    start_page: int = 0

    def __post_init__(self) -> None:
        _check_count("start_page", self.start_page)

    def sample_lpns(
        self, rng: np.random.Generator, n: int, n_pages: int, start_index: int = 0
    ) -> np.ndarray:
        """Return ``(start_page + start_index + arange(n)) mod n_pages`` (int64)."""
        n = _check_count("n", n)
        n_pages = _check_count("n_pages", n_pages, minimum=1)
        start_index = _check_count("start_index", start_index)
        first = (self.start_page + start_index) % n_pages
        return (first + np.arange(n, dtype=np.int64)) % n_pages


AddressPattern = Union[UniformPattern, ZonedPattern, SequentialPattern]


def hot_cold_pattern(hot_access_fraction: float, hot_space_fraction: float) -> ZonedPattern:
    """Two-zone skew: a fraction ``r`` of accesses to the first fraction ``f`` of the space.

    This is the (r, f) hot/cold traffic of Desnoyers (SYSTOR 2012), e.g. ``(0.8, 0.2)``.
    """
    r = float(hot_access_fraction)
    f = float(hot_space_fraction)
    if not (0.0 <= r <= 1.0):
        raise ValueError(f"hot_access_fraction must be in [0, 1], got {hot_access_fraction!r}")
    if not (0.0 < f < 1.0):
        raise ValueError(f"hot_space_fraction must be in (0, 1), got {hot_space_fraction!r}")
    return ZonedPattern((r, 1.0 - r), (f, 1.0 - f))


#: JESD219 enterprise LBA skew: 50 % of accesses to the first 5 % of the LBA space, 30 % to the
#: next 15 %, 20 % to the remaining 80 % (JEDEC JESD219, 2010; reference-parameters.md §7.3).
JESD219_LBA_SKEW = ZonedPattern((0.50, 0.30, 0.20), (0.05, 0.15, 0.80))


@dataclass(frozen=True)
class TransferSizeMix:
    """A discrete distribution of host transfer sizes.

    Parameters
    ----------
    sizes_bytes : tuple of int
        Transfer sizes in bytes (positive, strictly increasing).
    probabilities : tuple of float
        Probability of each size (each in (0, 1], summing to 1).
    """

    sizes_bytes: tuple[int, ...]
    probabilities: tuple[float, ...]

    def __post_init__(self) -> None:
        sizes = tuple(_check_count("sizes_bytes", s, minimum=1) for s in self.sizes_bytes)
        if len(sizes) == 0 or any(b <= a for a, b in zip(sizes[:-1], sizes[1:])):
            raise ValueError(f"sizes_bytes must be non-empty and strictly increasing, got {self.sizes_bytes!r}")
        probs = _check_fractions("probabilities", self.probabilities, allow_zero=False)
        if len(probs) != len(sizes):
            raise ValueError(
                f"sizes_bytes and probabilities must have the same length, got {len(sizes)} and {len(probs)}"
            )
        object.__setattr__(self, "sizes_bytes", sizes)
        object.__setattr__(self, "probabilities", probs)

    @property
    def mean_bytes(self) -> float:
        """Mean transfer size in bytes, ``sum(p_i * s_i)``."""
        return math.fsum(p * s for p, s in zip(self.probabilities, self.sizes_bytes))

    def fraction_below(self, size_bytes: int) -> float:
        """Probability that a transfer is strictly smaller than ``size_bytes``."""
        return math.fsum(p for p, s in zip(self.probabilities, self.sizes_bytes) if s < size_bytes)

    def mean_units(self, unit_bytes: int = 4096) -> float:
        """Mean number of ``unit_bytes`` mapping units touched by an aligned transfer,
        ``sum(p_i * ceil(s_i / unit_bytes))`` (a sub-unit transfer touches one unit)."""
        unit_bytes = _check_count("unit_bytes", unit_bytes, minimum=1)
        return math.fsum(p * math.ceil(s / unit_bytes) for p, s in zip(self.probabilities, self.sizes_bytes))

    def sample_bytes(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Draw ``n`` i.i.d. transfer sizes in bytes (int64 array)."""
        n = _check_count("n", n)
        cum = np.cumsum(self.probabilities)
        cum[-1] = 1.0
        idx = np.searchsorted(cum, rng.random(n), side="right")
        idx = np.minimum(idx, len(self.sizes_bytes) - 1)
        return np.asarray(self.sizes_bytes, dtype=np.int64)[idx]


#: JESD219 transfer sizes in bytes (reference-parameters.md §7.3; seed 004).
JESD219_TRANSFER_SIZES_BYTES: tuple[int, ...] = (
    512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 8192, 16384, 32768, 65536,
)
#: JESD219 probability of each size in :data:`JESD219_TRANSFER_SIZES_BYTES`:
#: 512 B 4 %; 1 K, 1.5 K, 2 K, 2.5 K, 3 K, 3.5 K 1 % each; 4 K 67 %; 8 K 10 %; 16 K 7 %;
#: 32 K 3 %; 64 K 3 %.
JESD219_TRANSFER_SIZE_PROBABILITIES: tuple[float, ...] = (
    0.04, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.67, 0.10, 0.07, 0.03, 0.03,
)
#: The JESD219 enterprise transfer-size mix as a :class:`TransferSizeMix`.
JESD219_TRANSFER_SIZE_MIX = TransferSizeMix(JESD219_TRANSFER_SIZES_BYTES, JESD219_TRANSFER_SIZE_PROBABILITIES)
