"""The run store of a results folder, opened only where one exists: reading a run never
creates an empty store (and a mistyped --results-dir is a usage error, not an empty answer)."""

from __future__ import annotations

from pathlib import Path

from proctor.errors import ConfigError
from proctor.store import RunStore


def has_store(results_dir: Path) -> bool:
    return (results_dir / "proctor.db").exists()


def open_existing(results_dir: Path, hint: str = "use --results-dir") -> RunStore:
    """The store of `results_dir`; ConfigError ("no run store in …") when there is none."""
    if not has_store(results_dir):
        raise ConfigError(f"no run store in {results_dir} ({hint})")
    return RunStore.open(results_dir)
