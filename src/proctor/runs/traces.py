"""A run's spans (`--otel-endpoint`), hung on the same hooks as samples.jsonl: each batch of
answers once the store holds it, each batch of grades once stored. Spans are a side output:
nothing here can fail the run or change its exit code; a collector that cannot be reached is
one warning in the run's outcome (`RunOutcome.warnings`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from proctor.executors import AskSettings, request_for
from proctor.runs.answer_log import OnStored
from proctor.types import Record, Sample

if TYPE_CHECKING:
    from proctor.runs.plan import RunPlan
    from proctor.store.run_store import ScoreRow
    from proctor.telemetry.spans import RunSpans

SaveScores = Callable[[Sequence["ScoreRow"]], Awaitable[None]]


def open_spans(plan: RunPlan, settings: AskSettings, resumed: bool) -> RunSpans | None:
    """The session's spans, its run span begun; None when the run exports none."""
    if plan.traces is None:
        return None
    from proctor.telemetry.spans import RunSpans

    run = (settings.run_id, plan.task.name)
    asked = partial(request_for, settings)
    return RunSpans(plan.traces, run, plan.models, resumed, len(plan.samples), asked)


def on_stored(spans: RunSpans | None) -> OnStored:
    if spans is None:
        return _nothing
    return spans.stored


def saving(save: SaveScores, spans: RunSpans | None) -> SaveScores:
    """`save` (the writer's commit of grades), then each grade on its sample's span."""
    if spans is None:
        return save

    async def save_and_trace(rows: Sequence[ScoreRow]) -> None:
        await save(rows)
        spans.graded(rows)

    return save_and_trace


def close_spans(spans: RunSpans | None, stopped: bool = False) -> tuple[str, ...]:
    """End the session's spans and wait a bounded time for them to leave; the warning to say
    once when they could not all be sent."""
    if spans is None:
        return ()
    warning = spans.close(stopped)
    return (warning,) if warning else ()


def _nothing(_: Sequence[tuple[Record, Sample]]) -> None:
    return None
