"""What every table module of the store shares: the store as it sees it (`Transactions`), the
time stamp rows carry, plain-tuple reads, the write that keeps a good row, the run every row
belongs to, and how a row is made from a value and read back into one."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from proctor.errors import StoreError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

D = TypeVar("D", bound="DataclassInstance")


class Transactions(Protocol):
    """A run store as a table module uses it (`RunStore` is one): one transaction at a time on
    its connection, and the file's path for messages."""

    @property
    def db_path(self) -> Path: ...

    def transaction(
        self, what: str, *, write: bool
    ) -> AbstractContextManager[sqlite3.Connection]: ...


def now() -> str:
    return datetime.now(UTC).isoformat()


def upsert(table: str, columns: Sequence[str], key: Sequence[str], replace_when: str) -> str:
    """The INSERT of one row of `columns` into `table`; a row already there with the same `key`
    has every other column replaced only WHERE `replace_when` (its call failed, say): how records,
    judgements and turns keep the first good answer and ask a failed one again."""
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates} WHERE {replace_when}"
    )


def tuples(db: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
    """Rows as plain tuples: cheaper than `sqlite3.Row` where a read returns many rows."""
    cursor = db.cursor()
    cursor.row_factory = None
    rows: list[tuple[Any, ...]] = cursor.execute(sql, args).fetchall()
    return rows


def newest_unfinished(store: Transactions, table: str, fingerprint: str) -> str | None:
    """The id of the newest row of `table` (runs, eval_sets) with this fingerprint that is not
    complete, if any: what a resume of the same command goes on with."""
    with store.transaction(f"find a resumable row of {table}", write=False) as db:
        row = db.execute(
            f"SELECT id FROM {table} WHERE fingerprint = ? AND status <> 'complete'"
            " ORDER BY created_at DESC, rowid DESC LIMIT 1",
            (fingerprint,),
        ).fetchone()
    return None if row is None else str(row[0])


@contextmanager
def reading_run(store: Transactions, run_id: str, what: str) -> Iterator[sqlite3.Connection]:
    """A read transaction named "`what` of run RUN" on a run that must exist (StoreError when it
    does not): how every table module reads one run's rows."""
    with store.transaction(f"{what} of run {run_id}", write=False) as db:
        require_run(db, store.db_path, run_id)
        yield db


def require_run(db: sqlite3.Connection, db_path: Path, run_id: str) -> sqlite3.Row:
    """The run's row in `runs`; StoreError when there is none."""
    row: sqlite3.Row | None = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise StoreError(f"no run '{run_id}' in {db_path}")
    return row


_PLAIN: dict[object, Callable[[Any], Any]] = {"str": str, "int": int, "float": float, "bool": bool}
"""A field annotated so is read from its column by that type."""


def row_reader(cls: type[D], **read: Callable[[sqlite3.Row], Any]) -> Callable[[sqlite3.Row], D]:
    """How a row (an `sqlite3.Row`) becomes a `cls`, a dataclass: each field by `read[field]`
    where given, else from the column of its name by its plain type (str, int, float, bool). A
    field of another type that `read` does not name is a TypeError when the reader is made."""
    steps: list[tuple[str, Callable[[sqlite3.Row], Any]]] = []
    for f in dataclasses.fields(cls):
        if f.name in read:
            steps.append((f.name, read[f.name]))
        elif f.type in _PLAIN:
            steps.append((f.name, _column(f.name, _PLAIN[f.type])))
        else:
            raise TypeError(f"{cls.__name__}.{f.name} ({f.type}): say how its column is read")

    def reader(row: sqlite3.Row) -> D:
        return cls(**{name: step(row) for name, step in steps})

    return reader


def _column(name: str, plain: Callable[[Any], Any]) -> Callable[[sqlite3.Row], Any]:
    return lambda row: plain(row[name])


def row_writer(
    columns: Sequence[str], **put: Callable[[Any], object]
) -> Callable[[Any], tuple[object, ...]]:
    """How a value becomes the values of `columns`, in their order: `put[column](value)` where
    given, else the value's attribute of the column's name."""
    getters = [put.get(c) or attrgetter(c) for c in columns]
    return lambda value: tuple(get(value) for get in getters)
