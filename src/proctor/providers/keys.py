"""Which environment variable each model's key comes from — the name, never the value.

The rule: a key goes only to the host it belongs to. `OPENAI_API_KEY` goes only to OpenAI's API
(https://api.openai.com), `ANTHROPIC_API_KEY` only to Anthropic's; any other host gets a key only
from a variable named for it (`--api-key-env MODEL=VAR`), or from `PROCTOR_API_KEY` when the run
talks to one host only. One variable never goes to two hosts: a run that would send it to
several is refused before any call.

For each keyed model, in order: the variable named for it; `PROCTOR_API_KEY` when set and the
run has one keyed host; the provider's own variable when the model's URL is that provider's
official host; else no key at all (an `openai-compat/` server that needs none is fine; `openai/`
and `anthropic/` at their official URL refuse to start without one, see
`registry.make_provider`; at a gateway they may go keyless).

The choice is made where the run starts, from variable names; a value is read where the model is
asked (a Ray worker reads its own environment), so `check_set=False` skips the check that a
named variable is set here."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlparse

from proctor.errors import ConfigError

SHARED_VAR = "PROCTOR_API_KEY"
OPENAI_VAR = "OPENAI_API_KEY"
ANTHROPIC_VAR = "ANTHROPIC_API_KEY"
OPENAI_HOST = "api.openai.com:443"
ANTHROPIC_HOST = "api.anthropic.com:443"
KEYED_KINDS = ("openai-compat", "openai", "anthropic")

_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# An official host only in its plain form: https, the exact name, the default port, no user
# part, no backslash (parsers disagree about such URLs, and a key must not ride on a guess).
_OFFICIAL = {
    OPENAI_HOST: re.compile(r"https://api\.openai\.com(?::443)?(?:/[^@\\#?]*)?", re.IGNORECASE),
    ANTHROPIC_HOST: re.compile(
        r"https://api\.anthropic\.com(?::443)?(?:/[^@\\#?]*)?", re.IGNORECASE
    ),
}
_OWN_VAR = {OPENAI_HOST: OPENAI_VAR, ANTHROPIC_HOST: ANTHROPIC_VAR}


@dataclass(frozen=True)
class KeyTarget:
    """What the key rule needs to know of a model: its string, its name, where it is sent."""

    model: str
    name: str
    host: str
    """host:port of the base URL, lower case ("" for a model that takes no key)."""
    official: bool
    """The URL is its provider's official API, in plain form (its own variable may go there)."""


