"""`RunSpans`, the spans of one session, sent to an OTLP/HTTP receiver in this process: the
tree, an answer the session never graded, a collector that refuses connections or never
answers (a warning, bounded), a token in the OTLP header variable, spans dropped."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from proctor.telemetry import export as export_module
from proctor.telemetry import spans as spans_module
from proctor.telemetry.settings import TraceSettings
from proctor.telemetry.spans import RunSpans
from proctor.types import GenerationParams, Prompt, Record, Sample, Score, Usage
from support.otlp import receive_traces

SAMPLE = Sample("q1", "What is 3+4?", "7")


def asked(model: str, sample: Sample, epoch: int) -> tuple[Prompt, GenerationParams]:
    return Prompt((), "A", "en"), GenerationParams(temperature=0.0, max_tokens=32)


def record(sample_id: str, epoch: int = 0) -> Record:
    return Record(run_id="r1", model="fake/const:7", sample_id=sample_id, status="ok",
                  text="7", finish_reason="stop", usage=Usage(9, 1), latency_s=0.25, attempts=1,
                  prompt_variant="A", lang="en", epoch=epoch)  # fmt: skip


def session(url: str) -> RunSpans:
    return RunSpans(TraceSettings(url), ("r1", "gsm8k"), ["fake/const:7"], False, 2, asked)


def test_stored_and_graded_answers_make_the_tree_an_ungraded_one_ends_without_a_grade() -> None:
    with receive_traces() as receiver:
        spans = session(receiver.url + "/v1/traces")
        spans.stored([(record("q1"), SAMPLE), (record("q2"), SAMPLE)])
        spans.graded([("fake/const:7", "q1", 0, Score("correct", "exact_number", "7 is 7"))])
        assert spans.close() is None
    (root,) = [s for s in receiver.spans if not s.parent_id]
    samples = {s.attributes["proctor.item.id"]: s for s in receiver.spans
               if s.parent_id == root.span_id}  # fmt: skip
    calls = [s for s in receiver.spans if s.parent_id not in ("", root.span_id)]
    assert set(samples) == {"q1", "q2"} and len(calls) == 2
    assert samples["q1"].attributes["proctor.grade"] == "correct"
    assert "proctor.grade" not in samples["q2"].attributes  # stopped before its grade
    for c in calls:  # the call began its latency before it was stored
        assert c.end_ns - c.start_ns == pytest.approx(0.25e9, abs=0.05e9)


def test_a_collectors_token_goes_in_the_header_the_otlp_variables_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "authorization=Basic%20cHJvY3Rvcg==")
    with receive_traces() as receiver:
        spans = session(receiver.url + "/v1/traces")
        spans.stored([(record("q1"), SAMPLE)])
        assert spans.close() is None
    assert receiver.headers and all(h["authorization"] == "Basic cHJvY3Rvcg=="
                                    for h in receiver.headers)  # fmt: skip


def test_spans_made_faster_than_the_collector_takes_them_are_dropped_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spans_module, "_QUEUE", 4)
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2")
    with receive_traces() as receiver:
        spans = session(receiver.url + "/v1/traces")
        spans.stored([(record(f"q{i}"), SAMPLE) for i in range(200)])
        warning = spans.close()
    assert warning is not None and "dropped" in warning
    assert len(receiver.spans) < 1 + 2 * 200


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_collector_that_refuses_connections_is_a_warning_and_nothing_printed(
    capfd: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1/traces"
    spans = session(url)
    spans.stored([(record("q1"), SAMPLE)])
    warning = spans.close()
    assert warning is not None and url in warning and "Connection refused" in warning
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # the SDK's own log lines were taken in, not printed


@pytest.fixture
def black_hole() -> Iterator[str]:
    """A collector that accepts the connection and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield f"http://127.0.0.1:{s.getsockname()[1]}/v1/traces"


def test_a_collector_that_never_answers_is_waited_for_a_bounded_time(
    black_hole: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spans_module, "FLUSH_S", 0.3)
    monkeypatch.setattr(export_module, "EXPORT_TIMEOUT_S", 30.0)  # longer than the wait
    spans = session(black_hole)
    spans.stored([(record("q1"), SAMPLE)])
    warning = spans.close()
    assert warning is not None and "not all spans were sent within 0.3 s" in warning
