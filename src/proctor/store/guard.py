"""A last line of defence: a run's config must never carry a credential into the store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.errors import StoreError

_SECRET_WORDS = ("api_key", "apikey", "secret", "token")
_ALLOWED = frozenset({"max_tokens"})


def _is_secret_name(name: str) -> bool:
    lowered = name.lower().replace("-", "_")
    return lowered not in _ALLOWED and any(word in lowered for word in _SECRET_WORDS)


def _is_count(value: object) -> bool:
    """A number, a flag or nothing: a limit such as `tokens_per_minute`, never a credential."""
    return value is None or isinstance(value, bool | int | float)


def refuse_secrets(config: Mapping[str, object], where: str = "config") -> None:
    """Raise StoreError if any key (at any depth) names an API key, secret or token.

    Keys are matched case-insensitively on "api_key", "apikey", "secret" and "token"; "max_tokens"
    is allowed, and so is any such key whose value is a number, a bool or null (a token limit or
    budget is a count, not a credential).
    """
    for key, value in config.items():
        path = f"{where}.{key}"
        if _is_secret_name(str(key)) and not _is_count(value):
            raise StoreError(
                f"refusing to store {path}: it looks like a credential, and API keys, secrets "
                "and tokens never reach the run store"
            )
        _walk(value, path)


def _walk(value: object, where: str) -> None:
    if isinstance(value, Mapping):
        refuse_secrets(value, where)
    elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
        for i, item in enumerate(value):
            _walk(item, f"{where}[{i}]")
