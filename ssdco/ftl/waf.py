"""Analytic steady-state write amplification (WAF) of a page-mapped FTL.

WAF ``A`` = NAND page programs ÷ host page writes (dimensionless, ``A >= 1``), for a page-level
mapping with one write frontier shared by host writes and garbage-collection (GC) copies.

Notation (Desnoyers, SYSTOR 2012): ``T`` physical pages, ``U`` logical (user) pages,
``alpha = T / U = 1 + OP`` with ``OP = (T - U) / U``; spare factor ``Sf = (T - U) / T = 1 - 1/alpha``;
``Np`` pages per erase block.

References
----------
.. [1] P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012
   (Eq. 4 FIFO/LRW, Eq. 12 greedy with finite Np, Eq. 14/16 hot/cold without separation).
   Desnoyers' own Matlab (``ftlsim-0.4/lru_hc.m``, ``greedy_hc.m``).
.. [2] L. Xiang, B. Kurkoski, "An improved analytic expression for write amplification in
   NAND flash", arXiv:1110.4245 (same closed form as Eq. 4).
.. [3] ``shared/reference-parameters.md`` section 6 (formulas and worked tables used as test oracles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.special import lambertw

__all__ = [
    "alpha_from_op",
    "op_from_alpha",
    "alpha_from_spare_factor",
    "spare_factor_from_alpha",
    "waf_fifo",
    "waf_greedy",
    "waf_hot_cold",
    "waf",
    "GcCostPerHostWrite",
    "gc_cost_per_host_write",
]

_POLICIES = ("fifo", "greedy")


def _check_alpha(alpha: float) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a real number > 1, got {alpha!r}") from None
    if not math.isfinite(a) or a <= 1.0:
        raise ValueError(
            f"alpha (physical/logical pages, = 1 + OP) must be finite and > 1, got {alpha!r}; "
            "with alpha <= 1 there is no spare space and WAF is unbounded"
        )
    return a


def _check_pages_per_block(pages_per_block: int) -> int:
    if isinstance(pages_per_block, (bool, np.bool_)) or not isinstance(pages_per_block, (int, np.integer)):
        raise ValueError(f"pages_per_block must be a positive int, got {pages_per_block!r}")
    if pages_per_block < 1:
        raise ValueError(f"pages_per_block must be >= 1, got {pages_per_block!r}")
    return int(pages_per_block)


def alpha_from_op(op: float) -> float:
    """Physical/logical page ratio ``alpha = 1 + OP`` from over-provisioning ``OP = (T - U) / U``.

    Parameters
    ----------
    op : float
        Over-provisioning as a fraction of the *logical* capacity (0.07 for "7 %"), > 0.

    Returns
    -------
    float
        ``alpha = T / U``.
    """
    o = float(op)
    if not math.isfinite(o) or o <= 0.0:
        raise ValueError(f"op (over-provisioning, (T-U)/U) must be finite and > 0, got {op!r}")
    return 1.0 + o


def op_from_alpha(alpha: float) -> float:
    """Over-provisioning ``OP = alpha - 1`` (fraction of logical capacity)."""
    return _check_alpha(alpha) - 1.0


def alpha_from_spare_factor(spare_factor: float) -> float:
    """``alpha = 1 / (1 - Sf)`` from the spare factor ``Sf = (T - U) / T``.

    Parameters
    ----------
    spare_factor : float
        Spare space as a fraction of the *physical* capacity, in (0, 1).
    """
    sf = float(spare_factor)
    if not math.isfinite(sf) or not (0.0 < sf < 1.0):
        raise ValueError(f"spare_factor ((T-U)/T) must be in (0, 1), got {spare_factor!r}")
    return 1.0 / (1.0 - sf)


def spare_factor_from_alpha(alpha: float) -> float:
    """Spare factor ``Sf = 1 - 1/alpha`` (fraction of physical capacity)."""
    return 1.0 - 1.0 / _check_alpha(alpha)


@lru_cache(maxsize=1024, typed=True)  # typed: a cached 1 must not let True past the check
def waf_fifo(alpha: float) -> float:
    """WAF of uniform random page writes under FIFO (LRW) cleaning, steady state.

    ``A = alpha / (alpha + W0(-alpha * exp(-alpha)))`` with ``W0`` the principal branch of
    Lambert W. Equivalently the victim utilisation ``u`` solves ``u = exp(-alpha (1 - u))`` and
    ``A = 1 / (1 - u)``. Independent of the block size (fluid limit over many blocks).

    Parameters
    ----------
    alpha : float
        Physical/logical page ratio ``T / U`` (> 1).

    Returns
    -------
    float
        NAND page programs per host page write (>= 1).

    References
    ----------
    Desnoyers, SYSTOR 2012, Eq. 4; Xiang & Kurkoski, arXiv:1110.4245.
    """
    a = _check_alpha(alpha)
    x = -a * math.exp(-a)
    w0 = float(np.real(lambertw(x, 0)))
    denom = a + w0
    if denom <= 0.0:  # only reachable by rounding for alpha -> 1+
        return math.inf
    return max(1.0, a / denom)


def _greedy_k(pages_per_block: int) -> float:
    return 1.0 + 1.0 / (2.0 * _check_pages_per_block(pages_per_block))


@lru_cache(maxsize=1024, typed=True)  # typed: a cached (a, 1) must not let (a, True) past the check
def waf_greedy(alpha: float, pages_per_block: int) -> float:
    """WAF of uniform random page writes under greedy cleaning with ``Np`` pages per block.

    ``A_greedy(alpha, Np) ~= A_FIFO(k * alpha) / k`` with ``k = 1 + 1 / (2 Np)``; tends to FIFO as
    ``Np -> infinity``. The approximation can fall below 1 for very large ``alpha`` and tiny
    ``Np``; the result is clamped at 1 (a physical lower bound).

    Parameters
    ----------
    alpha : float
        Physical/logical page ratio ``T / U`` (> 1).
    pages_per_block : int
        ``Np``, pages per erase block (>= 1).

    Returns
    -------
    float
        NAND page programs per host page write.

    References
    ----------
    Desnoyers, SYSTOR 2012, Eq. 12.
    """
    a = _check_alpha(alpha)
    k = _greedy_k(pages_per_block)
    return max(1.0, waf_fifo(k * a) / k)


def _phi(y: float) -> float:
    """``y / (exp(y) - 1)`` with its limit 1 at ``y = 0``."""
    if y == 0.0:
        return 1.0
    if y > 700.0:
        return 0.0
    return y / math.expm1(y)


def _check_zone_fractions(
    write_fractions: Sequence[float], space_fractions: Sequence[float]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    r = tuple(float(v) for v in write_fractions)
    f = tuple(float(v) for v in space_fractions)
    if len(r) == 0 or len(r) != len(f):
        raise ValueError(
            f"write_fractions and space_fractions must be non-empty and of equal length, got {r!r} and {f!r}"
        )
    if any(not math.isfinite(v) or v < 0.0 or v > 1.0 for v in r):
        raise ValueError(f"write_fractions must all be in [0, 1], got {r!r}")
    if any(not math.isfinite(v) or v <= 0.0 or v > 1.0 for v in f):
        raise ValueError(f"space_fractions must all be in (0, 1], got {f!r}")
    if abs(math.fsum(r) - 1.0) > 1e-9:
        raise ValueError(f"write_fractions must sum to 1, got {r!r} (sum {math.fsum(r)!r})")
    if abs(math.fsum(f) - 1.0) > 1e-9:
        raise ValueError(f"space_fractions must sum to 1, got {f!r} (sum {math.fsum(f)!r})")
    return r, f


def _waf_hot_cold_fifo(alpha: float, r: tuple[float, ...], f: tuple[float, ...]) -> float:
    # Solve A = 1 + sum_i r_i / (exp((r_i/f_i) * alpha/A) - 1).
    # Written with x = alpha/A and phi(y) = y/(e^y - 1): r_i/(e^{(r_i/f_i) x} - 1) = (f_i/x) phi(r_i x / f_i),
    # which is also correct for a zone that receives no writes (r_i = 0 -> f_i/x: static data).
    def g(A: float) -> float:
        x = alpha / A
        return 1.0 + math.fsum((fi / x) * _phi(ri * x / fi) for ri, fi in zip(r, f)) - A

    lo = 1.0
    if g(lo) <= 0.0:  # only when every zone's term vanishes (alpha -> infinity)
        return 1.0
    hi = 2.0
    while g(hi) > 0.0:
        hi *= 2.0
        if hi > 1e15:
            raise ValueError(f"no finite WAF found for alpha={alpha!r}: alpha too close to 1")
    return brentq(g, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)


def waf_hot_cold(
    alpha: float,
    write_fractions: Sequence[float],
    space_fractions: Sequence[float],
    policy: str = "fifo",
    pages_per_block: int | None = None,
) -> float:
    """WAF of skewed random writes over ``k`` zones sharing one write frontier (no hot/cold separation).

    Zone ``i`` holds a fraction ``f_i`` of the logical pages and receives a fraction ``r_i`` of
    the writes, uniformly inside the zone. ``A`` is the root of

    ``A = 1 + sum_i r_i / (exp((r_i / f_i) * (alpha / A)) - 1)``   (FIFO/LRW, Eq. 14),

    solved with Brent's method; greedy uses ``A_hc(k alpha) / k`` with ``k = 1 + 1/(2 Np)``
    (Eq. 16). A zone with ``r_i = 0`` (static data) contributes its limit ``f_i A / alpha``.
    One zone with ``r = f = 1`` reduces to :func:`waf_fifo` / :func:`waf_greedy`.

    Accuracy: the FIFO form matches a page-mapped FTL simulator to within 1 % (JESD219 skew,
    two-zone skew, static data). The greedy form (Eq. 16) ignores that greedy leaves blocks of
    cold data alone, so it *overestimates* greedy WAF under skew: by about 3 % for the JESD219
    skew at ``alpha = 1.07`` and 8 % at ``alpha = 1.28`` (``Np = 64``, our simulator), and
    grossly when a zone is static (``r_i = 0``).

    Parameters
    ----------
    alpha : float
        Physical/logical page ratio ``T / U`` (> 1).
    write_fractions : sequence of float
        ``r_i``, fraction of host writes to zone ``i``; in [0, 1], summing to 1.
    space_fractions : sequence of float
        ``f_i``, fraction of logical pages in zone ``i``; in (0, 1], summing to 1.
    policy : {"fifo", "greedy"}
        Victim-selection policy.
    pages_per_block : int, optional
        ``Np``; required for ``policy="greedy"``.

    Returns
    -------
    float
        NAND page programs per host page write.

    References
    ----------
    Desnoyers, SYSTOR 2012, Eq. 14 and Eq. 16; ``ftlsim-0.4/lru_hc.m`` and ``greedy_hc.m``.
    """
    a = _check_alpha(alpha)
    r, f = _check_zone_fractions(write_fractions, space_fractions)
    if policy == "fifo":
        return max(1.0, _waf_hot_cold_fifo(a, r, f))
    if policy == "greedy":
        if pages_per_block is None:
            raise ValueError("pages_per_block is required for policy='greedy'")
        k = _greedy_k(pages_per_block)
        return max(1.0, _waf_hot_cold_fifo(k * a, r, f) / k)
    raise ValueError(f"policy must be one of {_POLICIES}, got {policy!r}")


def waf(
    alpha: float,
    policy: str = "fifo",
    pages_per_block: int | None = None,
    zones=None,
) -> float:
    """Steady-state WAF for a page-mapped FTL: dispatch to the formula that fits the inputs.

    Parameters
    ----------
    alpha : float
        Physical/logical page ratio ``T / U`` (> 1); see :func:`alpha_from_op`.
    policy : {"fifo", "greedy"}
        Victim-selection policy. ``"greedy"`` needs ``pages_per_block``.
    pages_per_block : int, optional
        ``Np``, pages per erase block.
    zones : ZonedPattern or UniformPattern or (write_fractions, space_fractions), optional
        Write skew. ``None`` (or a one-zone pattern) means uniform random writes. Any object
        with ``access_fractions`` and ``space_fractions`` attributes is accepted, e.g.
        :data:`ssdco.ftl.address_patterns.JESD219_LBA_SKEW`.

    Returns
    -------
    float
        NAND page programs per host page write.

    References
    ----------
    Desnoyers, SYSTOR 2012, Eqs. 4, 12, 14, 16 (see :func:`waf_fifo`, :func:`waf_greedy`,
    :func:`waf_hot_cold`).
    """
    if policy not in _POLICIES:
        raise ValueError(f"policy must be one of {_POLICIES}, got {policy!r}")
    if policy == "greedy" and pages_per_block is None:
        raise ValueError("pages_per_block is required for policy='greedy'")
    if zones is not None:
        if hasattr(zones, "access_fractions") and hasattr(zones, "space_fractions"):
            r, f = zones.access_fractions, zones.space_fractions
        else:
            try:
                r, f = zones
            except (TypeError, ValueError):
                raise ValueError(
                    f"zones must be a zoned pattern or a (write_fractions, space_fractions) pair, got {zones!r}"
                ) from None
        if len(tuple(r)) > 1:
            return waf_hot_cold(alpha, r, f, policy=policy, pages_per_block=pages_per_block)
        _check_zone_fractions(r, f)
    if policy == "fifo":
        return waf_fifo(alpha)
    return waf_greedy(alpha, pages_per_block)  # type: ignore[arg-type]


@dataclass(frozen=True)
class GcCostPerHostWrite:
    """NAND operations caused by one host page write at steady state.

    Attributes
    ----------
    page_programs : float
        Page programs per host page write (``A``: the host page plus ``A - 1`` GC copies).
    page_reads : float
        Page reads per host page write to relocate valid data (``A - 1``).
    block_erases : float
        Block erases per host page write (``A / Np``).
    """

    page_programs: float
    page_reads: float
    block_erases: float


def gc_cost_per_host_write(waf: float, pages_per_block: int) -> GcCostPerHostWrite:
    """Per-host-write NAND cost of garbage collection for a given WAF.

    Each host page write costs ``A`` programs, ``A - 1`` reads (the valid pages copied out of
    victims) and ``A / Np`` erases (every ``Np`` programs fill one block, which was erased once).

    Parameters
    ----------
    waf : float
        Write amplification ``A`` (>= 1).
    pages_per_block : int
        ``Np`` (>= 1).

    Returns
    -------
    GcCostPerHostWrite

    References
    ----------
    ``shared/reference-parameters.md`` §6.1 "Cost per host write" (derived from Desnoyers 2012).
    """
    a = float(waf)
    if not math.isfinite(a) or a < 1.0:
        raise ValueError(f"waf must be finite and >= 1, got {waf!r}")
    np_ = _check_pages_per_block(pages_per_block)
    return GcCostPerHostWrite(page_programs=a, page_reads=a - 1.0, block_erases=a / np_)
