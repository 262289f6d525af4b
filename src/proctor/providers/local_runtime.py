"""Which llama.cpp binding runs a GGUF file in-process, behind one small interface.

Two runtimes serve the embedded model; the provider (`local.py`) sees only `ChatRuntime`:

- **xllamacpp**: a prebuilt manylinux wheel on PyPI, so set-up needs no compiler and takes
  seconds (what a fresh machine gets). Its x86_64 CPU build uses AVX2/FMA/F16C and nothing newer
  (no AVX-512, AVX-VNNI or AMX: the instructions whose "Illegal instruction" killed the native
  build on VMs); scripts/install-embedded.sh checks the CPU flags and smoke-tests a generation
  before keeping it.
- **llama-cpp-python**: built from source, portably (scripts/install-embedded.sh), and cached;
  taken first where this machine built it before, and the fallback where the prebuilt wheel does
  not install or does not run. Where both are installed it answers (it generates faster).

`PROCTOR_LOCAL_RUNTIME=xllamacpp|llama-cpp-python` picks one where both are installed
(docs/embedded-model.md).
Both are imported only when a local model is first asked (never at start-up)."""

from __future__ import annotations

import importlib.util
import os
import secrets
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypedDict, Unpack, cast

from proctor.errors import ConfigError

RUNTIME_ENV = "PROCTOR_LOCAL_RUNTIME"
# (distribution name, import name), preferred first
# Where both are installed, llama-cpp-python answers: on a 2-core box it generated 128 tokens in
# 2.0 s where xllamacpp 2026.10 took 8.8 s for 105 (and 67 s for its first call); xllamacpp is
# what a fresh machine gets without a build (scripts/install-embedded.sh).
RUNTIMES: tuple[tuple[str, str], ...] = (
    ("llama-cpp-python", "llama_cpp"),
    ("xllamacpp", "xllamacpp"),
)
INSTALL_HINT = (
    "run `bash scripts/setup.sh` (it installs the prebuilt xllamacpp wheel, or builds"
    " llama-cpp-python portably where that cannot run)"
)


class ChatRequest(TypedDict):
    """The arguments of one chat completion, as llama-cpp-python's `Llama.create_chat_completion`
    takes them and as xllamacpp's engine reads them (one OpenAI-shaped request)."""

    messages: list[dict[str, str]]
    temperature: float
    max_tokens: int
    seed: int


class ChatRuntime(Protocol):
    """What the provider needs: one chat completion as an OpenAI-shaped dict; `ValueError` for a
    request the model cannot take (too long), `RuntimeError` for a failure of the runtime."""

    def create_chat_completion(self, **request: Unpack[ChatRequest]) -> dict[str, Any]: ...

    def close(self) -> None: ...


def runtime_name() -> str | None:
    """The runtime a local model will use: the one named in PROCTOR_LOCAL_RUNTIME, else the first
    installed; None when none is. An unknown name is a ConfigError."""
    wanted = os.environ.get(RUNTIME_ENV, "").strip()
    if wanted:
        known = {dist: module for dist, module in RUNTIMES}
        if wanted not in known:
            names = ", ".join(known)
            raise ConfigError(f"{RUNTIME_ENV}={wanted!r} is not a local runtime (one of: {names})")
        return wanted if importlib.util.find_spec(known[wanted]) is not None else None
    for dist, module in RUNTIMES:
        if importlib.util.find_spec(module) is not None:
            return dist
    return None


def runtime_identity() -> str:
    """Names the runtime that decides a local model's replies, for cache keys. llama-cpp-python
    stays its bare version (the key it always had, so earlier cached answers still match)."""
    try:
        name = runtime_name()
    except ConfigError:
        name = None
    if name is None:
        return "not installed"
    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        version = "unknown"
    return version if name == "llama-cpp-python" else f"{name} {version}"


def load_runtime(path: Path, *, n_ctx: int, n_threads: int, seed: int = 0) -> ChatRuntime:
    """Loads the GGUF file with the chosen runtime; ConfigError when none is installed."""
    name = runtime_name()
    if name == "xllamacpp":
        return XLlamaCppRuntime(path, n_ctx=n_ctx, n_threads=n_threads)
    if name == "llama-cpp-python":
        from llama_cpp import Llama

        llama = Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False, seed=seed
        )
        return cast(ChatRuntime, llama)  # its typed signature is wider than ChatRuntime's
    raise ConfigError(f"no runtime for local models is installed: {INSTALL_HINT}")


class XLlamaCppRuntime:
    """xllamacpp's in-process llama.cpp server engine, asked directly (no HTTP).

    The engine also opens a listening socket on 127.0.0.1; it is given a random API key, so
    nothing else on the machine can use it. The prompt cache is off: a reply must not depend on
    which question was asked before it (a reused prefix is evaluated in other batch sizes, and
    float sums in another order can change a greedy pick)."""

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int) -> None:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.verbosity = -1  # llama.cpp's log lines would land on the user's terminal
        params.warmup = False
        params.cache_prompt = False
        params.api_keys = [secrets.token_hex(24)]
        self._server: Any = xllamacpp.Server(params)

    def create_chat_completion(self, **request: Unpack[ChatRequest]) -> dict[str, Any]:
        if self._server is None:
            raise RuntimeError("the local model was closed")
        out = self._server.handle_chat_completions(dict(request))
        if not isinstance(out, dict):
            raise RuntimeError(f"xllamacpp answered {type(out).__name__}, not an object")
        error = out.get("error")
        if error is not None:
            detail = error if isinstance(error, dict) else {"message": str(error)}
            message = str(detail.get("message") or detail)
            code = detail.get("code")
            if code == 400 or detail.get("type") in ("exceed_context_size_error",):
                raise ValueError(message)
            raise RuntimeError(message)
        return out

    def close(self) -> None:
        # The engine stops and frees the model when its last reference goes.
        self._server = None
