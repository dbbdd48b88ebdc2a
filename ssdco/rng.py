"""Random numbers: one seed convention for the whole project.

Every stochastic entry point takes ``seed: int | numpy.random.Generator | None``:

* an ``int`` (>= 0) gives a reproducible stream (``numpy.random.default_rng(seed)``);
* a ``Generator`` is used as is (the caller's generator advances, so successive calls differ);
* ``None`` draws fresh OS entropy (not reproducible).

Compiled (numba) code cannot take a ``Generator``. It uses numba's own per-thread Mersenne Twister, which is
seeded by calling ``np.random.seed(s)`` *inside* an ``@njit`` function with a plain integer
``0 <= s < 2**32`` (numba's generator is separate from NumPy's legacy global one: seeding one does not seed
the other). :func:`derive_seed` turns any seed above into such an integer deterministically: it draws one
``uint32`` from :func:`as_generator` ``(seed)``. Same seed => same integer => same numba stream.
"""

from __future__ import annotations

import numbers

import numpy as np

SeedLike = int | np.integer | np.random.Generator | None

NUMBA_SEED_BOUND = 2**32  # numba's np.random.seed takes an unsigned 32-bit integer


def as_generator(seed: SeedLike = None) -> np.random.Generator:
    """A NumPy ``Generator`` for ``seed`` (int >= 0, an existing Generator returned unchanged, or None)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an int >= 0, a numpy.random.Generator or None, not {seed!r}")
    if int(seed) < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    return np.random.default_rng(int(seed))


def derive_seed(seed: SeedLike = None) -> int:
    """A numba-usable integer seed in ``[0, 2**32)`` derived deterministically from ``seed``.

    ``derive_seed(7)`` is always the same integer; a Generator argument is advanced by one draw.
    Pass the result to ``np.random.seed`` inside an ``@njit`` function to seed numba's generator.
    """
    return int(as_generator(seed).integers(0, NUMBA_SEED_BOUND, dtype=np.uint64))


def spawn_seeds(seed: SeedLike, n: int) -> list[int]:
    """``n`` integer seeds for independent replications, from ``seed`` via ``Generator.spawn``."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    gen = as_generator(seed)
    return [int(g.integers(0, NUMBA_SEED_BOUND, dtype=np.uint64)) for g in gen.spawn(n)]
