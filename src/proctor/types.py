"""The values that flow down the pipe. A leaf: imports nothing of proctor but its defaults.

Everything here is a frozen dataclass so a stage can hand it on without fear that a later stage
changes it. Pydantic lives at the edges (files, network, model replies), not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from proctor._util.defaults import DEFAULT_MAX_REPLY_BYTES as DEFAULT_MAX_REPLY_BYTES

AnswerType = Literal["integer", "decimal", "fraction", "comparison", "text"]
"""How a target must be read: an exact integer, an exact decimal (with `Sample.decimals` places),
a reduced fraction "p/q", one of the comparison symbols "<", ">", "=", or free text."""

Difficulty = Literal["easy", "medium", "hard"]

FinishReason = Literal["stop", "length", "content_filter", "tool_calls", "unknown"]

Outcome = Literal[
    "correct",
    "wrong",
    "no_answer",
    "truncated",
    "violation",
    "refused",
    "call_failed",
    "unscored",
]
"""Typed outcomes. `call_failed` and `unscored` are never counted as wrong answers."""

OUTCOMES: tuple[Outcome, ...] = (
    "correct",
    "wrong",
    "no_answer",
    "truncated",
    "violation",
    "refused",
    "call_failed",
    "unscored",
)

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class Sample:
    """One question of a test set, with its exact answer."""

    id: str
    input: str
    target: str
    category: str = ""
    difficulty: str = ""
    answer_type: AnswerType = "integer"
    decimals: int | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolCall:
    """One call of a tool a model asked for: its id, the tool's name and its JSON arguments."""

    id: str
    name: str
    arguments_json: str


@dataclass(frozen=True)
class Message:
    """One chat message. An assistant message may carry the tool calls it asked for; a "tool"
    message answers the call named by `tool_call_id`."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""


@dataclass(frozen=True)
class Prompt:
    """What is sent for one sample: the messages and the names of the template that made them."""

    messages: tuple[Message, ...]
    variant: str
    lang: str
    tools: tuple[str, ...] = ()
    """Names of the tools offered (e.g. "calculator"); none by default."""


@dataclass(frozen=True)
class GenerationParams:
    """Always explicit: no provider default decides how long or how random a reply is."""

    temperature: float = 0.0
    max_tokens: int = 256
    timeout_s: float = 60.0
    seed: int | None = None
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them; None where a count is unknown (missing, or
    not a finite non-negative integer): an unknown count is never read as 0."""

    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0

    @property
    def known(self) -> bool:
        return self.prompt_tokens is not None and self.completion_tokens is not None

    @property
    def total_tokens(self) -> int:
        """Both counts summed, an unknown one as 0: for budgets and totals that must go on;
        check `known` where an unknown count must be said."""
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def plus(self, other: Usage) -> Usage:
        """Both calls' counts summed; unknown when either is unknown."""
        return Usage(_add(self.prompt_tokens, other.prompt_tokens),
                     _add(self.completion_tokens, other.completion_tokens))  # fmt: skip


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


@dataclass(frozen=True)
class Completion:
    """A model's raw reply, exactly as the provider returned it."""

    text: str
    finish_reason: FinishReason
    usage: Usage
    model: str
    latency_s: float
    tool_calls: tuple[ToolCall, ...] = ()
    notes: tuple[str, ...] = ()
    """What was changed on the way in (invalid Unicode replaced, a key redacted), in words."""


RecordStatus = Literal["ok", "call_failed"]


@dataclass(frozen=True)
class Record:
    """One stored answer (or failed call) of one model to one sample: the store's unit."""

    run_id: str
    model: str
    sample_id: str
    status: RecordStatus
    text: str
    finish_reason: FinishReason
    usage: Usage
    latency_s: float
    attempts: int
    prompt_variant: str
    lang: str
    reported_model: str = ""
    error: str = ""
    epoch: int = 0
    notes: str = ""
    """What was changed in the reply before it was stored (see `Completion.notes`)."""
    cached_from: str = ""
    """The run whose stored answer this is, when it came from the results folder's response
    cache instead of a call ("" when it was asked for this run): nothing was spent on it."""
    batch_id: str = ""
    """The provider's batch this answer was asked in (`proctor run --batch`; billed at the batch
    price), "" for a call of its own."""


@dataclass(frozen=True)
class Extraction:
    """The answer found in a reply, and the rule that found it.

    `rule` names the extraction rule (e.g. "final_answer_line", "last_number"); `value` is the
    answer text as found (before normalisation) or None when nothing was found; `format_ok` says
    whether the reply followed the requested answer format.
    """

    value: str | None
    rule: str
    format_ok: bool
    note: str = ""


@dataclass(frozen=True)
class Score:
    """The grade of one record: a typed outcome, the rule that decided it and why, in words."""

    outcome: Outcome
    rule: str
    explanation: str
    extracted: str | None = None
    normalized: str | None = None
    format_ok: bool = False


@dataclass(frozen=True)
class GradedItem:
    """One model's stored answer to one sample, with its grade: what stats and reports read."""

    sample: Sample
    record: Record
    score: Score


@dataclass(frozen=True)
class RunInfo:
    """What a run was: enough to say exactly which paper, which prompt and which models."""

    run_id: str
    task: str
    models: tuple[str, ...]
    dataset_hash: str
    dataset_size: int
    generator_version: str
    prompt_variant: str
    lang: str
    created_at: str
    params: GenerationParams = field(default_factory=GenerationParams)
    seed: int | None = None
