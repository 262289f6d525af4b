"""Another harness's run brought into a run store, re-graded by proctor:

    their log (lm-eval samples JSONL, Inspect .json/.eval) → ForeignRun → a proctor run:
        samples, their raw outputs as records, their verdicts as a second grader (stored apart)
    → grade_run (proctor's grader, stored as the run's grades) → the per-item diff

The run is stored "complete" and is never asked again; `proctor score`, `report`, `compare` and
`gate` read it like any other run. The imported verdicts stay as they were logged."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from proctor.datasets.jsonl import content_hash
from proctor.errors import ConfigError, DatasetError
from proctor.foreign.run import ForeignRun
from proctor.runs.grade import grade_run
from proctor.store import RunStore, new_run_id
from proctor.store.imported import ImportedVerdict, add_verdicts, verdicts
from proctor.tasks.registry import get_task
from proctor.types import GenerationParams, GradedItem, Record, RunInfo, Sample, Score

IMPORTED = "imported"
"""The key of the run config that says where an imported run came from."""


@dataclass(frozen=True)
class Reproduced:
    """Their reported accuracy beside the one their own verdicts give, as stored."""

    grader: str
    reported: float | None
    from_verdicts: float | None
    credited: int
    """Answers with a value they average (the denominator)."""


@dataclass(frozen=True)
class Difference:
    model: str
    sample_id: str
    epoch: int
    theirs: ImportedVerdict
    ours: Score
    text: str


@dataclass(frozen=True)
class ImportOutcome:
    run_id: str
    run_dir: Path
    task: str
    model: str
    answers: int
    grader: str
    """Their grader the diff is against (the first of `ForeignRun.graders`)."""
    reproduced: tuple[Reproduced, ...]
    agree: int
    differences: tuple[Difference, ...]


def imported_from(config: Mapping[str, object]) -> Mapping[str, object] | None:
    """Where an imported run came from (its config's "imported" entry), or None."""
    value = config.get(IMPORTED)
    return value if isinstance(value, dict) else None


def their_accuracy(verdicts_of: Sequence[ImportedVerdict]) -> tuple[float | None, int]:
    """Accuracy as the other harness computes it: the mean credit per sample (over its epochs),
    then the mean over samples; and how many answers had a credit."""
    per_sample: dict[tuple[str, str], list[float]] = {}
    for v in verdicts_of:
        if v.credit is not None:
            per_sample.setdefault((v.model, v.sample_id), []).append(v.credit)
    if not per_sample:
        return None, 0
    means = [sum(c) / len(c) for c in per_sample.values()]
    return sum(means) / len(means), sum(len(c) for c in per_sample.values())


def _samples(foreign: ForeignRun) -> list[Sample]:
    seen: dict[str, Sample] = {}
    for answer in foreign.answers:
        s = answer.sample
        known = seen.setdefault(s.id, s)
        if known != s:
            raise DatasetError(
                foreign.source,
                None,
                None,
                f"two different questions have the id {s.id!r}; proctor keys answers by it",
            )
    return list(seen.values())


def import_run(
    results_dir: Path,
    foreign: ForeignRun,
    *,
    task_name: str | None = None,
    model: str | None = None,
) -> ImportOutcome:
    """Store `foreign` as a new complete run, grade it with proctor's rules, and compare."""
    name = task_name or foreign.proctor_task
    if not name:
        raise ConfigError(
            f"{foreign.harness} task {foreign.their_task!r} has no proctor grader that is known "
            "to fit: name the task that grades it with --task (e.g. --task gsm8k)"
        )
    task = get_task(name)
    model_name = model or f"{foreign.harness}:{foreign.model}"
    samples = _samples(foreign)
    epochs = 1 + max(a.epoch for a in foreign.answers)
    run_id = new_run_id(task.name)
    source_hash = hashlib.sha256(Path(foreign.source).read_bytes()).hexdigest()
    info = RunInfo(
        run_id=run_id,
        task=task.name,
        models=(model_name,),
        dataset_hash=content_hash(samples),
        dataset_size=len(samples),
        generator_version=f"imported from {foreign.harness} {foreign.harness_version}".strip(),
        prompt_variant=task.default_variant,
        lang="en",
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        params=GenerationParams(),
    )
    origin = {
        "harness": foreign.harness,
        "version": foreign.harness_version,
        "their_task": foreign.their_task,
        "their_model": foreign.model,
        "file": foreign.source,
        "file_sha256": source_hash,
        "graders": list(foreign.graders),
        "reported": dict(foreign.reported),
        "notes": list(foreign.notes),
    }
    config: dict[str, object] = {
        "task_version": task.version,
        "source": foreign.source,
        "epochs": epochs,
        IMPORTED: origin,
    }
    records, theirs = _their_answers(foreign, run_id, model_name, task.default_variant)
    with RunStore.open(results_dir) as store:
        store.create_run(info, samples, f"import:{source_hash}:{model_name}", config)
        store.add_records(records)
        add_verdicts(store, run_id, theirs)
        store.set_status(run_id, "complete")
        _, items = grade_run(store, run_id, task)
        run_dir = store.run_dir(run_id)
        stored = verdicts(store, run_id)
    reproduced = tuple(
        Reproduced(
            g, foreign.reported.get(g), *their_accuracy([v for v in stored if v.grader == g])
        )
        for g in foreign.graders
    )
    primary = foreign.graders[0] if foreign.graders else ""
    agree, differences = _set_beside(items, [v for v in stored if v.grader == primary])
    return ImportOutcome(
        run_id=run_id,
        run_dir=run_dir,
        task=task.name,
        model=model_name,
        answers=len(records),
        grader=primary,
        reproduced=reproduced,
        agree=agree,
        differences=tuple(differences),
    )


def _their_answers(
    foreign: ForeignRun, run_id: str, model: str, variant: str
) -> tuple[list[Record], list[ImportedVerdict]]:
    """Their raw outputs as our records, and their verdicts as a second grader's."""
    records = [
        Record(
            run_id=run_id,
            model=model,
            sample_id=a.sample.id,
            status="call_failed" if a.error else "ok",
            text=a.text,
            finish_reason=a.finish_reason,
            usage=a.usage,
            latency_s=a.latency_s,
            attempts=1,
            prompt_variant=variant,
            lang="en",
            reported_model=a.reported_model,
            error=a.error,
            epoch=a.epoch,
        )
        for a in foreign.answers
    ]
    theirs = [
        ImportedVerdict(
            model=model,
            sample_id=a.sample.id,
            epoch=a.epoch,
            grader=grader,
            outcome=v.outcome,
            value=v.value,
            credit=v.credit,
            extracted=v.extracted,
            explanation=v.explanation,
        )
        for a in foreign.answers
        for grader, v in a.verdicts.items()
    ]
    return records, theirs


def _set_beside(
    items: Sequence[GradedItem], theirs: Sequence[ImportedVerdict]
) -> tuple[int, list[Difference]]:
    """How many of our grades agree with their grader's verdicts, and where they differ."""
    by_key = {(v.model, v.sample_id, v.epoch): v for v in theirs}
    agree, differences = 0, []
    for item in items:
        r = item.record
        their = by_key.get((r.model, r.sample_id, r.epoch))
        if their is None:
            continue
        if same_verdict(their.outcome, item.score):
            agree += 1
        else:
            differences.append(Difference(r.model, r.sample_id, r.epoch, their, item.score, r.text))
    return agree, differences


def same_verdict(theirs: str, ours: Score) -> bool:
    """Whether both graders say the same: both correct, both not correct (any of proctor's
    other outcomes), or both unscored."""
    ours_unscored = ours.outcome in ("unscored", "call_failed")
    if theirs == "unscored" or ours_unscored:
        return theirs == "unscored" and ours_unscored
    return (theirs == "correct") == (ours.outcome == "correct")
