"""Model strings → providers.

    local                              the embedded SmolLM2-135M-Instruct (default)
    local/PATH.gguf                    any other GGUF file
    openai-compat/NAME@URL             any /v1/chat/completions endpoint at base URL
    openai/NAME                        OpenAI's API
    anthropic/NAME                     Anthropic's Messages API
    openai/NAME@URL, anthropic/NAME@URL   the same APIs at a gateway or proxy; without @URL,
                                       OPENAI_BASE_URL / ANTHROPIC_BASE_URL when set
    PLUGIN/NAME[@URL]                  a provider an installed package declares (entry point
                                       group "proctor.providers")
    fake/const:TEXT                    a scripted reply, for trying the pipe without a model
    M+calculator                       model M with a calculator tool offered (function calling)

A key goes only to the host it belongs to (`proctor.providers.keys`): OPENAI_API_KEY only to
OpenAI's API, ANTHROPIC_API_KEY only to Anthropic's; any other host gets a key only from a variable
named for it (--api-key-env MODEL=VAR), or from PROCTOR_API_KEY when the run has one host. Keys
are passed to the adapter's headers and nowhere else."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast
from urllib.parse import ParseResult, parse_qsl, urlparse

from proctor._util.variants import split_variant
from proctor.errors import ConfigError, ProctorError
from proctor.plugins import PROVIDER_GROUP, PluginTable
from proctor.providers.base import Provider
from proctor.providers.keys import (
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
    (
        "openai/NAME@URL, anthropic/NAME@URL",
        "the same APIs at a gateway or proxy (also: OPENAI_BASE_URL, ANTHROPIC_BASE_URL)",
        "--api-key-env NAME=VAR; else PROCTOR_API_KEY when it is the run's only host; "
        "the provider's own variable only at its official URL; else none",
    ),
    (
        "PLUGIN/NAME[@URL]",
        "a provider of an installed package (entry point group proctor.providers)",
        "with @URL as openai-compat; without, the plugin reads its own credentials",
    ),
    ("fake/const:TEXT", "always replies TEXT (try the pipe without a model)", "none"),
    ("M+calculator", "model M offered a calculator tool (function calling)", "as M"),
)
"""(model string, what it is, where its key comes from): `proctor list models`."""

DEFAULT_MODEL = "local"
CALCULATOR_SUFFIX = "+calculator"
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1"


@dataclass(frozen=True)
class ModelSpec:
    """A model string read: what a provider factory (built-in or a plugin's) is given."""

    kind: str
    """The provider: "local", "openai-compat", "openai", "anthropic", "fake" or a plugin's name."""
    name: str
    """The model's name at its provider (after "KIND/", before "@URL")."""
    base_url: str = ""
    """Where it is asked ("" for an in-process model, or a plugin model without @URL)."""
    path: str = ""
    """A local GGUF file."""
    model: str = field(default="", compare=False)
    """The model string as written (a provider reports it as its name)."""

    def key_target(self, model: str) -> KeyTarget:
        """What the key rule needs to know of this model (`proctor.providers.keys`): a model
        with no URL takes no key from proctor (local, fake, a plugin that reads its own
        credentials); any other goes to its URL's host."""
        if self.kind in ("local", "fake") or not self.base_url:
            return KeyTarget(model, self.name, "", official=False)
        host = host_of(self.base_url)
        official = self.kind in KEYED_KINDS and is_official(self.base_url, host)
        return KeyTarget(model, self.name, host, official=official)


ProviderFactory = Callable[[ModelSpec, str | None], Provider]
"""How a provider is made: (the model string read, its key or None) → the provider. The built-in
providers and a plugin's (entry point group "proctor.providers") have this one shape."""


def _check_factory(loaded: object) -> ProviderFactory:
    if not callable(loaded):
        raise TypeError(f"expected a callable (spec, api_key) -> provider, got {type(loaded)}")
    return cast(ProviderFactory, loaded)


PROVIDERS: PluginTable[ProviderFactory] = PluginTable(PROVIDER_GROUP, "provider", _check_factory)
"""Model string kinds → provider factories: the built-in ones below, then installed plugins."""


def with_calculator(model: str) -> bool:
    """Whether a model string asks for the calculator tool to be offered."""
    return split_variant(model)[0].endswith(CALCULATOR_SUFFIX)


def bare_model(model: str) -> str:
    """The model string without its `+calculator` suffix (and a prompt matrix's variant)."""
    s = split_variant(model)[0]
    return s[: -len(CALCULATOR_SUFFIX)] if s.endswith(CALCULATOR_SUFFIX) else s


def parse_model(spec: str, environ: Mapping[str, str] | None = None) -> ModelSpec:
    """A model string read. `openai/NAME` and `anthropic/NAME` without `@URL` go to the URL in
    OPENAI_BASE_URL / ANTHROPIC_BASE_URL when set (as the providers' SDKs read them), else to the
    official API; `environ` is where those are read (default: this process's environment)."""
    return replace(_parse_model(spec, environ), model=spec)


def _parse_model(spec: str, environ: Mapping[str, str] | None) -> ModelSpec:
    s = bare_model(spec)
    if s == "local":
        return ModelSpec(kind="local", name="local")
    kind, sep, rest = s.partition("/")
    if not sep or not rest:
        raise ConfigError(
            f"bad model string {spec!r}: expected local, local/PATH.gguf, "
            "openai-compat/NAME@URL, openai/NAME[@URL], anthropic/NAME[@URL], fake/const:TEXT "
            "or PLUGIN/NAME[@URL]"
        )
    if kind == "local":
        return ModelSpec(kind="local", name=s, path=rest)
    if kind == "fake":
        return ModelSpec(kind="fake", name=rest)
    if kind == "openai-compat":
        name, url = split_name_url(rest, spec)
        return ModelSpec(kind="openai-compat", name=name, base_url=url)
    if kind in _GATEWAY_VARS:
        if _URL_START.search(rest):
            name, url = split_name_url(rest, spec)
            return ModelSpec(kind=kind, name=name, base_url=url)
        return ModelSpec(kind=kind, name=rest, base_url=_base_url(kind, rest, environ))
    if PROVIDERS.get(kind) is None:
        raise ConfigError(
            f"unknown provider {kind!r} in {spec!r}: use {', '.join(PROVIDERS.names())} "
            f"(or install the package whose {PROVIDER_GROUP!r} entry point is named {kind!r})"
        )
    if _URL_START.search(rest):
        name, url = split_name_url(rest, spec)
        return ModelSpec(kind=kind, name=name, base_url=url)
    return ModelSpec(kind=kind, name=rest)


_GATEWAY_VARS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
_OFFICIAL_URLS = {"openai": OPENAI_BASE_URL, "anthropic": ANTHROPIC_BASE_URL}


def _base_url(kind: str, name: str, environ: Mapping[str, str] | None) -> str:
    """The official API's base URL, or the SDK's environment variable's (checked like a model
    string's URL). Anthropic's SDK reads ANTHROPIC_BASE_URL without the /v1 it adds itself."""
    var = _GATEWAY_VARS[kind]
    given = ((os.environ if environ is None else environ).get(var) or "").strip()
    if not given:
        return _OFFICIAL_URLS[kind]
    if kind == "anthropic" and not given.rstrip("/").endswith("/v1"):
        given = given.rstrip("/") + "/v1"
    try:
        return split_name_url(f"{name}@{given}", f"{kind}/{name}@{given}")[1]
    except ConfigError as e:
        raise ConfigError(f"{var} (the base URL of {kind}/{name}): {e}") from None


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
    """The provider for a model string, made by its kind's factory in `PROVIDERS`. `key` says
    where its key comes from (`key_sources` of everything the command calls); None: the model
    alone, as if it were the run's only one. `environ`: where the key's value is read (default:
    this process's environment)."""
    spec = parse_model(model, environ)
    factory = PROVIDERS.get(spec.kind)
    if factory is None:  # parse_model found it a moment ago
        raise ConfigError(f"unknown provider {spec.kind!r} in {model!r}")
    source = key or key_sources([model])[model]
    target = spec.key_target(model)
    if source.host and target.host and source.host != target.host:
        # The key was planned for another host (a base-URL variable differs between the machine
        # that started the run and this one, e.g. a Ray worker): it must not go here.
        raise ConfigError(
            f"{model} would be asked at {target.host}, but its key was planned for "
            f"{source.host} (OPENAI_BASE_URL / ANTHROPIC_BASE_URL differ between the machine "
            "that started the run and this one?): refused, so the key goes nowhere else"
        )
    secret = source.read(environ)
    if spec.kind in _OFFICIAL_VARS and target.official and not secret:
        raise ConfigError(_needs_a_key(model, source, _OFFICIAL_VARS[spec.kind]))
    if spec.kind in BUILTIN_KINDS:
        return factory(spec, secret)
    try:
        made = factory(spec, secret)
    except ProctorError:
        raise
    # A plugin's factory is other people's code: its failure is a usage error of that plugin.
    except Exception as e:
        raise ConfigError(
            f"plugin {spec.kind!r} failed to make a provider for {model!r}: "
            f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
        ) from None
    from proctor.providers.plugin import PluginProvider

    return PluginProvider(f"plugin {spec.kind!r}", made)


_OFFICIAL_VARS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def _local(spec: ModelSpec, _key: str | None) -> Provider:
    from proctor.providers.local import LocalProvider

    return LocalProvider(spec.model, Path(spec.path) if spec.path else None)


def _openai(spec: ModelSpec, key: str | None) -> Provider:
    from proctor.providers.openai_compat import OpenAICompatProvider

    target = spec.key_target(spec.model)
    hint = "" if key or not target.host else key_hint(target)  # said on a 401 from a keyless host
    return OpenAICompatProvider(spec.model, spec.name, spec.base_url, key, auth_hint=hint)


def _anthropic(spec: ModelSpec, key: str | None) -> Provider:
    from proctor.providers.anthropic import AnthropicProvider

    return AnthropicProvider(spec.model, spec.name, key, base_url=spec.base_url)


def _fake(spec: ModelSpec, _key: str | None) -> Provider:
    from proctor.providers.fake import FakeProvider, constant_reply

    mode, _, arg = spec.name.partition(":")
    if mode != "const":
        raise ConfigError(f"unknown fake model {'fake/' + spec.name!r}: use fake/const:TEXT")
    return FakeProvider(spec.model, constant_reply(arg), keep_prompts=False)


def _builtin(factory: ProviderFactory) -> Callable[[], ProviderFactory]:
    return lambda: factory


BUILTIN_KINDS: dict[str, ProviderFactory] = {
    "local": _local,
    "openai-compat": _openai,
    "openai": _openai,
    "anthropic": _anthropic,
    "fake": _fake,
}
for _kind, _factory in BUILTIN_KINDS.items():
    PROVIDERS.register(_kind, _builtin(_factory))


def _needs_a_key(model: str, source: KeySource, own: str) -> str:
    return (
        f"{model} needs a key ({source.var or own} is not set): set {own}, or "
        f"PROCTOR_API_KEY when it is the run's only host, or name a variable with "
        f"--api-key-env {model}=VAR"
    )
