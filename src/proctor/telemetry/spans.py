"""The spans of one session of a run: a run span, under it a sample span per stored answer
(model × item × reply; ended when graded, with the grade), under that the call's span (started
when the call was, its latency before the answer was stored). Exported by the SDK's batch
processor on a thread of its own: a slow or absent collector never slows or fails the run. The
first failure is kept and said once by whoever closes the session (`close`), which waits for
the last spans a bounded time."""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from proctor.telemetry.attributes import (
    call_attributes,
    call_name,
    grade_attributes,
    run_attributes,
    sample_attributes,
    session_attributes,
)
from proctor.telemetry.export import Watch
from proctor.telemetry.settings import TraceSettings
from proctor.types import GenerationParams, Prompt, Record, Sample, Score

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

RequestOf = Callable[[str, Sample, int], tuple[Prompt, GenerationParams]]
"""(model, sample, epoch) → the prompt and parameters it was asked with."""
GradeRow = tuple[str, str, int, Score]
"""(model, sample id, epoch, grade): a grade as the run's writer stores it."""

FLUSH_S = 5.0
"""How long the end of a run waits for its last spans to leave."""
CLOSE_ON_STOP_S = 1.0
"""The same when the run was stopped (Ctrl-C): the user is waiting to get the prompt back."""
_QUEUE = 16_384


class RunSpans:
    """One session's spans (see the module docstring). `stored` and `graded` are called on the
    event loop by the run's wiring and only queue what they are told, with the time: the spans
    are made on a thread of their own (the SDK takes some 100 µs an answer), so the loop
    never waits for them. `close` once, at the end, whatever ended the session."""

    def __init__(
        self,
        settings: TraceSettings,
        run: tuple[str, str],
        models: Sequence[str],
        resumed: bool,
        items: int,
        request_of: RequestOf,
    ) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        self._watch = Watch(settings.url)
        provider = TracerProvider(
            resource=Resource.create({"service.name": "proctor"}), shutdown_on_exit=False
        )
        self._processor = BatchSpanProcessor(self._watch.exporter, max_queue_size=_QUEUE)
        provider.add_span_processor(self._processor)
        self._maker = _SpanMaker(
            provider.get_tracer("proctor"), settings.content, run, request_of,
            run_attributes(*run, models, resumed, items),
        )  # fmt: skip
        self._todo: queue.SimpleQueue[tuple[str, Any, int] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._make, name="proctor-spans", daemon=True)
        self._thread.start()

    def stored(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        """Answers just stored: each its call's span (ended) and its sample's (open until
        graded)."""
        self._todo.put(("stored", list(batch), time.time_ns()))

    def graded(self, rows: Sequence[GradeRow]) -> None:
        """Grades just stored: each ends its sample's span, the grade and rule on it."""
        self._todo.put(("graded", list(rows), time.time_ns()))

    def close(self, stopped: bool = False) -> str | None:
        """End every span, wait (at most FLUSH_S, or CLOSE_ON_STOP_S when the run was
        stopped) for them to be made and leave; the warning to say once when some did not
        (None when all were sent)."""
        limit = CLOSE_ON_STOP_S if stopped else FLUSH_S
        deadline = time.monotonic() + limit
        self._todo.put(None)
        self._thread.join(limit)
        waited = threading.Thread(target=self._processor.shutdown, daemon=True)
        waited.start()
        waited.join(max(0.0, deadline - time.monotonic()))
        done = not (self._thread.is_alive() or waited.is_alive())
        if not done:
            self._watch.give_up(f"not all spans were sent within {limit:g} s")
        return self._watch.close(threads_done=done)

    def _make(self) -> None:
        self._watch.listen_here()
        while (job := self._todo.get()) is not None:
            if self._watch.failure is not None:
                continue  # nothing more is sent: making the spans would only cost the run
            kind, items, now = job
            try:
                if kind == "stored":
                    self._maker.stored(items, now)
                else:
                    self._maker.graded(items, now)
            except Exception as e:  # a bug here must not end the run: said once, at its end
                self._watch.give_up(f"spans could not be made: {type(e).__name__}: {e}")
        self._maker.close()


class _SpanMaker:
    """Makes the spans, on the spans' thread: run → sample → call."""

    def __init__(
        self,
        tracer: Tracer,
        content: bool,
        run: tuple[str, str],
        request_of: RequestOf,
        attributes: Mapping[str, Any],
    ) -> None:
        from opentelemetry import trace

        self._tracer, self._content, (self._run_id, self._task) = tracer, content, run
        self._request_of = request_of
        self._run = tracer.start_span(f"proctor run {self._task}", attributes=attributes)
        self._in_run = trace.set_span_in_context(self._run)
        self._pending: dict[tuple[str, str, int], Span] = {}
        self._tally: Counter[str] = Counter()

    def stored(self, batch: Sequence[tuple[Record, Sample]], now: int) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        for record, sample in batch:
            began = now - int(record.latency_s * 1e9)
            item = self._tracer.start_span(
                f"sample {record.sample_id}", context=self._in_run, start_time=began,
                attributes=sample_attributes(self._run_id, self._task, record),
            )  # fmt: skip
            prompt, params = self._request_of(record.model, sample, record.epoch)
            call = self._tracer.start_span(
                call_name(record.model), context=trace.set_span_in_context(item),
                kind=SpanKind.CLIENT, start_time=began,
                attributes=call_attributes(record, params, prompt, self._content),
            )  # fmt: skip
            if record.status == "call_failed":
                call.set_status(Status(StatusCode.ERROR, record.error[:500]))
            call.end(end_time=now)
            key = (record.model, record.sample_id, record.epoch)
            earlier = self._pending.pop(key, None)  # asked again (--retry-errors) ungraded
            if earlier is not None:
                earlier.end(end_time=now)
            self._pending[key] = item

    def graded(self, rows: Sequence[GradeRow], now: int) -> None:
        for model, sample_id, epoch, score in rows:
            item = self._pending.pop((model, sample_id, epoch), None)
            if item is not None:
                item.set_attributes(grade_attributes(score))
                item.end(end_time=now)
                self._tally[score.outcome] += 1

    def close(self) -> None:
        """The answers the session did not grade (it was stopped) end without a grade; the
        run span gets the session's grades counted by outcome."""
        for item in self._pending.values():
            item.end()
        self._pending.clear()
        self._run.set_attributes(session_attributes(self._tally))
        self._run.end()
