"""The cyclic garbage collector paused while a run's items are read and reported.

Reading 100,000 graded items makes some 400,000 objects the collector tracks (row tuples,
records, grades, items), and each of its passes walks every one still alive: over a report of
such a run they cost about a third of the reading. Reference counting still frees everything
dropped meanwhile; only cycles wait until the collector resumes (a report makes none on
purpose)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_collector() -> Iterator[None]:
    """Pause the cyclic collector for the block (nested blocks too), then resume it if it ran
    before."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
