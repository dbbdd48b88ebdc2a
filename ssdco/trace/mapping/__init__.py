"""FTL mappings fed by a buffer's flash traffic: page-level (greedy GC), BAST and FAST (:data:`MAPPINGS`)."""

from __future__ import annotations

from ssdco.trace.mapping.base import Fanout, FlashCounts, Mapping
from ssdco.trace.mapping.bast import BastFtl
from ssdco.trace.mapping.fast import FastFtl
from ssdco.trace.mapping.page import PageFtl

MAPPINGS: dict[str, type[Mapping]] = {"page": PageFtl, "bast": BastFtl, "fast": FastFtl}

__all__ = ["MAPPINGS", "Mapping", "FlashCounts", "Fanout", "PageFtl", "BastFtl", "FastFtl"]
