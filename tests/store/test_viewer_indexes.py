"""Schema migration 11: the viewer's pages read through indexes, proven by the plans SQLite
makes for the very statements `store/browse.py` runs (captured as they run), not by timings."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from proctor.store import RunStore, browse
from proctor.store.tables import Transactions
from support.big_store import make_big_store

RUN = "20261201-010101-arithmetic-graded"


class Traced:
    """A `Transactions` on the store's file that keeps every statement it runs, values bound."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.statements: list[str] = []

    @contextlib.contextmanager
    def transaction(self, what: str, *, write: bool) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.db_path)
        conn.set_trace_callback(self.statements.append)
        try:
            yield conn
        finally:
            conn.close()


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("indexes") / "results"
    make_big_store(root, 30, ("m/a", "m/b"), RUN)
    with RunStore.open(root) as store:
        return store.db_path


def plans(db_path: Path, read: Callable[[Transactions], object]) -> list[str]:
    """The query plan of every statement `read` ran, one line per step."""
    traced = Traced(db_path)
    read(traced)
    assert traced.statements, "the read ran no statement"
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        return [
            "\n".join(str(row[-1]) for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
            for sql in traced.statements
        ]


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(lambda t: browse.tallies(t), id="runs list, every run"),
        pytest.param(lambda t: browse.tallies(t, [RUN]), id="runs list, named runs"),
        pytest.param(lambda t: browse.model_tallies(t, "m/a"), id="model page"),
    ],
)
def test_counting_answers_reads_covering_indexes_never_the_replies(
    db_path: Path, read: Callable[[Transactions], object]
) -> None:
    (plan,) = plans(db_path, read)
    assert "COVERING INDEX records_tally" in plan
    assert "COVERING INDEX scores_tally" in plan
    # a plain "SCAN r" (no index) or "USING INDEX" (not covering) would read each record's text
    assert " r USING INDEX" not in plan and "SCAN r\n" not in plan + "\n"


def test_an_items_page_finds_its_answers_by_the_sample_index(db_path: Path) -> None:
    (plan,) = plans(db_path, lambda t: browse.item_answers(t, RUN, "i000003"))
    assert "SEARCH r USING INDEX records_by_sample (run_id=? AND sample_id=?)" in plan
    assert "TEMP B-TREE" not in plan  # already in (model, epoch) order: nothing sorted


def test_the_indexes_are_there_after_migrating_a_store(db_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(db_path)) as conn:
        names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"records_tally", "scores_tally", "records_by_sample"} <= names
