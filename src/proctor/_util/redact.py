"""The API keys of this process, and their removal from any text before it is stored or printed.

A leaf. A provider that puts a key in a request header registers it here (`register_secret`);
every reply, error message and printed line then passes through `scrub`, which replaces the key
wherever it appears, also in the forms a server may echo it back in:

- as is, or with any of its characters escaped: JSON `\\u002d`, `\\x2d`, URL `%2D`, HTML
  `&#45;` / `&#x2d;` (in any mix, upper or lower case hex);
- base64 (standard or URL-safe) of the key inside a longer value, such as the encoded
  `Authorization: Bearer KEY` header, at any of the three alignments;
- hex of the key's bytes;
- disguised: forwards or reversed, in any letter case, with anything between its letters and
  digits (dashes, spaces, U+2011 non-breaking hyphens, zero-width spaces and other invisible
  format characters, accents), and with look-alike characters (full-width and mathematical
  letters, Cyrillic, Greek and Armenian homoglyphs, 0 for O, 1 or I for l). Text and key are
  both folded to a skeleton of letters and digits (`skeleton`), the key's skeleton is searched
  for in the text's, and each match is mapped back to the span of the text it came from, which
  is what is replaced.

Keys shorter than `MIN_SECRET_LENGTH` are not scrubbed from text: "abc" would cut every reply
that contains the word; such a key is still only ever sent in a header. A disguise drops every
separator, so it is searched for only when the key's skeleton has at least
`MIN_DISGUISED_LENGTH` letters and digits, `MIN_DISGUISED_DISTINCT` of them different (real API
keys have 40 and more): a short or repetitive key would match ordinary words run together.
"""

from __future__ import annotations

import base64
import bisect
import re
import threading
import unicodedata
from collections.abc import Callable

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8
MIN_DISGUISED_LENGTH = 16
MIN_DISGUISED_DISTINCT = 8
_MIN_ENCODED = 8

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None
_skeletons: tuple[str, ...] = ()
"""The keys' skeletons searched for in disguise, forwards and reversed."""


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
        _add_skeleton(secret)


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
    text, found = pattern.subn(REDACTED, text)
    if _skeletons:
        text, disguised = _scrub_disguised(text, _skeletons)
        found += disguised
    return text, found


# -- disguises ------------------------------------------------------------------------------------

_IMITATED = {
    # Letters of other scripts that a font shows as an ASCII letter (after Unicode's
    # confusables): Cyrillic, Greek, Armenian, Latin extensions; both cases where they differ.
    "a": "аАαΑɑ",
    "b": "вВβΒ",
    "c": "сСϲϹ",
    "d": "ԁ",
    "e": "еЕεΕ",
    "g": "ɡց",
    "h": "нНһΗհ",
    "i": "іІιΙıɩ",
    "j": "јЈȷ",
    "k": "кКκΚ",
    "l": "ӏ",
    "m": "мМΜ",
    "n": "ηΝո",
    "o": "оОοΟօ",
    "p": "рРρΡ",
    "q": "ԛ",
    "s": "ѕЅ",
    "t": "тТτΤ",
    "u": "υս",
    "v": "ν",
    "w": "ԝω",
    "x": "хХχΧ",
    "y": "уУγΥүҮ",
    "z": "Ζ",
}
_LOOKALIKES = {ch: letter for letter, chars in _IMITATED.items() for ch in chars}
_MERGED = {"0": "o", "1": "l", "i": "l"}
"""Letters and digits that stand for each other in a look-alike echo (0 and O; 1, I and l)."""


def _fold(ch: str) -> str:
    """The skeleton of one character: "" for a separator or an invisible character."""
    if ch in _LOOKALIKES:
        ch = _LOOKALIKES[ch]
    out = []
    for c in unicodedata.normalize("NFKD", ch).casefold():
        c = _LOOKALIKES.get(c, c)
        if c.isascii() and c.isalnum():
            out.append(_MERGED.get(c, c))
    return "".join(out)


_ASCII = bytes([*(ord(_fold(chr(c)) or "-") for c in range(128)), *range(128, 256)])
_NOT_ALNUM = bytes(c for c in range(128) if not _fold(chr(c)))
_LOOKALIKE = re.compile("[" + "".join(_LOOKALIKES) + "]")


def _imitated(match: re.Match[str]) -> str:
    return _LOOKALIKES[match.group()]


def skeleton(text: str) -> str:
    """`text` folded as keys are searched for in disguise: letters and digits only, lower case,
    look-alikes replaced by the ASCII letter they imitate (the same as `_fold` of each
    character, done by whole-string operations that run in C)."""
    if not text.isascii():
        text = _LOOKALIKE.sub(_imitated, text)
        text = _LOOKALIKE.sub(_imitated, unicodedata.normalize("NFKD", text).casefold())
        text = text.encode("ascii", "ignore").decode("ascii")
    return text.encode("ascii").translate(_ASCII, _NOT_ALNUM).decode("ascii")


def _add_skeleton(secret: str) -> None:
    global _skeletons
    core = skeleton(secret)
    if len(core) < MIN_DISGUISED_LENGTH or len(set(core)) < MIN_DISGUISED_DISTINCT:
        return
    _skeletons = tuple(sorted({*_skeletons, core, core[::-1]}, key=len, reverse=True))


_CHUNK = 4096


def _origin_in(text: str) -> Callable[[int], int]:
    """Where the k-th character of `skeleton(text)` came from in `text`. The text's chunks are
    folded whole (in C) to count; only the chunk holding k is walked one character at a time,
    so a server that echoes a key in every 4 MiB reply costs no per-character loop over it."""
    starts = [0]  # the skeleton's index at the start of each chunk
    for i in range(0, len(text), _CHUNK):
        starts.append(starts[-1] + len(skeleton(text[i : i + _CHUNK])))

    def origin(k: int) -> int:
        chunk = bisect.bisect_right(starts, k) - 1
        n = starts[chunk]
        base = chunk * _CHUNK
        for j, ch in enumerate(text[base : base + _CHUNK]):
            n += len(_fold(ch))
            if n > k:
                return base + j
        raise IndexError(k)

    return origin


def _scrub_disguised(text: str, cores: tuple[str, ...]) -> tuple[str, int]:
    folded = skeleton(text)
    if not any(core in folded for core in cores):
        return text, 0
    origin = _origin_in(text)
    spans: list[tuple[int, int]] = []
    for core in cores:
        start = folded.find(core)
        while start >= 0:
            end = start + len(core)
            spans.append((origin(start), origin(end - 1) + 1))
            start = folded.find(core, end)
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    parts, last = [], 0
    for a, b in merged:
        parts += [text[last:a], REDACTED]
        last = b
    parts.append(text[last:])
    return "".join(parts), len(merged)


def scrubbed(text: str) -> str:
    """`scrub` without the count."""
    return scrub(text)[0]
