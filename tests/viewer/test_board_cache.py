"""`viewer/board_cache.py`: a leaderboard is read once per state of the store, by one thread
however many ask, and a page asked for while it is being read says so and reloads itself.
The read is held back by an event, never timed: what is asserted is what the page holds."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from proctor.errors import ProctorError
from proctor.runs.leaderboard import BoardReading, read_leaderboard
from proctor.store import RunStore
from proctor.viewer import board_cache
from proctor.viewer.board import leaderboard_page
from proctor.viewer.board_cache import BoardCache, store_state
from support.big_store import make_big_store

FIRST = "20261201-010101-arithmetic-one"
SECOND = "20261201-020202-arithmetic-two"
DONE = 60.0
"""Long enough for a held-back read, once released, to finish: a bound, not a measure."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "results"
    make_big_store(path, 12, ("m/a", "m/b"), FIRST)
    return path


class HeldBack:
    """`read_leaderboard`, counted, that waits for `release` before it reads."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.reads: list[tuple[str, ...]] = []

    def __call__(self, results_dir: Path, refs: tuple[str, ...]) -> BoardReading:
        self.reads.append(tuple(refs))
        assert self.release.wait(DONE)
        return read_leaderboard(results_dir, refs)


def test_a_board_is_read_once_for_one_state_of_the_store(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBack()
    held.release.set()
    monkeypatch.setattr(board_cache, "read_leaderboard", held)
    boards = BoardCache(root)
    first = boards.reading([], wait_s=DONE)
    assert first is not None and boards.reading([], wait_s=DONE) is first
    assert held.reads == [()]
    assert sorted(r.model for r in first.board.rows) == ["m/a", "m/b"]


def test_a_change_to_the_store_is_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held = HeldBack()
    held.release.set()
    monkeypatch.setattr(board_cache, "read_leaderboard", held)
    boards = BoardCache(root)
    before = boards.reading([], wait_s=DONE)
    state = store_state(root)
    make_big_store(root, 12, ("m/c",), SECOND)  # another task's run: a third model
    assert store_state(root) != state
    after = boards.reading([], wait_s=DONE)
    assert before is not None and after is not None and len(held.reads) == 2
    assert sorted(after.runs) == [FIRST, SECOND] and list(before.runs) == [FIRST]


def test_a_board_being_read_is_a_page_that_reloads_itself(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBack()
    monkeypatch.setattr(board_cache, "read_leaderboard", held)
    boards = BoardCache(root)
    boards.read_ahead()
    page = leaderboard_page(root, {}, boards)  # asked while the read is held back
    assert "being read" in page and '<meta http-equiv="refresh" content="2">' in page
    assert boards.reading([], wait_s=0) is None
    held.release.set()
    assert boards.reading([], wait_s=DONE) is not None
    page = leaderboard_page(root, {}, boards)
    assert "being read" not in page and "m/a" in page and 'http-equiv="refresh"' not in page
    assert held.reads == [()]  # read ahead once; every request after used it


def test_a_reference_to_nothing_is_the_readings_own_error(root: Path) -> None:
    boards = BoardCache(root)
    with pytest.raises(ProctorError):
        boards.reading(["no-such-run"], wait_s=DONE)
    with RunStore.open(root) as store:
        assert store.resolve(FIRST) == FIRST
