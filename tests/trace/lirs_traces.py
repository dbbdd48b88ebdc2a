"""The block sequences of the LIRS reference check (tests/trace/test_lirs_reference.py), made by a fixed linear
congruential generator so that they never depend on a library's random numbers. No block follows itself: the
reference implementation skips a repeated reference."""

from __future__ import annotations


def _lcg(seed: int):
    """Numerical Recipes' 32-bit linear congruential generator: an endless stream of numbers in [0, 1)."""
    state = seed
    while True:
        state = (1664525 * state + 1013904223) % 2**32
        yield state / 2**32


def _without_repeats(seq) -> list[int]:
    out: list[int] = []
    for x in seq:
        if not out or out[-1] != x:
            out.append(int(x))
    return out


def _hot_cold(n: int, seed: int) -> list[int]:
    """80 % of references to blocks 0-11, the rest to blocks 12-59."""
    u = _lcg(seed)
    seq = [int(next(u) * 12) if next(u) < 0.8 else 12 + int(next(u) * 48) for _ in range(n)]
    return _without_repeats(seq)


def _hot_and_scans(n: int, seed: int) -> list[int]:
    """A hot set of 8 blocks, interrupted every 400 references by a scan of 100 blocks seen once each."""
    u = _lcg(seed)
    return _without_repeats(int(next(u) * 8) if k % 400 >= 100 else 100 + k % 400 for k in range(n))


def _uniform(n: int, blocks: int, seed: int) -> list[int]:
    u = _lcg(seed)
    return _without_repeats(int(next(u) * blocks) for _ in range(n))


TRACES: dict[str, list[int]] = {
    "loop12": [i % 12 for i in range(240)],
    "hot_cold60": _hot_cold(3000, 1),
    "hot8_scans100": _hot_and_scans(3000, 2),
    "uniform40": _uniform(3000, 40, 3),
}
