"""The watched exporter: the SDK's log lines taken in (never printed) and handed to the session
whose thread said them, so two sessions at once (a script's two runs) each say only their
own failure; the logger handed back as it was; the reason cut to what a person needs."""

from __future__ import annotations

import logging
import socket

from proctor.telemetry.export import short_reason
from proctor.telemetry.settings import TraceSettings
from proctor.telemetry.spans import RunSpans
from proctor.types import GenerationParams, Prompt, Record, Sample, Usage
from support.otlp import receive_traces


def asked(model: str, sample: Sample, epoch: int) -> tuple[Prompt, GenerationParams]:
    return Prompt((), "A", "en"), GenerationParams()


def session(url: str) -> RunSpans:
    return RunSpans(TraceSettings(url), ("r1", "gsm8k"), ["fake/const:7"], False, 1, asked)


ANSWER = (Record(run_id="r1", model="fake/const:7", sample_id="q1", status="ok", text="7",
                 finish_reason="stop", usage=Usage(9, 1), latency_s=0.1, attempts=1,
                 prompt_variant="A", lang="en"), Sample("q1", "3+4?", "7"))  # fmt: skip


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_sessions_at_once_each_say_only_their_own_failure() -> None:
    unreachable = f"http://127.0.0.1:{closed_port()}/v1/traces"
    with receive_traces() as receiver:
        failing, working = session(unreachable), session(receiver.url + "/v1/traces")
        failing.stored([ANSWER])
        working.stored([ANSWER])
        said_failing = failing.close()
        said_working = working.close()
    assert said_failing is not None and "Connection refused" in said_failing
    assert said_working is None
    assert len(receiver.spans) == 1 + 2


def test_the_sdks_log_is_handed_back_as_it_was_once_no_session_exports() -> None:
    otel = logging.getLogger("opentelemetry")
    before = (otel.propagate, list(otel.handlers))
    first = session(f"http://127.0.0.1:{closed_port()}/v1/traces")
    second = session(f"http://127.0.0.1:{closed_port()}/v1/traces")
    assert otel.propagate is False
    first.close()
    assert otel.propagate is False  # the second still exports
    second.close()
    assert (otel.propagate, list(otel.handlers)) == before


def test_the_reason_is_the_part_a_person_needs() -> None:
    line = ("HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded with url: "
            "/v1/traces (Caused by NewConnectionError('<urllib3.connection.HTTPConnection "
            "object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection "
            "refused'))")  # fmt: skip
    assert short_reason(line) == "[Errno 111] Connection refused"
    assert short_reason("  HTTP 503\n  busy ") == "HTTP 503 busy"