@dataclass(frozen=True)
class KeySource:
    """Where one model's key comes from. Picklable: Ray workers read `var` from their own
    environment, so the value never travels with the work."""

    model: str
    host: str
    var: str | None
    """The environment variable the key is read from; None: no key is sent."""
    why: str
    """In words, for the run header and `--estimate`."""

    def read(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The key's value, or None when no variable applies or it is unset or empty."""
        if self.var is None:
            return None
        return (os.environ if environ is None else environ).get(self.var) or None


def host_of(url: str) -> str:
    """host:port of a base URL (the port defaulted from the scheme), lower case. A URL with a
    user part or a backslash is its own host, matching no other: what a client would connect
    to is not certain, so it must share no key with anything."""
    parsed = urlparse(url)
    if "@" in parsed.netloc or "\\" in parsed.netloc:
        return parsed.netloc.lower()
    try:
        port = parsed.port
    except ValueError:
        return parsed.netloc.lower()
    default = 443 if parsed.scheme == "https" else 80
    return f"{(parsed.hostname or '').rstrip('.')}:{port or default}".lower()


def is_official(url: str, host: str) -> bool:
    pattern = _OFFICIAL.get(host)
    return pattern is not None and pattern.fullmatch(url.strip()) is not None


def parse_key_env(entries: Iterable[str]) -> dict[str, str]:
    """`--api-key-env MODEL=VAR` options → {MODEL: VAR}. MODEL is a model string or its name;
    VAR an environment variable's name (what is after the last "=")."""
    named: dict[str, str] = {}
    for entry in entries:
        selector, eq, var = entry.rpartition("=")
        selector, var = selector.strip(), var.strip()
        if not eq or not selector or not _VAR.fullmatch(var):
            raise ConfigError(
                f"bad --api-key-env {entry!r}: expected MODEL=VAR, where VAR is the name of "
                "an environment variable (its name, not the key)"
            )
        if named.get(selector, var) != var:
            raise ConfigError(f"--api-key-env names two variables for {selector!r}")
        named[selector] = var
    return named


def plan_keys(
    targets: Sequence[KeyTarget],
    named: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    check_set: bool = True,
) -> dict[str, KeySource]:
    """Every model's key source under the rule (module docstring); ConfigError, before any call,
    when a named variable is unset (with `check_set`), names no model of the run, or one variable
    would go to two hosts. Keyless models (local, fake) get a source with no variable."""
    env = os.environ if environ is None else environ
    named = dict(named or {})
    chosen = _named_vars(targets, named, env, check_set)
    keyed = [t for t in targets if t.host]
    hosts = {t.host for t in keyed}
    shared = bool(env.get(SHARED_VAR))
    out: dict[str, KeySource] = {}
    for t in targets:
        if not t.host:
            out[t.model] = KeySource(t.model, "", None, "takes no key")
        elif t.model in chosen:
            out[t.model] = KeySource(t.model, t.host, chosen[t.model], "named with --api-key-env")
        elif shared and len(hosts) == 1:
            out[t.model] = KeySource(t.model, t.host, SHARED_VAR, "the run's one host")
        elif t.official:
            own = _OWN_VAR[t.host]
            out[t.model] = KeySource(t.model, t.host, own, "the provider's own variable")
        else:
            out[t.model] = KeySource(t.model, t.host, None, _no_key_why(t, env))
    if shared and len(hosts) > 1:
        bare = [t for t in keyed if out[t.model].var is None]
        if bare:
            raise ConfigError(_shared_refusal(SHARED_VAR, keyed, bare))
    _refuse_shared(out, keyed)
    return out


def key_hint(target: KeyTarget) -> str:
    """How to give a model a key, for an authentication error from a host that got none."""
    return (
        f"no key was sent to {target.host}: set a variable with its key and name it with "
        f"--api-key-env {target.name}={_suggested_var(target)}"
    )


def _named_vars(
    targets: Sequence[KeyTarget], named: Mapping[str, str], env: Mapping[str, str], check_set: bool
) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for selector, var in named.items():
        matched = [t for t in targets if selector in (t.model, t.name)]
        if not matched:
            models = ", ".join(t.model for t in targets)
            raise ConfigError(
                f"--api-key-env {selector}={var} names no model of this run ({models})"
            )
        keyless = [t.model for t in matched if not t.host]
        if keyless:
            raise ConfigError(f"--api-key-env {selector}={var}: {keyless[0]} takes no key")
        if check_set and not env.get(var):
            raise ConfigError(f"--api-key-env {selector}={var}: {var} is not set (or is empty)")
        for t in matched:
            if chosen.get(t.model, var) != var:
                raise ConfigError(f"--api-key-env names two variables for {t.model}")
            chosen[t.model] = var
    return chosen


def _no_key_why(t: KeyTarget, env: Mapping[str, str]) -> str:
    held = [(var, host) for host, var in _OWN_VAR.items() if env.get(var)]
    lent = f"{held[0][0]} goes only to {held[0][1].removesuffix(':443')}; " if held else ""
    return f"{lent}if it needs one, --api-key-env {t.name}=VAR names it"


def _shared_refusal(var: str, keyed: Sequence[KeyTarget], bare: Sequence[KeyTarget]) -> str:
    hosts = sorted({t.host for t in keyed})
    per_host = " ".join(
        f"--api-key-env {_selector(t, keyed)}={_suggested_var(t)}" for t in _one_per_host(bare)
    )
    return (
        f"{var} is set and this run talks to {len(hosts)} hosts ({', '.join(hosts)}): "
        f"one key must not go to all of them. Give each host its own variable and name it: "
        f"{per_host} (or unset {var})"
    )


def _refuse_shared(sources: Mapping[str, KeySource], keyed: Sequence[KeyTarget]) -> None:
    by_var: dict[str, dict[str, KeyTarget]] = {}
    for t in keyed:
        var = sources[t.model].var
        if var is not None:
            by_var.setdefault(var, {}).setdefault(t.host, t)
    for var, per_host in by_var.items():
        if len(per_host) > 1:
            suggest = " ".join(
                f"--api-key-env {_selector(t, keyed)}={_suggested_var(t)}"
                for t in per_host.values()
            )
            raise ConfigError(
                f"{var} would go to {len(per_host)} hosts ({', '.join(sorted(per_host))}): "
                f"a key goes to one host only. Give each host its own variable and name it: "
                f"{suggest}"
            )


def _one_per_host(targets: Sequence[KeyTarget]) -> list[KeyTarget]:
    seen: dict[str, KeyTarget] = {}
    for t in targets:
        seen.setdefault(t.host, t)
    return list(seen.values())


def _selector(t: KeyTarget, targets: Sequence[KeyTarget]) -> str:
    """The model's name where it names no model on another host, else its full string."""
    clash = any(o.host != t.host and t.name in (o.name, o.model) for o in targets)
    return t.model if clash else t.name


def _suggested_var(t: KeyTarget) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", t.name).strip("_").upper() or "MODEL"
    if stem[0].isdigit():
        stem = "M_" + stem
    return f"{stem}_API_KEY"
