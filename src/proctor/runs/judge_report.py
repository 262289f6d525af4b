"""What `proctor judge` reads and writes around the judge phase (`proctor.runs.judge`): the
suite's judge settings before it, and after it the run's files again with the verdicts in them
and, with human labels, the judge's validation in `judge_validation.json` (what `proctor gate`
reads for `judge_kappa`; one entry per judge, the last validation of each)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from proctor.audit.judge_validation import FILE, JudgeValidation, validate
from proctor.datasets.labels import HumanLabel
from proctor.report.atomic import write_text_atomic
from proctor.runs.gate import suite_info
from proctor.runs.report import run_statistics, write_report
from proctor.runs.stored import open_existing
from proctor.stats.run_statistics import RunStatistics
from proctor.tasks.registry import TASKS


@dataclass(frozen=True)
class JudgeTarget:
    """The run a judge is asked to grade, and the judge settings its suite keeps."""

    run_id: str
    kinds: tuple[str, ...] | None
    """The suite's `judge_kinds`; None: every kind."""
    max_tokens: int | None
    """The suite's `judge_max_tokens`, if it has one."""


@dataclass(frozen=True)
class ValidationAsk:
    """`proctor judge --against LABELS`: the human verdicts and how to compare with them."""

    labels: Sequence[HumanLabel]
    labels_file: str
    pairwise: bool
    pass_score: int
    repeats: int


@dataclass(frozen=True)
class Judged:
    """The run's report after the judge phase, and the judge's validation when one was asked."""

    stats: RunStatistics
    written: list[Path]
    validation: JudgeValidation | None


def judge_target(results_dir: Path, run_ref: str) -> JudgeTarget:
    """The run `run_ref` names and its suite's judge settings; ConfigError without a store."""
    with open_existing(results_dir) as store:
        run_id = store.resolve(run_ref)
        info = suite_info(store.run_config(run_id))
    kinds = info.get("judge_kinds")
    stored_max = info.get("judge_max_tokens")
    return JudgeTarget(
        run_id,
        tuple(str(k) for k in kinds) if isinstance(kinds, list) and kinds else None,
        stored_max if isinstance(stored_max, int) else None,
    )


def report_judged(
    results_dir: Path, run_id: str, judge: str, against: ValidationAsk | None
) -> Judged:
    """Write the run's files again with the verdicts in them; with `against`, validate `judge`
    against the human labels and keep that in the run folder's judge_validation.json."""
    with open_existing(results_dir) as store:
        stats = run_statistics(store, run_id, TASKS.get(store.run_info(run_id).task))
        written = write_report(store, stats)
        validation = None
        if against is not None:
            validation = validate(
                store,
                run_id,
                judge,
                against.labels,
                labels_file=against.labels_file,
                pairwise=against.pairwise,
                pass_score=against.pass_score,
                repeats=against.repeats,
            )
            written.append(write_validation(store.run_dir(run_id), validation))
    return Judged(stats, written, validation)


def write_validation(run_dir: Path, v: JudgeValidation) -> Path:
    """Keep `v` as its judge's entry of the run folder's judge_validation.json."""
    path = run_dir / FILE
    judges: dict[str, object] = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
        if isinstance(old, dict) and isinstance(old.get("judges"), dict):
            judges = dict(old["judges"])
    judges[v.judge] = v.as_json()
    document = {
        "about": "proctor judge --against: the last validation of each judge",
        "judges": judges,
    }
    write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return path
