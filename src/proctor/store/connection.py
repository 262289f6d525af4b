"""Opening the SQLite file with the settings every writer must share."""

from __future__ import annotations

import sqlite3
import time
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
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        mode = _wal(conn)
        if str(mode).lower() != "wal":
            raise StoreError(f"run store {db_path} cannot use WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as e:
        conn.close()
        raise StoreError(f"cannot open run store {db_path}: {e}") from e
    except StoreError:
        conn.close()
        raise
    return conn


def _wal(conn: sqlite3.Connection) -> object:
    """Switch to WAL, waiting out another process that holds the file: SQLite may answer this
    pragma "database is locked" at once instead of calling the busy handler (seen while another
    process creates and migrates a fresh store), so it is retried here up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.005
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)
