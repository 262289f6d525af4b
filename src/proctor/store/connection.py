"""Opening the SQLite file with the settings every writer must share."""

from __future__ import annotations

import sqlite3
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
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
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
