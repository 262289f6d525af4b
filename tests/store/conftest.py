from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from proctor.store import RunStore
from support.store_factories import make_info, make_samples


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    with RunStore.open(tmp_path / "results") as s:
        yield s


@pytest.fixture
def run(store: RunStore) -> str:
    """A run "r1" with samples s00000..s00002 and models fake/a, fake/b."""
    store.create_run(make_info("r1"), make_samples(3), fingerprint="fp-1", config={})
    return "r1"
