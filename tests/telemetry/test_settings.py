"""`--otel-endpoint` and `--otel-content` read: the URL a collector is reached at, what is
refused (and never repeated: a credential), and the extra named when the SDK is missing."""

from __future__ import annotations

import sys

import pytest

from proctor.errors import ConfigError
from proctor.telemetry.settings import (
    TraceSettings,
    require_sdk,
    trace_settings,
    traces_url,
)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("127.0.0.1:4318", "expected http(s)://HOST:PORT"),
        ("ftp://collector:4318", "expected http(s)://HOST:PORT"),
        ("http://", "expected http(s)://HOST:PORT"),
        ("http://me:Secr3tTok@collector:4318", "credentials"),
        ("http://collector:4318/v1/traces?api_key=Secr3tTok", "credentials"),
        ("http://collector:99999", "port"),
    ],
)
def test_a_url_that_is_no_collector_is_refused_and_no_credential_repeated(
    given: str, said: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        traces_url(given)
    assert said in str(refused.value) and "Secr3tTok" not in str(refused.value)


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"),
        ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"),
        (" https://otel.example.com ", "https://otel.example.com/v1/traces"),
        ("http://collector:4318/v1/traces", "http://collector:4318/v1/traces"),
        ("https://gateway.example.com/otlp/traces", "https://gateway.example.com/otlp/traces"),
    ],
)
def test_a_collector_without_a_path_gets_the_traces_path(given: str, url: str) -> None:
    assert traces_url(given) == url


def test_no_endpoint_is_no_traces_and_content_alone_is_refused() -> None:
    assert trace_settings(None, False) is None
    with pytest.raises(ConfigError, match="--otel-content needs --otel-endpoint"):
        trace_settings(None, True)
    assert trace_settings("http://127.0.0.1:4318", True) == TraceSettings(
        "http://127.0.0.1:4318/v1/traces", True
    )


def test_without_the_exporter_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    with pytest.raises(ConfigError) as refused:
        require_sdk()
    assert "pip install 'proctor-eval[otel]'" in str(refused.value)
    with pytest.raises(ConfigError):
        trace_settings("http://127.0.0.1:4318", False)
