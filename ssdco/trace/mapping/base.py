"""What every mapping counts, and the fan-out that feeds one buffer's traffic to several mappings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlashCounts:
    """A mapping's flash operations over a trace (pages and blocks, dimensionless counts).

    ``flash_reads`` = host page reads + pages read to copy; ``programs`` = host page writes + copies;
    ``waf`` = programs / host page writes (write amplification, 0 when nothing was written)."""

    host_reads: int
    host_writes: int
    flash_reads: int
    programs: int
    copies: int
    erases: int
    switch_merges: int
    partial_merges: int
    full_merges: int

    @property
    def waf(self) -> float:
        """Write amplification: NAND page programs per host page write."""
        return self.programs / self.host_writes if self.host_writes else 0.0


class Mapping:
    """Base of the mappings: ``read(lpn)`` and ``write(lpns)`` (pages written together, in order)."""

    name = ""

    def __init__(self, pages_per_block: int):
        if pages_per_block < 2:
            raise ValueError(f"pages_per_block must be >= 2, got {pages_per_block}")
        self.pages_per_block = int(pages_per_block)
        self.host_reads = 0
        self.host_writes = 0
        self.copies = 0
        self.erases = 0
        self.switch_merges = 0
        self.partial_merges = 0
        self.full_merges = 0

    def read(self, lpn: int) -> None:
        """One host page read: one flash read."""
        self.host_reads += 1

    def write(self, lpns: list[int]) -> None:
        """Host page writes, in order."""
        for lpn in lpns:
            self.host_writes += 1
            self._write_page(lpn)

    def _write_page(self, lpn: int) -> None:
        raise NotImplementedError

    def counts(self) -> FlashCounts:
        """The counts so far (each copy is one flash read and one program)."""
        return FlashCounts(self.host_reads, self.host_writes, self.host_reads + self.copies,
                           self.host_writes + self.copies, self.copies, self.erases, self.switch_merges,
                           self.partial_merges, self.full_merges)


class Fanout:
    """A flash sink that passes every read and write on to each of ``mappings``."""

    def __init__(self, mappings: list[Mapping]):
        self.mappings = list(mappings)

    def read(self, lpn: int) -> None:
        """Pass a page read on."""
        for mapping in self.mappings:
            mapping.read(lpn)

    def write(self, lpns: list[int]) -> None:
        """Pass a group of page writes on."""
        for mapping in self.mappings:
            mapping.write(lpns)
