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


def stored_answers(results_dir: Path, run_id: str) -> tuple[int, int]:
    """(answers stored, answers the run asks for: samples × models × epochs) of a run."""
    with RunStore.open(results_dir) as store:
        stored = sum(store.count_records(run_id).values())
        info = store.run_info(run_id)
        epochs = store.run_config(run_id).get("epochs", 1)
    expected = info.dataset_size * len(info.models) * (epochs if isinstance(epochs, int) else 1)
    return stored, expected
