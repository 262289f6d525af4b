"""The OTLP/HTTP exporter of a session's spans, watched: its first failure is kept, to be said
once at the run's end, and after it nothing more is sent (each batch would wait for an
unreachable collector again). The SDK reports failures only in its log: while sessions
export, the "opentelemetry" logger's lines are taken in here (never printed), each handed to
the session whose thread said it (the batch processor's worker or the spans' maker)."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter

EXPORT_TIMEOUT_S = 5.0
"""One export's time (retries included) before the collector counts as unreachable."""
_KEPT_LINES = 20
_UNREACHABLE = re.compile(
    r"Connection refused|Failed to establish a new connection|Name or service not known|"
    r"No route to host|Network is unreachable|nodename nor servname",
    re.IGNORECASE,
)
_ERRNO = re.compile(r"\[Errno -?\d+\] [^'\")]+")


def short_reason(line: str) -> str:
    """The part of an exporter's log line a person needs ("[Errno 111] Connection refused")."""
    found = _ERRNO.search(line)
    text = found.group(0) if found else line
    return " ".join(text.split())[:300]


class Watch:
    """One session's exporter (`exporter`, for the batch processor) and what became of it."""

    def __init__(self, url: str) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        self.url = url
        self.failure: str | None = None
        self._lines: list[str] = []
        self._dropped = False
        self._lock = threading.Lock()
        self._shut = False
        self._inner = OTLPSpanExporter(endpoint=url, timeout=EXPORT_TIMEOUT_S)
        self.exporter = _watched(self)
        _LOG.take(+1)

    def listen_here(self) -> None:
        """What the SDK logs on this thread is this session's."""
        _LOCAL.watch = self

    def heard(self, line: str) -> None:
        """A line the SDK logged on one of this session's threads. A collector that cannot
        be connected to ends the exporting at once: its retries would only hold the run's end."""
        with self._lock:
            if len(self._lines) < _KEPT_LINES:
                self._lines.append(line)
            self._dropped |= line.startswith("Queue full")  # the batch processor's queue
        if _UNREACHABLE.search(line):
            self.give_up(line)
            self.shut()

    def send(self, spans: Sequence[ReadableSpan]) -> bool:
        from opentelemetry.sdk.trace.export import SpanExportResult

        self.listen_here()
        if self.failure is not None:
            return False
        sent = self._inner.export(spans) is SpanExportResult.SUCCESS
        if not sent:
            with self._lock:
                first = self._lines[0] if self._lines else "the collector refused the spans"
            self.give_up(first)
        return sent

    def give_up(self, reason: str) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = short_reason(reason)

    def shut(self) -> None:
        """Stop the exporter once (this also cuts the wait between an export's retries)."""
        with self._lock:
            if self._shut:
                return
            self._shut = True
        self._inner.shutdown()  # type: ignore[no-untyped-call, unused-ignore]

    def close(self, threads_done: bool = True) -> str | None:
        """Stop sending, hand the SDK's log back (when no other session exports, and this
        one's threads are done: one still in a request would print its failure later); the
        warning to say, if any."""
        self.shut()
        if threads_done:
            _LOG.take(-1)
        if self.failure is None and self._dropped:
            self.give_up("some were dropped: they were made faster than the collector took them")
        if self.failure is None:
            return None
        return f"traces: spans not sent to {self.url}: {self.failure}"


def _watched(watch: Watch) -> SpanExporter:
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Watched(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            sent = watch.send(spans)
            return SpanExportResult.SUCCESS if sent else SpanExportResult.FAILURE

        def shutdown(self) -> None:
            watch.shut()

    return Watched()


_LOCAL = threading.local()


class _Heard(logging.Handler):
    """The "opentelemetry" logger's handler while sessions export: each line to the session
    whose thread said it; a line of no session's thread is dropped (never printed)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._lock = threading.Lock()
        self._sessions = 0
        self._propagated = True

    def emit(self, record: logging.LogRecord) -> None:
        watch: Watch | None = getattr(_LOCAL, "watch", None)
        if watch is not None:
            watch.heard(record.getMessage())

    def take(self, change: int) -> None:
        """One more session (+1) or one fewer (-1): the first installs this handler (and
        stops the lines reaching the root logger), the last hands the logger back."""
        logger = logging.getLogger("opentelemetry")
        with self._lock:
            self._sessions += change
            if change > 0 and self._sessions == 1:
                self._propagated = logger.propagate
                logger.addHandler(self)
                logger.propagate = False
            elif change < 0 and self._sessions == 0:
                logger.removeHandler(self)
                logger.propagate = self._propagated


_LOG = _Heard()
