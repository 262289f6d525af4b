"""The runs of a results folder (table `runs`, migration 1): what each run asked, how, and how
far it got. A run is created with its samples (`samples.py`) in one transaction."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from proctor.errors import StoreError
from proctor.store import codec, samples
from proctor.store.guard import refuse_secrets
from proctor.store.tables import Transactions, newest_unfinished, now, require_run, row_reader
from proctor.types import RunInfo, Sample

LATEST = "latest"
"""The RUN that names the newest run of a results folder."""

RunStatus = Literal["running", "complete", "interrupted"]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)


@dataclass(frozen=True)
class RunSummaryRow:
    """One line of `proctor runs`."""

    run_id: str
    task: str
    created_at: str
    status: RunStatus
    models: tuple[str, ...]
    n_samples: int
    n_records: int


_INSERT = (
    "INSERT INTO runs (id, task, created_at, dataset_hash, dataset_size,"
    " generator_version, prompt_variant, lang, models, params, seed, fingerprint,"
    " config, status, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)"
)


def create(
    store: Transactions,
    info: RunInfo,
    paper: Sequence[Sample],
    fingerprint: str,
    config: Mapping[str, object],
) -> None:
    """Store a new run (status "running") and all its samples, in one transaction."""
    refuse_secrets(config)
    config_json = codec.config_to_json(config)
    samples.refuse_repeats(info.run_id, paper)
    created = now()
    with store.transaction(f"create run {info.run_id}", write=True) as db:
        if db.execute("SELECT 1 FROM runs WHERE id = ?", (info.run_id,)).fetchone():
            raise StoreError(f"run '{info.run_id}' already exists in {store.db_path}")
        db.execute(
            _INSERT,
            (
                info.run_id,
                info.task,
                info.created_at,
                info.dataset_hash,
                info.dataset_size,
                info.generator_version,
                info.prompt_variant,
                info.lang,
                codec.dumps(list(info.models)),
                codec.params_to_json(info.params),
                info.seed,
                fingerprint,
                config_json,
                created,
            ),
        )
        samples.insert(db, info.run_id, paper)


def find_resumable(store: Transactions, fingerprint: str) -> str | None:
    """The newest run with this fingerprint that is not complete, if any."""
    return newest_unfinished(store, "runs", fingerprint)


def info(store: Transactions, run_id: str) -> RunInfo:
    with store.transaction(f"read run {run_id}", write=False) as db:
        row = require_run(db, store.db_path, run_id)
    seed = row["seed"]
    return RunInfo(
        run_id=str(row["id"]),
        task=str(row["task"]),
        models=tuple(str(m) for m in json.loads(row["models"])),
        dataset_hash=str(row["dataset_hash"]),
        dataset_size=int(row["dataset_size"]),
        generator_version=str(row["generator_version"]),
        prompt_variant=str(row["prompt_variant"]),
        lang=str(row["lang"]),
        created_at=str(row["created_at"]),
        params=codec.params_from_json(row["params"]),
        seed=None if seed is None else int(seed),
    )


def config(store: Transactions, run_id: str) -> dict[str, object]:
    """The config mapping given to `create`, as stored (JSON)."""
    with store.transaction(f"read run {run_id}", write=False) as db:
        row = require_run(db, store.db_path, run_id)
    stored: dict[str, object] = json.loads(row["config"])
    return stored


def add_config(store: Transactions, run_id: str, values: Mapping[str, object]) -> None:
    """Add keys to a run's config; a key already there keeps its value (the config records
    how the run began, so a resume cannot rewrite it)."""
    refuse_secrets(values)
    with store.transaction(f"update config of run {run_id}", write=True) as db:
        row = require_run(db, store.db_path, run_id)
        stored: dict[str, object] = json.loads(row["config"])
        added = {k: v for k, v in values.items() if k not in stored}
        if not added:
            return
        db.execute(
            "UPDATE runs SET config = ?, updated_at = ? WHERE id = ?",
            (codec.config_to_json({**stored, **added}), now(), run_id),
        )


def status(store: Transactions, run_id: str) -> RunStatus:
    with store.transaction(f"read run {run_id}", write=False) as db:
        row = require_run(db, store.db_path, run_id)
    return codec.literal(row["status"], RUN_STATUSES, "run status")


def set_status(store: Transactions, run_id: str, new: RunStatus) -> None:
    codec.literal(new, RUN_STATUSES, "run status")
    with store.transaction(f"set status of run {run_id}", write=True) as db:
        cur = db.execute(
            "UPDATE runs SET status = ?, updated_at = ? WHERE id = ?", (new, now(), run_id)
        )
        if cur.rowcount == 0:
            raise StoreError(f"no run '{run_id}' in {store.db_path}")


def list_runs(store: Transactions) -> list[RunSummaryRow]:
    """Every run, newest first."""
    with store.transaction("list runs", write=False) as db:
        rows = db.execute(
            "SELECT id, task, created_at, status, models,"
            " (SELECT COUNT(*) FROM samples s WHERE s.run_id = runs.id) AS n_samples,"
            " (SELECT COUNT(*) FROM records r WHERE r.run_id = runs.id)"
            " + (SELECT COUNT(*) FROM turns t WHERE t.run_id = runs.id) AS n_records"
            " FROM runs ORDER BY created_at DESC, rowid DESC"
        ).fetchall()
    return [_SUMMARY_ROW(r) for r in rows]


def run_ids(store: Transactions) -> list[str]:
    """Every run's id, newest first, as `list_runs` orders them, without counting anything."""
    with store.transaction("list runs", write=False) as db:
        rows = db.execute("SELECT id FROM runs ORDER BY created_at DESC, rowid DESC").fetchall()
    return [str(r[0]) for r in rows]


_SUMMARY_ROW = row_reader(
    RunSummaryRow,
    run_id=lambda r: str(r["id"]),
    status=lambda r: codec.literal(r["status"], RUN_STATUSES, "run status"),
    models=lambda r: tuple(str(m) for m in json.loads(r["models"])),
)


def resolve(store: Transactions, ref: str) -> str:
    """The run id meant by `ref`: an id, a unique prefix of one, a path ending in one, or
    "latest" (the newest run). Every command that takes a RUN reads it here."""
    key = ref.strip()
    if key == LATEST:
        newest = list_runs(store)
        if not newest:
            raise StoreError(f"no runs in {store.db_path}")
        return newest[0].run_id
    is_path = "/" in key or "\\" in key
    if is_path:
        key = Path(key).name
    if not key:
        raise StoreError(f"no run '{ref}' in {store.db_path}")
    with store.transaction(f"resolve run '{ref}'", write=False) as db:
        if db.execute("SELECT 1 FROM runs WHERE id = ?", (key,)).fetchone():
            return key
        if is_path:
            raise StoreError(f"no run '{ref}' in {store.db_path}")
        rows = db.execute(
            "SELECT id FROM runs WHERE substr(id, 1, ?) = ? ORDER BY id",
            (len(key), key),
        ).fetchall()
    ids = [str(r["id"]) for r in rows]
    if not ids:
        raise StoreError(f"no run '{ref}' in {store.db_path}")
    if len(ids) > 1:
        raise StoreError(f"run '{ref}' is ambiguous in {store.db_path}: " + ", ".join(ids))
    return ids[0]


def make_dir(store: Transactions, runs_dir: Path, run_id: str) -> Path:
    """`<runs_dir>/<run_id>` of a stored run, created if needed."""
    with store.transaction(f"read run {run_id}", write=False) as db:
        require_run(db, store.db_path, run_id)
    path = runs_dir / run_id
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"cannot create run folder {path}: {e}") from e
    return path
