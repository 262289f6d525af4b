"""Opening the SQLite file with the settings every writer must share, and the one way to run a
transaction on it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from proctor.errors import StoreError

BUSY_TIMEOUT_S = 30.0


def connect(db_path: Path) -> sqlite3.Connection:
    """Open `db_path` in WAL mode, autocommit (transactions are begun explicitly), FKs on.

    `isolation_level=None` keeps the sqlite3 module from opening deferred transactions behind our
    back: every write is an explicit `BEGIN IMMEDIATE`, which takes the write lock up front and so
    waits on the busy timeout instead of failing with "database is locked" on a lock upgrade.
    """
    try:
        conn = sqlite3.connect(
            db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as e:
        raise StoreError(f"cannot open run store {db_path}: {e}") from e
    with closed_on_error(conn, f"open run store {db_path}"):
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        mode = _enter_wal(conn)
        if str(mode).lower() != "wal":
            raise StoreError(f"run store {db_path} cannot use WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    return conn


@contextmanager
def closed_on_error(conn: sqlite3.Connection, what: str) -> Iterator[None]:
    """Closes `conn` when the block fails (a store half set up is never handed on); an SQLite
    error becomes StoreError "cannot `what`: ..."."""
    try:
        yield
    except sqlite3.Error as e:
        conn.close()
        raise StoreError(f"cannot {what}: {e}") from e
    except BaseException:
        conn.close()
        raise


def _enter_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL, waiting out other processes that are creating or converting the same file.

    SQLite answers "database is locked" to `PRAGMA journal_mode = WAL` at once, without calling
    the busy handler, while another connection holds the lock the switch needs (several processes
    opening a brand-new results folder together); so this waits here, up to the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.005
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as e:
            not_a_lock = "locked" not in str(e) and "busy" not in str(e)
            if not_a_lock or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


@contextmanager
def transaction(
    db: sqlite3.Connection, db_path: Path, what: str, *, write: bool
) -> Iterator[sqlite3.Connection]:
    """One transaction: `BEGIN IMMEDIATE` for writes, a consistent snapshot for reads; errors
    become StoreError saying `what` failed."""
    try:
        db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        yield db
        db.execute("COMMIT")
    except sqlite3.Error as e:
        _rollback(db)
        raise StoreError(f"cannot {what} in {db_path}: {_in_words(e)}") from e
    except BaseException:
        _rollback(db)
        raise


def _rollback(db: sqlite3.Connection) -> None:
    # On a full disk the rollback may fail too; the first error is the one to tell.
    with suppress(sqlite3.Error):
        if db.in_transaction:
            db.execute("ROLLBACK")


def _in_words(error: sqlite3.Error) -> str:
    if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "is full" in str(error):
        return f"the disk is full ({error})"
    return str(error)
