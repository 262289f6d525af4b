"""The SQLite run store: runs, samples, raw records and scores of one results folder."""

from proctor.store.run_ids import new_run_id
from proctor.store.run_store import RunStatus, RunStore, RunSummaryRow
from proctor.store.schema import SCHEMA_VERSION
from proctor.store.turns import Turn

__all__ = ["SCHEMA_VERSION", "RunStatus", "RunStore", "RunSummaryRow", "Turn", "new_run_id"]
