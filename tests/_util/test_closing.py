"""`Closing`: a `with` block closes its object however the block ends."""

from __future__ import annotations

import pytest

from proctor._util.closing import Closing


class _Held(Closing):
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_a_with_block_closes_once_and_hands_back_the_object() -> None:
    held = _Held()
    with held as same:
        assert same is held
        assert held.closed == 0
    assert held.closed == 1


def test_an_error_in_the_block_still_closes_and_is_not_swallowed() -> None:
    held = _Held()
    with pytest.raises(ValueError, match="boom"), held:
        raise ValueError("boom")
    assert held.closed == 1
