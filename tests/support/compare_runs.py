"""Stored runs built from scripted answers, for the comparison tests (no model, no network)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from proctor.datasets.arithmetic import generate
from proctor.datasets.jsonl import content_hash
from proctor.runs.grade import grade, grade_run
from proctor.store import RunStore
from proctor.tasks.registry import get_task
from proctor.types import GenerationParams, GradedItem, Record, RunInfo, Sample, Usage

Answer = Callable[[int, Sample], str | None]
"""(item index, sample) → the reply's final answer; None for a failed call."""

SAMPLES: tuple[Sample, ...] = tuple(generate(42, 40))


def right(_i: int, s: Sample) -> str:
    return s.target


def wrong_from(k: int) -> Answer:
    """Right on the first k items, a dropped-digit or off answer afterwards."""

    def answer(i: int, s: Sample) -> str:
        if i < k:
            return s.target
        if s.answer_type in ("integer", "decimal") and len(s.target.lstrip("-")) > 2:
            return s.target[:-2] + s.target[-1]  # a digit dropped
        return "999999"

    return answer


def info(run_id: str, models: Sequence[str], samples: Sequence[Sample]) -> RunInfo:
    return RunInfo(
        run_id=run_id,
        task="arithmetic",
        models=tuple(models),
        dataset_hash=content_hash(list(samples)),
        dataset_size=len(samples),
        generator_version="test",
        prompt_variant="B",
        lang="en",
        created_at="2026-05-01T10:00:00+00:00",
        params=GenerationParams(),
    )


def records(run_id: str, model: str, samples: Sequence[Sample], answer: Answer) -> list[Record]:
    out: list[Record] = []
    for i, s in enumerate(samples):
        given = answer(i, s)
        out.append(
            Record(
                run_id=run_id,
                model=model,
                sample_id=s.id,
                status="ok" if given is not None else "call_failed",
                text=f"Final answer: {given}" if given is not None else "",
                finish_reason="stop" if given is not None else "unknown",
                usage=Usage(10, 5),
                latency_s=0.1,
                attempts=1,
                prompt_variant="B",
                lang="en",
                error="" if given is not None else "Transient: refused",
            )
        )
    return out


def graded(recs: Sequence[Record], samples: Sequence[Sample]) -> list[GradedItem]:
    task = get_task("arithmetic")
    by_id = {s.id: s for s in samples}
    return [GradedItem(by_id[r.sample_id], r, grade(task, r, by_id[r.sample_id])) for r in recs]


def store_run(
    results: Path,
    run_id: str,
    answers: dict[str, Answer],
    samples: Sequence[Sample] = SAMPLES,
) -> RunInfo:
    """Create a run with one model per entry of `answers`, every record stored and graded."""
    run = info(run_id, list(answers), samples)
    with RunStore.open(results) as store:
        store.create_run(run, samples, fingerprint=run_id, config={"epochs": 1})
        for model, answer in answers.items():
            store.add_records(records(run_id, model, samples, answer))
        grade_run(store, run_id, get_task("arithmetic"), keep_items=False)
        store.set_status(run_id, "complete")
        store.run_dir(run_id)
    return run
