"""The lifecycle of a turn run (dialogue or workflow) in the run store, the same for both kinds:

    open (or find, or resume) the run → ask its turns, each committed as it is answered →
    mark it complete or interrupted → store its grade (table `turn_grades`) → write its files

What differs between the kinds is `proctor.runs.turns`' (`TURN_KINDS`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from proctor.errors import ConfigError
from proctor.runs.report import run_statistics, store_turn_grade, write_report
from proctor.stats.turn_scores import TurnScores
from proctor.store import RunStore
from proctor.store.run_ids import new_run_id
from proctor.store.turn_log import StoredTurns, TurnLog
from proctor.types import GenerationParams, RunInfo, Sample


@dataclass(frozen=True)
class TurnRun:
    """A dialogue or workflow run in the store: its id, and whether it was found unfinished."""

    run_id: str
    resumed: bool


def open_turn_run(
    store: RunStore,
    *,
    kind: str,
    spec: Mapping[str, Any],
    model: str,
    lang: str,
    stages: Sequence[tuple[str, str]],
    params: GenerationParams,
    settings: Mapping[str, object],
    resume: str | None = None,
) -> TurnRun:
    """The run to ask `spec` (a dialogue tree or a workflow, as JSON) of `model` in: `resume`
    when named, else the newest unfinished run of the same spec, model and `settings`, else a
    new one (task `kind`, one sample per stage or step: (id, text))."""
    spec_json = json.dumps(dict(spec), ensure_ascii=False, sort_keys=True)
    spec_hash = hashlib.sha256(spec_json.encode("utf-8")).hexdigest()
    identity = {"kind": kind, "spec": spec_hash, "model": model, **settings}
    fingerprint = hashlib.sha256(
        json.dumps(identity, sort_keys=True, default=str).encode("utf-8")
    ).hexdigest()[:32]
    if resume is not None:
        run_id = store.resolve(resume)
        config = store.run_config(run_id)
        if config.get("kind") != kind:
            raise ConfigError(f"run {run_id} is not a {kind} run")
        if config.get("spec") != json.loads(spec_json):
            raise ConfigError(
                f"run {run_id} was asked with another version of {kind} {spec.get('id', '')!r}: "
                "resume it with the file it began with, or start a new run"
            )
        if store.run_info(run_id).models != (model,):
            raise ConfigError(f"run {run_id} asked {store.run_info(run_id).models[0]}, not {model}")
        return TurnRun(run_id, True)
    found = store.find_resumable(fingerprint)
    if found is not None:
        return TurnRun(found, True)
    run_id = new_run_id(f"{kind}-{spec.get('id', '')}")
    info = RunInfo(
        run_id=run_id,
        task=kind,
        models=(model,),
        dataset_hash=f"sha256:{spec_hash}",
        dataset_size=len(stages),
        generator_version=f"{kind}:{spec.get('id', '')}",
        prompt_variant=kind,
        lang=lang,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        params=params,
    )
    samples = [Sample(id=i, input=text, target="", answer_type="text") for i, text in stages]
    store.create_run(info, samples, fingerprint, {"kind": kind, "spec": dict(spec), **settings})
    return TurnRun(run_id, False)


R = TypeVar("R")


def grade_and_write(results_dir: Path, run_id: str, scores: TurnScores) -> list[Path]:
    """Store a turn run's grade and write its files (results.json, summary.md, report.html)."""
    with RunStore.open(results_dir) as store:
        store_turn_grade(store, run_id, scores)
        return write_report(store, run_statistics(store, run_id, None))


@dataclass(frozen=True)
class TurnRunDone(Generic[R]):
    """A dialogue or workflow run that this command asked (or resumed) and ended."""

    run_id: str
    run_dir: Path
    resumed: int
    """Turns taken from the store instead of being asked again."""
    result: R


async def ask_in_store(
    results_dir: Path,
    ask: Callable[[TurnLog], Awaitable[R]],
    finished: Callable[[R], bool],
    *,
    on_run: Callable[[str], None] | None = None,
    noted: Mapping[str, object] | None = None,
    **opening: Any,
) -> TurnRunDone[R]:
    """Open (or find, see `open_turn_run`) the run, note `noted` in its config (what a resume
    needs that is no part of the run's identity; a key already there keeps its value), `ask` it
    with its stored turns as the log,
    and mark it complete when `finished(result)`, else interrupted (resumable); interrupted too
    when `ask` is stopped by anything."""
    with RunStore.open(results_dir) as store:
        run = open_turn_run(store, **opening)
        if noted:
            store.add_run_config(run.run_id, noted)
        if on_run is not None:
            on_run(run.run_id)  # so that an interrupted command can say which run to resume
        log = StoredTurns(store, run.run_id, str(opening["model"]))
        resumed = len(log.answered())
        store.set_status(run.run_id, "running")
        try:
            result = await ask(log)
        except BaseException:
            store.set_status(run.run_id, "interrupted")
            raise
        store.set_status(run.run_id, "complete" if finished(result) else "interrupted")
        return TurnRunDone(run.run_id, store.run_dir(run.run_id), resumed, result)
