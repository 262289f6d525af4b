from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.browser import browser_fixture
from support.hostile import Run, hostile_run


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    yield from browser_fixture()


@pytest.fixture
def hostile() -> Run:
    return hostile_run()
