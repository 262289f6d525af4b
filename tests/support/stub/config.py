"""What a stub server does: how it answers, how slowly, and which faults it injects how often."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

FaultKind = Literal[
    "429",
    "429_no_retry_after",
    "500",
    "502",
    "503",
    "reset",
    "hang",
    "not_json",
    "no_choices",
    "truncated_stream",
]
"""One way a request can go wrong:

- ``429``                 HTTP 429 with ``Retry-After: 0`` or ``1`` (decided like the fault)
- ``429_no_retry_after``  HTTP 429 without a Retry-After header
- ``500`` ``502`` ``503`` that HTTP status with an OpenAI-style error body
- ``reset``               the connection is closed with a TCP RST and no response at all
- ``hang``                no reply for ``hang_s`` seconds (longer than the client's timeout);
                          if the client is still there after that, a normal reply
- ``not_json``            HTTP 200 whose body is an HTML page, not JSON
- ``no_choices``          HTTP 200 with ``{"choices": []}``
- ``truncated_stream``    the response is cut off mid-body: a streamed request (stream=true)
                          gets part of its SSE events, any other a Content-Length it never
                          fills; then the connection closes
"""

FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
DEFAULT_FAULTS: tuple[FaultKind, ...] = tuple(k for k in FAULT_KINDS if k != "hang")
"""Every kind but ``hang``, which costs the client a whole timeout and must be asked for."""

ReplyFault = Literal[
    "surrogate",
    "usage_inf",
    "usage_nan",
    "usage_huge",
    "usage_junk",
    "deep",
    "huge",
    "gzip_bomb",
    "endless",
    "not_utf8",
    "wrong_types",
    "redirect",
    "markup_error",
    "markup_reply",
    "echo_key",
    "echo_key_error",
    "echo_key_disguised",
    "echo_key_disguised_error",
]
"""A reply a hostile or broken server sends (the fault table of issue 14; never among the
default faults, and each is asked for by name):

- ``surrogate``       HTTP 200 whose content holds a lone surrogate (the JSON escape \ud800)
- ``usage_inf``       usage.prompt_tokens is ``1e999`` (infinite once read)
- ``usage_nan``       usage.prompt_tokens is ``NaN``
- ``usage_huge``      usage.prompt_tokens is a 30-digit integer, completion_tokens one of
                      5,000 digits (more than Python converts)
- ``usage_junk``      usage counts that are a negative number, a string and a boolean
- ``deep``            a body nested 100,000 levels deep
- ``huge``            a body of ``huge_bytes`` (default 100 MiB), sent chunked with no length
- ``gzip_bomb``       a gzip body of about 0.5 MiB that inflates to ``bomb_bytes`` (512 MiB)
- ``endless``         HTTP 200 whose body drips a few bytes at a time and never ends
- ``not_utf8``        HTTP 200 whose content holds bytes that are not UTF-8
- ``wrong_types``     HTTP 200 with ``choices`` an object and ``content`` a number
- ``redirect``        HTTP 302 to another host (never followed)
- ``markup_error``    HTTP 401 whose message is rich markup (``[/bold]``, ``[link=…]``) and
                      terminal escapes (colour, title, clear screen)
- ``markup_reply``    HTTP 200 whose content and model name are rich markup and terminal escapes
- ``echo_key``        HTTP 200 whose content and model field echo the request's Authorization
                      header: as is, with ``-`` written ``\u002d``, and base64-encoded
- ``echo_key_error``  HTTP 500 whose error message echoes the key in the same three forms
- ``echo_key_disguised``  HTTP 200 whose content and model field echo the key disguised
                      (`hostile.disguised_key_forms`): reversed, a dash or a space between
                      its characters, zero-width spaces inside, U+2011 non-breaking hyphens,
                      its letter case changed, look-alike letters, full-width, combined
- ``echo_key_disguised_error``  HTTP 500 whose error message echoes the same disguises
"""

REPLY_FAULTS: tuple[ReplyFault, ...] = get_args(ReplyFault)
AnyFault = FaultKind | ReplyFault
ALL_FAULTS: tuple[AnyFault, ...] = (*FAULT_KINDS, *REPLY_FAULTS)

ANSWER_MODES = ("correct", "wrong", "echo", "const:TEXT", "script")


@dataclass(frozen=True)
class StubConfig:
    """How the stub answers ``/v1/chat/completions``.

    answer_mode: ``correct`` solves the arithmetic question in the prompt, ``wrong`` gives an
    answer off by one, ``echo`` returns the prompt, ``const:TEXT`` always replies TEXT,
    ``script`` replies with the reply of the longest of `replies`' markers that the prompt's
    last user message contains (a reply scripted per question).
    replies: (marker, reply) pairs for ``script`` mode.
    correct_rate: in ``correct`` mode, the share of prompts answered correctly; which prompts
    get an off-by-one answer is fixed by (seed, prompt text).
    fault_rate: the share of requests that get a fault, picked from ``faults``; decided by
    (seed, request body, how many times that body was seen before), so a retry of a failed
    request draws again and eventually succeeds when fault_rate < 1.
    max_faults_per_body: when set, a body that has had this many faults gets none after.
    api_key: when set, a request without this key (``Authorization: Bearer KEY`` or
    ``x-api-key: KEY``) gets HTTP 401. Whatever is set, the stub counts the credentials it
    receives by fingerprint (`credential_key`), never by value.
    huge_bytes, bomb_bytes: the sizes of the ``huge`` body and of the inflated ``gzip_bomb``.
    refuse_tools: answer a request that offers tools with HTTP 400, as servers without
    function calling do.
    """

    seed: int = 0
    latency_s: float = 0.0
    answer_mode: str = "correct"
    correct_rate: float = 1.0
    fault_rate: float = 0.0
    faults: tuple[AnyFault, ...] = DEFAULT_FAULTS
    model: str = "proctor-stub"
    hang_s: float = 30.0
    max_faults_per_body: int | None = None
    api_key: str | None = None
    huge_bytes: int = 100 * 1024 * 1024
    bomb_bytes: int = 512 * 1024 * 1024
    refuse_tools: bool = False
    replies: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        mode = self.answer_mode
        if mode not in ("correct", "wrong", "echo", "script") and not mode.startswith("const:"):
            raise ValueError(f"unknown answer_mode {mode!r}: use {', '.join(ANSWER_MODES)}")
        for name in ("correct_rate", "fault_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value}")
        if mode == "script" and not self.replies:
            raise ValueError("answer_mode script needs replies")
        if self.latency_s < 0 or self.hang_s < 0:
            raise ValueError("latency_s and hang_s must be >= 0")
        unknown = [k for k in self.faults if k not in ALL_FAULTS]
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}: use {', '.join(ALL_FAULTS)}")
        if self.huge_bytes < 1 or self.bomb_bytes < 1:
            raise ValueError("huge_bytes and bomb_bytes must be >= 1")
        if self.fault_rate > 0 and not self.faults:
            raise ValueError("fault_rate > 0 needs at least one fault kind")
        if self.max_faults_per_body is not None and self.max_faults_per_body < 0:
            raise ValueError("max_faults_per_body must be >= 0")
