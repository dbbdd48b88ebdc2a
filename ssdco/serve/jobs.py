"""The page's "validate with the DES" runs: one background thread per run, its progress readable at any time.

A new run replaces the one before it (which stops at its next progress report), so a page that asks again does
not queue runs behind each other. The run is :func:`ssdco.validation.compare.validate` with the page's fast model
answer, no extra seeds: the same numbers ``ssdco validate --fast --replications 0`` prints for the design.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, replace
from typing import Any

from ssdco import defaults
from ssdco.errors import SsdcoError


class _Stopped(Exception):
    """Raised inside a run's progress report when a newer run has replaced it."""


@dataclass(frozen=True)
class JobStatus:
    """A run's state: ``job`` (its number), ``completed`` of ``requests`` DES requests, and when it has ended
    either ``validation`` (a :class:`~ssdco.validation.compare.Validation`) or ``error`` (why it has none)."""

    job: int
    requests: int
    completed: int = 0
    validation: Any = None
    error: str = ""

    @property
    def done(self) -> bool:
        """The run has ended, with a validation or an error."""
        return self.validation is not None or bool(self.error)

    @property
    def fraction(self) -> float:
        """Share of the DES's requests completed, 0-1."""
        return 1.0 if self.done else min(1.0, self.completed / self.requests)


class DesJobs:
    """The DES runs of one page server; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._status: JobStatus | None = None

    def start(self, config, requests: int = defaults.DES_REQUESTS, seed: int = defaults.SEED) -> int:
        """Start validating ``config`` (a :class:`~ssdco.spec.Config`) with a DES run of ``requests`` requests from
        ``seed``; returns the run's number. A run still going stops."""
        with self._lock:
            job = next(self._numbers)
            self._status = JobStatus(job=job, requests=requests)
        threading.Thread(target=self._run, args=(job, config, requests, seed), name=f"ssdco-des-{job}",
                         daemon=True).start()
        return job

    def status(self, job: int) -> JobStatus | None:
        """Run ``job``'s state, or None once a newer run has replaced it."""
        with self._lock:
            s = self._status
        return s if s is not None and s.job == job else None

    def _update(self, job: int, **changes) -> None:
        with self._lock:
            if self._status is None or self._status.job != job:
                raise _Stopped
            self._status = replace(self._status, **changes)

    def _run(self, job: int, config, requests: int, seed: int) -> None:
        from ssdco.validation.compare import validate

        try:
            v = validate(config, requests=requests, seed=seed, replications=0, markov_chain=False,
                         progress=lambda completed, total: self._update(job, completed=completed))
        except _Stopped:
            return
        except SsdcoError as e:
            self._finish(job, error=str(e))
            return
        except Exception as e:  # noqa: BLE001 - the page shows it instead of a dead thread's silence
            self._finish(job, error=f"the DES run failed: {type(e).__name__}: {e}")
            return
        self._finish(job, validation=v)

    def _finish(self, job: int, **outcome) -> None:
        try:
            self._update(job, **outcome)
        except _Stopped:
            pass
