"""An OTLP/HTTP trace receiver on 127.0.0.1, in this process: it takes POST /v1/traces
(protobuf, gzip or not), decodes each body with the collector's own message
(`ExportTraceServiceRequest`) and keeps the spans, flattened: what `--otel-endpoint` sent.

    with receive_traces() as receiver:
        ... proctor run ... --otel-endpoint receiver.url
        receiver.spans          # [Received(name, span_id, parent_id, attributes, ...)]
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class Received:
    """One span as the collector got it."""

    name: str
    trace_id: str
    span_id: str
    parent_id: str
    """"" for a root span."""
    kind: int
    """The protobuf's SpanKind: 1 internal, 3 client."""
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status_code: int
    """0 unset, 1 ok, 2 error."""
    status_message: str
    resource: dict[str, Any]


@dataclass
class Receiver:
    port: int
    spans: list[Received] = field(default_factory=list)
    posts: list[str] = field(default_factory=list)
    """The path of every POST, in order."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of every POST, in order (names in lower case)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def take(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        found: list[Received] = []
        for resource_spans in request.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope in resource_spans.scope_spans:
                found += [_received(s, resource) for s in scope.spans]
        with self.lock:
            self.spans += found


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in pairs}


def _received(s: Any, resource: dict[str, Any]) -> Received:
    return Received(
        name=s.name, trace_id=s.trace_id.hex(), span_id=s.span_id.hex(),
        parent_id=s.parent_span_id.hex(), kind=s.kind, start_ns=s.start_time_unix_nano,
        end_ns=s.end_time_unix_nano, attributes=_attributes(s.attributes),
        status_code=s.status.code, status_message=s.status.message, resource=resource,
    )  # fmt: skip


@contextmanager
def receive_traces() -> Iterator[Receiver]:
    """Serve on a free loopback port from a daemon thread until the block ends."""
    receiver = Receiver(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            with receiver.lock:
                receiver.posts.append(self.path)
                receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            receiver.take(body)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="otlp-receiver", daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
