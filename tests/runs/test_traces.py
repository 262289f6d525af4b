"""The spans' hooks in the run's wiring: a run without --otel-endpoint gets none, a grade
reaches the spans only once the store holds it, and a session without spans has nothing to
say."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, cast

import pytest

from proctor.runs.traces import close_spans, on_stored, open_spans, saving
from proctor.telemetry.settings import TraceSettings
from proctor.types import Score


def test_a_run_without_an_endpoint_has_no_spans() -> None:
    # (that such a run imports none of the SDK: tests/cli/test_lazy_imports.py)
    plan = cast(Any, SimpleNamespace(calling=SimpleNamespace(traces=None)))
    assert open_spans(plan, cast(Any, None), False) is None
    assert close_spans(None) == ()
    assert on_stored(None)([]) is None


async def test_a_grade_reaches_the_spans_after_the_store_holds_it() -> None:
    order: list[str] = []

    async def save(rows: Sequence[Any]) -> None:
        order.append(f"stored {len(rows)}")

    class Spans:
        def graded(self, rows: Sequence[Any]) -> None:
            order.append(f"traced {len(rows)}")

    rows = [("m", "q1", 0, Score("correct", "exact_number", "7 is 7"))]
    await saving(save, cast(Any, Spans()))(rows)
    assert order == ["stored 1", "traced 1"]
    assert saving(save, None) is save  # no spans: the writer's own commit, nothing around it


def test_an_sdk_that_cannot_start_is_a_run_without_spans_that_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the exporter refuses to start: a credential provider no package provides
    monkeypatch.setenv("OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER", "no-such-provider")
    traces = TraceSettings("http://127.0.0.1:4318/v1/traces")
    plan = cast(Any, SimpleNamespace(calling=SimpleNamespace(traces=traces),
                                     task=SimpleNamespace(name="gsm8k"), models=("m",),
                                     samples=()))  # fmt: skip
    spans = open_spans(plan, cast(Any, SimpleNamespace(run_id="r1")), False)
    assert spans is not None
    spans.stored([])
    (said,) = close_spans(spans)
    assert said.startswith("traces: spans not sent to http://127.0.0.1:4318/v1/traces: ")
    assert "no-such-provider" in said
