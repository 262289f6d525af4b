"""Model strings → providers.

    local                              the embedded SmolLM2-135M-Instruct (default)
    local/PATH.gguf                    any other GGUF file
    openai-compat/NAME@URL             any /v1/chat/completions endpoint at base URL
    openai/NAME                        OpenAI's API
    anthropic/NAME                     Anthropic's Messages API
    anthropic/NAME@URL                 the same API served at base URL (e.g. a test server)
    fake/const:TEXT                    a scripted reply, for trying the pipe without a model
    M+calculator                       model M with a calculator tool offered (function calling)

Keys come from the environment: PROCTOR_API_KEY first, then the provider's usual variable
(OPENAI_API_KEY, ANTHROPIC_API_KEY). They are passed to the adapter's headers and nowhere else."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import ParseResult, parse_qsl, urlparse

from proctor.errors import ConfigError
from proctor.providers.base import Provider

DEFAULT_MODEL = "local"
CALCULATOR_SUFFIX = "+calculator"
OPENAI_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ModelSpec:
    kind: str
    name: str
    base_url: str = ""
    path: str = ""

    @property
    def key_env(self) -> tuple[str, ...]:
        if self.kind in ("openai-compat", "openai"):
            return ("PROCTOR_API_KEY", "OPENAI_API_KEY")
        if self.kind == "anthropic":
            return ("PROCTOR_API_KEY", "ANTHROPIC_API_KEY")
        return ()


def with_calculator(model: str) -> bool:
    """Whether a model string asks for the calculator tool to be offered."""
    return model.strip().endswith(CALCULATOR_SUFFIX)


def bare_model(model: str) -> str:
    """The model string without its `+calculator` suffix."""
    s = model.strip()
    return s[: -len(CALCULATOR_SUFFIX)] if s.endswith(CALCULATOR_SUFFIX) else s


def parse_model(spec: str) -> ModelSpec:
    s = bare_model(spec)
    if s == "local":
        return ModelSpec(kind="local", name="local")
    kind, sep, rest = s.partition("/")
    if not sep or not rest:
        raise ConfigError(
            f"bad model string {spec!r}: expected local, local/PATH.gguf, "
            "openai-compat/NAME@URL, openai/NAME, anthropic/NAME or fake/const:TEXT"
        )
    if kind == "local":
        return ModelSpec(kind="local", name=s, path=rest)
    if kind == "openai-compat":
        name, url = split_name_url(rest, spec)
        return ModelSpec(kind="openai-compat", name=name, base_url=url)
    if kind == "openai":
        return ModelSpec(kind="openai", name=rest, base_url=OPENAI_BASE_URL)
    if kind == "anthropic":
        # anthropic/NAME, or anthropic/NAME@URL: a server that speaks Anthropic's API elsewhere
        name, at, url = rest.rpartition("@")
        if not at:
            return ModelSpec(kind="anthropic", name=rest)
        parsed = urlparse(url)
        if not name or parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"bad model string {spec!r}: expected anthropic/NAME[@URL]")
        return ModelSpec(kind="anthropic", name=name, base_url=url)
    if kind == "fake":
        return ModelSpec(kind="fake", name=rest)
    raise ConfigError(
        f"unknown provider {kind!r} in {spec!r}: "
        "use local, openai-compat, openai, anthropic or fake"
    )


_URL_START = re.compile(r"@(?=https?://)", re.IGNORECASE)
_SECRET_PARAM = re.compile(r"key|token|secret|password|passwd|auth|sig|credential", re.IGNORECASE)
_FORMAT = "expected openai-compat/NAME@http://host:port/v1"


def split_name_url(rest: str, spec: str) -> tuple[str, str]:
    """NAME and base URL of "NAME@URL": split where the URL begins (its "@http(s)://"), so an
    "@" inside the URL (userinfo) or the name never moves the split. A URL that carries a key
    (userinfo, or a query parameter named like one) is refused, and no message repeats it."""
    found = _URL_START.search(rest)
    name, at, after = rest.partition("@")
    if found is None and at and name and after:
        raise ConfigError(
            f"bad base URL in {_kind_of(spec) + '/' + name + '@…'!r}: expected "
            "http(s)://host:port/v1"
        )
    if found is None or found.start() == 0:
        raise ConfigError(f"bad model string {_kind_of(spec)!r}…: {_FORMAT}")
    name, url = rest[: found.start()], rest[found.end() :]
    parsed = urlparse(url)
    shown = f"{_kind_of(spec)}/{name}@{_safe_url(parsed)}"
    # Any "@" before the query is userinfo, however the parser splits it ("u:a/b@h" keeps a
    # key with a "/" out of `password` and in the path).
    if "@" in url.split("?")[0].split("#")[0]:
        shown = f"{_kind_of(spec)}/{name}@{parsed.scheme}://…"
    if "@" in url.split("?")[0].split("#")[0] or parsed.password is not None:
        raise ConfigError(
            f"model string {shown!r}: its URL holds credentials (user:KEY@host, not shown); "
            "put the key in PROCTOR_API_KEY instead, never in the model string"
        )
    secret_params = [k for k, _ in parse_qsl(parsed.query, keep_blank_values=True)
                     if _SECRET_PARAM.search(k)]  # fmt: skip
    if secret_params:
        raise ConfigError(
            f"model string {shown!r}: its URL holds a key (query parameter "
            f"{secret_params[0][:40]!r}, not shown); put the key in PROCTOR_API_KEY instead, "
            "never in the model string (a key in a URL ends up in logs, the store and reports)"
        )
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"bad base URL in {shown!r}: expected http(s)://host:port/v1")
    try:
        parsed.port  # noqa: B018 - reading it checks it ("host:99999" or "host:x" raise)
    except ValueError:
        raise ConfigError(
            f"bad base URL in {shown!r}: the port is not a number from 0 to 65535"
        ) from None
    return name, url


def _kind_of(spec: str) -> str:
    return bare_model(spec).partition("/")[0]


def _safe_url(parsed: ParseResult) -> str:
    """The URL as an error message may show it: scheme, host, port and path only (userinfo
    and query may hold a key)."""
    host = parsed.netloc.rpartition("@")[2]
    rest = "?…" if parsed.query else ""
    return f"{parsed.scheme}://{host}{parsed.path}{rest}"


def api_key_for(spec: ModelSpec) -> str | None:
    for var in spec.key_env:
        value = os.environ.get(var)
        if value:
            return value
    return None


def make_provider(model: str) -> Provider:
    spec = parse_model(model)
    if spec.kind == "local":
        from proctor.providers.local import LocalProvider

        return LocalProvider(model, Path(spec.path) if spec.path else None)
    if spec.kind in ("openai-compat", "openai"):
        from proctor.providers.openai_compat import OpenAICompatProvider

        key = api_key_for(spec)
        if spec.kind == "openai" and not key:
            raise ConfigError("openai/ models need a key in PROCTOR_API_KEY or OPENAI_API_KEY")
        return OpenAICompatProvider(model, spec.name, spec.base_url, key)
    if spec.kind == "anthropic":
        from proctor.providers.anthropic import AnthropicProvider

        key = api_key_for(spec)
        if not key:
            raise ConfigError(
                "anthropic/ models need a key in PROCTOR_API_KEY or ANTHROPIC_API_KEY"
            )
        if spec.base_url:
            return AnthropicProvider(model, spec.name, key, base_url=spec.base_url)
        return AnthropicProvider(model, spec.name, key)
    from proctor.providers.fake import FakeProvider, constant_reply

    mode, _, arg = spec.name.partition(":")
    if mode != "const":
        raise ConfigError(f"unknown fake model {model!r}: use fake/const:TEXT")
    return FakeProvider(model, constant_reply(arg), keep_prompts=False)
