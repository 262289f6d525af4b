"""The API keys of this process, and their removal from any text before it is stored or printed.

A leaf. A provider that puts a key in a request header registers it here (`register_secret`);
every reply, error message and printed line then passes through `scrub`, which replaces the key
wherever it appears, also in the forms a server may echo it back in:

- as is, or with any of its characters escaped: JSON `\\u002d`, `\\x2d`, URL `%2D`, HTML
  `&#45;` / `&#x2d;` (in any mix, upper or lower case hex);
- base64 (standard or URL-safe) of the key inside a longer value, such as the encoded
  `Authorization: Bearer KEY` header, at any of the three alignments;
- hex of the key's bytes.

Keys shorter than `MIN_SECRET_LENGTH` are not scrubbed from text: "abc" would cut every reply
that contains the word; such a key is still only ever sent in a header.
"""

from __future__ import annotations

import base64
import re
import threading

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8
_MIN_ENCODED = 8

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


def register_secret(secret: str | None) -> None:
    """Remember `secret` so that `scrub` removes it (and its encodings) from all text."""
    global _pattern
    if not secret or len(secret) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if secret in _secrets:
            return
        _secrets.add(secret)
        _pattern = _build(_secrets)


def known_secrets() -> frozenset[str]:
    with _lock:
        return frozenset(_secrets)


def _char(c: str) -> str:
    """A regex for one character of a key, as written or escaped in any common way."""
    code = ord(c)
    forms = [re.escape(c)]
    if code < 0x10000:
        forms.append(rf"\\u{code:04x}")
    if code < 0x100:
        forms += [rf"\\x{code:02x}", f"%{code:02x}", f"&#0*{code};", f"&#x0*{code:x};"]
    return "(?:" + "|".join(forms) + ")"


def base64_cores(secret: bytes) -> list[str]:
    """Substrings that the base64 of any text containing `secret` must contain: one for each
    of the three byte alignments, the characters that depend on neighbouring bytes left off."""
    cores: list[str] = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + secret).decode()
        start = -(-offset * 4 // 3)  # characters touching the padding bytes before
        end = (offset + len(secret)) * 4 // 3  # characters made of the secret's bits only
        core = encoded[start:end]
        if len(core) >= _MIN_ENCODED:
            cores.append(core)
            urlsafe = core.replace("+", "-").replace("/", "_")
            if urlsafe != core:
                cores.append(urlsafe)
    return cores


def _build(secrets: set[str]) -> re.Pattern[str]:
    forms: list[str] = []
    for secret in sorted(secrets, key=len, reverse=True):
        forms.append("".join(_char(c) for c in secret))
        raw = secret.encode("utf-8")
        forms += [re.escape(core) for core in base64_cores(raw)]
        forms.append(re.escape(raw.hex()))
    return re.compile("|".join(forms), re.IGNORECASE)


def scrub(text: str) -> tuple[str, int]:
    """`text` with every registered key (in every form above) replaced by `[redacted]`, and how
    many were replaced."""
    pattern = _pattern
    if pattern is None or not text:
        return text, 0
    return pattern.subn(REDACTED, text)


def scrubbed(text: str) -> str:
    """`scrub` without the count."""
    return scrub(text)[0]
