"""Model strings → providers.

    local                              the embedded SmolLM2-135M-Instruct (default)
    local/PATH.gguf                    any other GGUF file
    openai-compat/NAME@URL             any /v1/chat/completions endpoint at base URL
    openai/NAME                        OpenAI's API
    anthropic/NAME                     Anthropic's Messages API
    anthropic/NAME@URL                 the same API served at base URL (e.g. a test server)
    fake/const:TEXT                    a scripted reply, for trying the pipe without a model
    M+calculator                       model M with a calculator tool offered (function calling)

A key goes only to the host it belongs to (`proctor.providers.keys`): OPENAI_API_KEY only to
OpenAI's API, ANTHROPIC_API_KEY only to Anthropic's; any other host gets a key only from a variable
named for it (--api-key-env MODEL=VAR), or from PROCTOR_API_KEY when the run has one host. Keys
are passed to the adapter's headers and nowhere else."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import ParseResult, parse_qsl, urlparse

from proctor.errors import ConfigError
from proctor.providers.base import Provider
from proctor.providers.keys import (
    ANTHROPIC_HOST,
    KEYED_KINDS,
    KeySource,
    KeyTarget,
    host_of,
    is_official,
    key_hint,
    plan_keys,
)

MODEL_FORMS: tuple[tuple[str, str, str], ...] = (
    ("local", "the embedded SmolLM2-135M-Instruct (default)", "none"),
    ("local/PATH.gguf", "any other GGUF file, run in-process", "none"),
    (
        "openai-compat/NAME@URL",
        "any /v1/chat/completions endpoint at base URL",
        "--api-key-env NAME=VAR; else PROCTOR_API_KEY when it is the run's only host; "
        "OPENAI_API_KEY only at https://api.openai.com; else none",
    ),
    (
        "openai/NAME",
        "OpenAI's API",
        "--api-key-env NAME=VAR; else PROCTOR_API_KEY when it is the run's only host; "
        "else OPENAI_API_KEY",
    ),
    (
        "anthropic/NAME",
        "Anthropic's Messages API",
        "--api-key-env NAME=VAR; else PROCTOR_API_KEY when it is the run's only host; "
        "else ANTHROPIC_API_KEY",
    ),
    ("fake/const:TEXT", "always replies TEXT (try the pipe without a model)", "none"),
    ("M+calculator", "model M offered a calculator tool (function calling)", "as M"),
)
"""(model string, what it is, where its key comes from): `proctor list models`."""

DEFAULT_MODEL = "local"
CALCULATOR_SUFFIX = "+calculator"
OPENAI_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ModelSpec:
    kind: str
    name: str
    base_url: str = ""
    path: str = ""

    def key_target(self, model: str) -> KeyTarget:
        """What the key rule needs to know of this model (`proctor.providers.keys`)."""
        if self.kind not in KEYED_KINDS:
            return KeyTarget(model, self.name, "", official=False)
        if self.kind == "anthropic" and not self.base_url:  # anthropic/NAME: Anthropic's own
            return KeyTarget(model, self.name, ANTHROPIC_HOST, official=True)
        host = host_of(self.base_url)
        return KeyTarget(model, self.name, host, official=is_official(self.base_url, host))


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
            "put the key in an environment variable instead (PROCTOR_API_KEY for a run of one "
            "host, or one named with --api-key-env NAME=VAR), never in the model string"
        )
    secret_params = [k for k, _ in parse_qsl(parsed.query, keep_blank_values=True)
                     if _SECRET_PARAM.search(k)]  # fmt: skip
    if secret_params:
        raise ConfigError(
            f"model string {shown!r}: its URL holds a key (query parameter "
            f"{secret_params[0][:40]!r}, not shown); put the key in an environment variable "
            "instead (PROCTOR_API_KEY for a run of one host, or one named with --api-key-env "
            "NAME=VAR), never in the model string (a key in a URL ends up in logs, the store "
            "and reports)"
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


def key_sources(
    models: Sequence[str], named: Mapping[str, str] | None = None, *, check_set: bool = True
) -> dict[str, KeySource]:
    """Where each model's key comes from, under the key rule, for the models called together
    (a run's models and its judge); ConfigError before any call when the rule refuses.
    `check_set=False`: named variables are read elsewhere (Ray workers), not checked here."""
    targets = [parse_model(m).key_target(m) for m in models]
    return plan_keys(targets, named, check_set=check_set)


def make_provider(
    model: str, key: KeySource | None = None, *, environ: Mapping[str, str] | None = None
) -> Provider:
    """The provider for a model string. `key` says where its key comes from (`key_sources` of
    everything the command calls); None: the model alone, as if it were the run's only one.
    `environ`: where the key's value is read (default: this process's environment)."""
    spec = parse_model(model)
    if spec.kind == "local":
        from proctor.providers.local import LocalProvider

        return LocalProvider(model, Path(spec.path) if spec.path else None)
    source = key or key_sources([model])[model]
    secret = source.read(environ)
    if spec.kind in ("openai-compat", "openai"):
        from proctor.providers.openai_compat import OpenAICompatProvider

        if spec.kind == "openai" and not secret:
            raise ConfigError(_needs_a_key(model, source, "OPENAI_API_KEY"))
        hint = "" if secret else key_hint(spec.key_target(model))
        return OpenAICompatProvider(model, spec.name, spec.base_url, secret, auth_hint=hint)
    if spec.kind == "anthropic":
        from proctor.providers.anthropic import AnthropicProvider

        if not secret:
            raise ConfigError(_needs_a_key(model, source, "ANTHROPIC_API_KEY"))
        if spec.base_url:
            return AnthropicProvider(model, spec.name, secret, base_url=spec.base_url)
        return AnthropicProvider(model, spec.name, secret)
    from proctor.providers.fake import FakeProvider, constant_reply

    mode, _, arg = spec.name.partition(":")
    if mode != "const":
        raise ConfigError(f"unknown fake model {model!r}: use fake/const:TEXT")
    return FakeProvider(model, constant_reply(arg), keep_prompts=False)


def _needs_a_key(model: str, source: KeySource, own: str) -> str:
    return (
        f"{model} needs a key ({source.var or own} is not set): set {own}, or "
        f"PROCTOR_API_KEY when it is the run's only host, or name a variable with "
        f"--api-key-env {model}=VAR"
    )
