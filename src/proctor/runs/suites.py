"""What `proctor run --suite` records of the suite in the run's config (its name, version,
[gate] and judge settings), read back by `proctor.runs.gate.suite_info` and the reports."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from proctor.runs.report import SUITE_KEY
from proctor.store import RunStore


def record_suite(results_dir: Path, run_id: str, suite: Mapping[str, object]) -> None:
    """Keep `suite` (`Suite.run_config()`) in the run's config; once: a resumed run keeps the
    version it began with."""
    with RunStore.open(results_dir) as store:
        store.add_run_config(run_id, {SUITE_KEY: dict(suite)})
