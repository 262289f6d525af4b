"""The schema version is recorded, migrations run once, and a newer database is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from proctor.errors import StoreError
from proctor.store import SCHEMA_VERSION, RunStore


def _versions(results: Path) -> list[int]:
    db = sqlite3.connect(results / "proctor.db")
    try:
        return [v for (v,) in db.execute("SELECT version FROM schema_migrations ORDER BY 1")]
    finally:
        db.close()


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    RunStore.open(tmp_path).close()
    assert _versions(tmp_path) == list(range(1, SCHEMA_VERSION + 1))


def test_a_database_from_a_newer_proctor_is_refused(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    db = sqlite3.connect(tmp_path / "proctor.db")
    db.execute("INSERT INTO schema_migrations VALUES (?, 'later')", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}.*upgrade"):
        RunStore.open(tmp_path)


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "proctor.db").write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(StoreError, match=r"proctor\.db"):
        RunStore.open(tmp_path)
