"""A run's spans (`--otel-endpoint`), hung on the same hooks as samples.jsonl: each batch of
answers once the store holds it, each batch of grades once stored. Spans are a side output:
nothing here can fail the run or change its exit code; a collector that cannot be reached is
one warning in the run's outcome (`RunOutcome.warnings`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

from proctor.executors import AskSettings, request_for
from proctor.runs.answer_log import OnStored
from proctor.types import Record, Sample

if TYPE_CHECKING:
    from proctor.runs.plan import RunPlan
    from proctor.store.run_store import ScoreRow

SaveScores = Callable[[Sequence["ScoreRow"]], Awaitable[None]]


class Spans(Protocol):
    """A session's spans (`proctor.telemetry.spans.RunSpans`)."""

    def stored(self, batch: Sequence[tuple[Record, Sample]]) -> None: ...

    def graded(self, rows: Sequence[ScoreRow]) -> None: ...

    def close(self, stopped: bool = False) -> str | None: ...


def open_spans(plan: RunPlan, settings: AskSettings, resumed: bool) -> Spans | None:
    """The session's spans, its run span begun; None when the run exports none. When the
    SDK cannot even start (a certificate variable naming no file, say), the run goes on
    without spans and says why at its end."""
    if plan.calling.traces is None:
        return None
    from proctor.telemetry.spans import RunSpans

    run = (settings.run_id, plan.task.name)
    asked = partial(request_for, settings)
    try:
        return RunSpans(plan.calling.traces, run, plan.models, resumed, len(plan.samples), asked)
    except Exception as e:  # spans never end a run; the reason is said once, at its end
        why = f"{type(e).__name__}: {e}"
        return _Unstarted(f"traces: spans not sent to {plan.calling.traces.url}: {why}")


@dataclass(frozen=True)
class _Unstarted:
    """The spans of a session whose SDK could not start: nothing, and why."""

    why: str

    def stored(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        return None

    def graded(self, rows: Sequence[ScoreRow]) -> None:
        return None

    def close(self, stopped: bool = False) -> str | None:
        return self.why


def on_stored(spans: Spans | None) -> OnStored:
    if spans is None:
        return _nothing
    return spans.stored


def saving(save: SaveScores, spans: Spans | None) -> SaveScores:
    """`save` (the writer's commit of grades), then each grade on its sample's span."""
    if spans is None:
        return save

    async def save_and_trace(rows: Sequence[ScoreRow]) -> None:
        await save(rows)
        spans.graded(rows)

    return save_and_trace


def close_spans(spans: Spans | None, stopped: bool = False) -> tuple[str, ...]:
    """End the session's spans and wait a bounded time for them to leave; the warning to say
    once when they could not all be sent."""
    if spans is None:
        return ()
    warning = spans.close(stopped)
    return (warning,) if warning else ()


def _nothing(_: Sequence[tuple[Record, Sample]]) -> None:
    return None
