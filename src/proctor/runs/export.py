"""`proctor export RUN --to FORMAT -o PATH`: a stored run written for another harness's tools,
from its stored answers and grades (nothing is asked or graded). The formats' writers are in
`proctor.foreign` (pure); here the run is read from the store and each file written whole or
not at all (`write_atomic`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Literal

from proctor.errors import ConfigError, ProctorError
from proctor.foreign.exported import ExportFile, Prompts
from proctor.foreign.inspect_export import inspect_files
from proctor.foreign.jsonl_export import HERE, jsonl_files
from proctor.foreign.lm_eval_export import lm_eval_files
from proctor.report.atomic import write_atomic
from proctor.runs.report import run_statistics, sent_prompts
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.run_statistics import RunStatistics
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task
from proctor.types import RunInfo, Sample

ExportFormat = Literal["inspect", "lm-eval", "jsonl"]
WRITERS: dict[str, Callable[[RunStatistics, Prompts], list[ExportFile]]] = {
    "inspect": inspect_files,
    "lm-eval": lm_eval_files,
    "jsonl": jsonl_files,
}
FOLDER_FORMATS = frozenset({"inspect", "lm-eval"})
"""Formats written as a folder (a log directory, an output path); the others are one file."""


def _prompts(
    task: Task | None, info: RunInfo, samples: Iterable[Sample], config: Mapping[str, object]
) -> Prompts:
    """Each sample's messages as the run sent them; {} when the task cannot rebuild them or
    its variants were sent different prompts (`sent_prompts`)."""
    sent = None if task is None else sent_prompts(task, info, samples, config)
    return {} if sent is None else {sid: tuple(p.messages) for sid, p in sent.items()}


def _check_target(to: str, out: Path) -> None:
    if to in FOLDER_FORMATS:
        if out.exists() and not out.is_dir():
            raise ConfigError(f"-o {out}: {to} is written as a folder, and this is a file")
    elif out.is_dir():
        raise ConfigError(f"-o {out}: {to} is written as one file, and this is a folder")


def export_run(results_dir: Path, run_ref: str, to: str, out: Path) -> tuple[str, list[Path]]:
    """Write the run `run_ref` of `results_dir` as `to` at `out`; its id and the files."""
    writer = WRITERS.get(to)
    if writer is None:
        raise ConfigError(f"--to {to!r}: use one of {', '.join(WRITERS)}")
    _check_target(to, out)
    if not (results_dir / "proctor.db").exists():
        raise ProctorError(f"no run store in {results_dir} (use --results-dir)")
    with RunStore.open(results_dir) as store:
        run_id = store.resolve(run_ref)
        info = store.run_info(run_id)
        if turn_kind(info.task) is not None:
            raise ConfigError(
                f"run {run_id} is a {info.task} run: its turns are graded as a whole, there are"
                " no answers to export (its files are in the run's folder)"
            )
        try:
            task: Task | None = get_task(info.task)
        except ConfigError:
            task = None  # a task this proctor does not know: its answers and stored grades
        stats = run_statistics(store, run_id, task)
        config = store.run_config(run_id)
    if not stats.items:
        raise ConfigError(f"run {run_id} has no stored answers to export")
    prompts = _prompts(task, info, {i.sample.id: i.sample for i in stats.items}.values(), config)
    written = []
    for file in writer(stats, prompts):
        parts = PurePosixPath(file.path).parts
        if any(part in ("", ".", "..") for part in parts) and file.path != HERE:
            # a name made from a stored model name must never leave the folder asked for
            raise ConfigError(f"refused to write {file.path}: not a path inside {out}")
        path = out if file.path == HERE else out / Path(*parts)
        written.append(write_atomic(path, file.write))
    return run_id, written
