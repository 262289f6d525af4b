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
    """

    seed: int = 0
    latency_s: float = 0.0
    answer_mode: str = "correct"
    correct_rate: float = 1.0
    fault_rate: float = 0.0
    faults: tuple[FaultKind, ...] = DEFAULT_FAULTS
    model: str = "proctor-stub"
    hang_s: float = 30.0
    max_faults_per_body: int | None = None
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
        unknown = [k for k in self.faults if k not in FAULT_KINDS]
        if unknown:
            raise ValueError(f"unknown fault kinds {unknown}: use {', '.join(FAULT_KINDS)}")
        if self.fault_rate > 0 and not self.faults:
            raise ValueError("fault_rate > 0 needs at least one fault kind")
        if self.max_faults_per_body is not None and self.max_faults_per_body < 0:
            raise ValueError("max_faults_per_body must be >= 0")
