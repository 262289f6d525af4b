"""`--otel-endpoint URL` and `--otel-content` read: where a run's spans go and whether they
carry the prompt and reply text. Checked before anything is asked (exit 2 with one line)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from urllib.parse import urlparse

from proctor.errors import ConfigError

TRACES_PATH = "/v1/traces"
INSTALL = "pip install 'proctor-eval[otel]'"
_EXPORTER = "opentelemetry.exporter.otlp.proto.http.trace_exporter"


@dataclass(frozen=True)
class TraceSettings:
    """Where a run's spans are sent, and whether prompts and replies go with them."""

    url: str
    """The OTLP/HTTP traces endpoint, whole (…/v1/traces)."""
    content: bool = False
    """Prompt and reply text on the call spans (redacted of API keys); off by default."""


def trace_settings(endpoint: str | None, content: bool) -> TraceSettings | None:
    """The settings of the options given (None: no traces), the SDK checked importable."""
    if endpoint is None:
        if content:
            raise ConfigError("--otel-content needs --otel-endpoint URL (where the spans go)")
        return None
    url = traces_url(endpoint)
    require_sdk()
    return TraceSettings(url, content)


def traces_url(endpoint: str) -> str:
    """The collector's URL as given, with /v1/traces added when it names no path (as
    OTEL_EXPORTER_OTLP_ENDPOINT is read). Credentials in it are refused: a header
    (OTEL_EXPORTER_OTLP_TRACES_HEADERS) carries a token, never a command line."""
    given = endpoint.strip()
    parsed = urlparse(given)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(
            f"--otel-endpoint {given[:80]!r}: expected http(s)://HOST:PORT (an OTLP/HTTP "
            "collector, e.g. http://127.0.0.1:4318)"
        )
    if "@" in parsed.netloc or parsed.query:
        raise ConfigError(
            "--otel-endpoint: the URL holds credentials or a query (not shown); give a "
            "collector's token in OTEL_EXPORTER_OTLP_TRACES_HEADERS instead"
        )
    try:
        parsed.port  # noqa: B018 - reading it checks it
    except ValueError:
        raise ConfigError(f"--otel-endpoint {given[:80]!r}: the port is not a number") from None
    if parsed.path in ("", "/"):
        return given.rstrip("/") + TRACES_PATH
    return given


def require_sdk() -> None:
    """ConfigError naming the extra when the SDK or its OTLP/HTTP exporter is not installed."""
    try:
        for module in ("opentelemetry.sdk.trace", _EXPORTER):
            importlib.import_module(module)
    except ImportError as e:
        missing = e.name or "opentelemetry"
        raise ConfigError(
            f"--otel-endpoint needs the OpenTelemetry SDK and its OTLP/HTTP exporter "
            f"({missing} is not installed): {INSTALL}"
        ) from None
