"""Model strings → providers, and where keys come from."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.providers.fake import FakeProvider
from proctor.providers.openai_compat import OpenAICompatProvider
from proctor.providers.registry import (
    OPENAI_BASE_URL,
    ModelSpec,
    key_sources,
    make_provider,
    parse_model,
)
from proctor.types import GenerationParams, Message, Prompt


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("local", ModelSpec(kind="local", name="local")),
        ("  local  ", ModelSpec(kind="local", name="local")),
        ("local/x.gguf", ModelSpec(kind="local", name="local/x.gguf", path="x.gguf")),
        (
            "local//models/q.gguf",
            ModelSpec(kind="local", name="local//models/q.gguf", path="/models/q.gguf"),
        ),
        (
            "openai-compat/name@http://127.0.0.1:8000/v1",
            ModelSpec(kind="openai-compat", name="name", base_url="http://127.0.0.1:8000/v1"),
        ),
        (
            "openai-compat/org/model@v2@https://host.example:443/v1",
            ModelSpec(
                kind="openai-compat", name="org/model@v2", base_url="https://host.example:443/v1"
            ),
        ),
        (
            "openai-compat/Qwen/Qwen2.5-0.5B@http://localhost:8080/v1",
            ModelSpec(
                kind="openai-compat", name="Qwen/Qwen2.5-0.5B", base_url="http://localhost:8080/v1"
            ),
        ),
        ("openai/gpt-4o", ModelSpec(kind="openai", name="gpt-4o", base_url=OPENAI_BASE_URL)),
        ("fake/const:42", ModelSpec(kind="fake", name="const:42")),
    ],
)
def test_parse_model(spec: str, expected: ModelSpec) -> None:
    assert parse_model(spec) == expected


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("", "bad model string"),
        ("gpt-4o", "bad model string"),
        ("Local", "bad model string"),
        ("local/", "bad model string"),
        ("openai/", "bad model string"),
        ("fake/", "bad model string"),
        ("openai-compat/name", "expected openai-compat/NAME@http"),
        ("openai-compat/@http://127.0.0.1:8000/v1", "expected openai-compat/NAME@http"),
        ("openai-compat/name@", "expected openai-compat/NAME@http"),
        ("openai-compat/name@ftp://host/v1", "bad base URL"),
        ("openai-compat/name@http://", "bad base URL"),
        ("openai-compat/name@127.0.0.1:8000/v1", "bad base URL"),
        ("cohere/command", "unknown provider 'cohere'"),
    ],
)
def test_parse_model_rejects(spec: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_model(spec)
    assert fragment in str(info.value)


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("PROCTOR_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return monkeypatch


def _var(spec: str) -> str | None:
    return key_sources([spec])[spec].var


def test_api_key_precedence_at_openai(no_keys: pytest.MonkeyPatch) -> None:
    assert _var("openai/gpt-4o") == "OPENAI_API_KEY"  # unset: make_provider refuses
    no_keys.setenv("OPENAI_API_KEY", "sk-openai")
    assert _var("openai/gpt-4o") == "OPENAI_API_KEY"
    no_keys.setenv("PROCTOR_API_KEY", "sk-proctor")
    assert _var("openai/gpt-4o") == "PROCTOR_API_KEY"
    no_keys.setenv("PROCTOR_API_KEY", "")
    assert _var("openai/gpt-4o") == "OPENAI_API_KEY"


def test_openai_key_never_goes_to_an_openai_compat_host(no_keys: pytest.MonkeyPatch) -> None:
    spec = "openai-compat/m@http://127.0.0.1:1/v1"
    no_keys.setenv("OPENAI_API_KEY", "sk-openai")
    assert _var(spec) is None
    no_keys.setenv("PROCTOR_API_KEY", "sk-proctor")
    assert _var(spec) == "PROCTOR_API_KEY"


@pytest.mark.parametrize("spec", ["local", "fake/const:1"])
def test_no_key_for_keyless_providers(no_keys: pytest.MonkeyPatch, spec: str) -> None:
    no_keys.setenv("PROCTOR_API_KEY", "sk-proctor")
    no_keys.setenv("OPENAI_API_KEY", "sk-openai")
    assert _var(spec) is None


def test_openai_without_a_key_is_a_config_error(no_keys: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="PROCTOR_API_KEY"):
        make_provider("openai/x")


async def test_openai_with_a_key_makes_an_http_provider(no_keys: pytest.MonkeyPatch) -> None:
    no_keys.setenv("OPENAI_API_KEY", "sk-test-SECRET-123")
    provider = make_provider("openai/x")
    try:
        assert isinstance(provider, OpenAICompatProvider)
        assert provider.name == "openai/x"
    finally:
        await provider.aclose()


async def test_openai_compat_needs_no_key(no_keys: pytest.MonkeyPatch) -> None:
    provider = make_provider("openai-compat/m@http://127.0.0.1:9/v1")
    try:
        assert isinstance(provider, OpenAICompatProvider)
        assert provider.name == "openai-compat/m@http://127.0.0.1:9/v1"
    finally:
        await provider.aclose()


async def test_fake_const_replies_with_its_text() -> None:
    provider = make_provider("fake/const:42")
    assert isinstance(provider, FakeProvider)
    assert provider.name == "fake/const:42"
    prompt = Prompt((Message("user", "q"),), "B", "en")
    completion = await provider.complete(prompt, GenerationParams())
    assert completion.text == "42"
    assert completion.finish_reason == "stop"


async def test_fake_models_from_a_model_string_keep_no_prompts() -> None:
    # A CLI run of 100,000 samples against fake/ must not hold every prompt; tests that build
    # a FakeProvider themselves still get the log.
    made = make_provider("fake/const:42")
    mine = FakeProvider("fake/mine", "42")
    prompt = Prompt((Message("user", "q"),), "B", "en")
    for provider in (made, mine):
        for _ in range(3):
            await provider.complete(prompt, GenerationParams())
    assert isinstance(made, FakeProvider)
    assert (made.calls, made.prompts) == (3, [])
    assert (mine.calls, len(mine.prompts)) == (3, 3)


@pytest.mark.parametrize("spec", ["fake/x", "fake/echo:1", "fake/Const:1"])
def test_unknown_fake_model_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="unknown fake model"):
        make_provider(spec)


def test_local_model_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no GGUF model file"):
        make_provider(f"local/{tmp_path / 'missing.gguf'}")


def test_bad_model_string_is_a_config_error_from_make_provider() -> None:
    with pytest.raises(ConfigError, match="bad model string"):
        make_provider("nonsense")
