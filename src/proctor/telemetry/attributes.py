"""Pure: what a run, a graded answer and a call are as span attributes, in the OpenTelemetry
GenAI semantic conventions (gen_ai.*), with proctor's own under `proctor.`. Prompt and reply
text only when asked, and then through `proctor._util.redact.scrub` (no API key leaves)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

from proctor._util.redact import scrub
from proctor.errors import ProctorError
from proctor.providers.registry import parse_model
from proctor.types import OUTCOMES, GenerationParams, Message, Prompt, Record, Score

Attributes = dict[str, Any]
"""Span attributes: str, bool, int, float or a sequence of one of them; never None."""

CHAT = "chat"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def run_attributes(
    run_id: str, task: str, models: Sequence[str], resumed: bool, items: int
) -> Attributes:
    return {
        "proctor.run.id": run_id,
        "proctor.task": task,
        "proctor.models": list(models),
        "proctor.resumed": resumed,
        "proctor.items": items,
    }


def session_attributes(tally: Mapping[str, int]) -> Attributes:
    """What the session graded, per outcome (`proctor.outcome.correct`, …; every outcome,
    0 where none), and in all: on the run span when the session ends."""
    counts: Attributes = {f"proctor.outcome.{o}": tally.get(o, 0) for o in OUTCOMES}
    return counts | {"proctor.graded": sum(tally.values())}


def sample_attributes(run_id: str, task: str, record: Record) -> Attributes:
    """The item's answer (its grade comes when it is graded: `grade_attributes`)."""
    return {
        "proctor.run.id": run_id,
        "proctor.task": task,
        "proctor.item.id": record.sample_id,
        "proctor.epoch": record.epoch,
        "proctor.model": record.model,
        "proctor.status": record.status,
    }


def grade_attributes(score: Score) -> Attributes:
    """The grade of the item's answer and the rule that gave it."""
    return {"proctor.grade": score.outcome, "proctor.rule": score.rule,
            "proctor.format_ok": score.format_ok}  # fmt: skip


def call_name(model: str) -> str:
    """The call span's name, as the conventions write it: "{operation} {request model}"."""
    return f"{CHAT} {_provider(model)[1]}"


def call_attributes(
    record: Record, params: GenerationParams, prompt: Prompt | None, content: bool
) -> Attributes:
    """One call of a model: the request, the reply's model, tokens and finish reason, or the
    error's type when it failed; with `content`, the messages sent and the reply (redacted).
    What is not known (a count the provider did not report, no seed) is left out, never 0."""
    system, name, address, port = _provider(record.model)
    found = _known({
        "gen_ai.operation.name": CHAT,
        "gen_ai.provider.name": system,
        "gen_ai.system": system,
        "gen_ai.request.model": name,
        "gen_ai.request.temperature": params.temperature,
        "gen_ai.request.max_tokens": params.max_tokens,
        "gen_ai.request.seed": params.seed,
        "server.address": address or None,
        "server.port": port,
        "proctor.model": record.model,
        "proctor.item.id": record.sample_id,
        "proctor.epoch": record.epoch,
        "proctor.attempts": record.attempts,
        "proctor.batch.id": record.batch_id or None,
    })  # fmt: skip
    if record.status == "call_failed":
        found["error.type"] = error_type(record.error)
        return found | (_messages(prompt, None) if content else {})
    found |= _known({
        "gen_ai.response.model": record.reported_model or None,
        "gen_ai.response.finish_reasons": [record.finish_reason],
        "gen_ai.usage.input_tokens": record.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": record.usage.completion_tokens,
    })  # fmt: skip
    return found | (_messages(prompt, record) if content else {})


def _known(pairs: Mapping[str, Any]) -> Attributes:
    return {k: v for k, v in pairs.items() if v is not None}


def error_type(error: str) -> str:
    """The class of a failed call's error ("RateLimited: 429 …" → "RateLimited"); "_OTHER"
    (the conventions' fallback) when the stored error names none."""
    head = error.partition(":")[0].strip()
    return head if _IDENTIFIER.match(head) else "_OTHER"


@functools.lru_cache(maxsize=256)
def _provider(model: str) -> tuple[str, str, str, int | None]:
    """(provider name, model name at the provider, server host, server port) of a model
    string; a string the registry cannot read (a plugin since uninstalled) is its own name."""
    try:
        spec = parse_model(model)
    except ProctorError:
        return "_OTHER", model, "", None
    if not spec.base_url:
        return spec.kind, spec.name, "", None
    url = urlparse(spec.base_url)
    try:
        port = url.port
    except ValueError:
        port = None
    return spec.kind, spec.name, url.hostname or "", port


def _messages(prompt: Prompt | None, record: Record | None) -> Attributes:
    found: Attributes = {}
    if prompt is not None:
        sent = [_message(m) for m in prompt.messages]
        found["gen_ai.input.messages"] = json.dumps(sent, ensure_ascii=False)
    if record is not None:
        reply = {"role": "assistant", "parts": [_text(record.text)],
                 "finish_reason": record.finish_reason}  # fmt: skip
        found["gen_ai.output.messages"] = json.dumps([reply], ensure_ascii=False)
    return found


def _message(m: Message) -> Mapping[str, Any]:
    if m.role == "tool":
        part = {"type": "tool_call_response", "id": m.tool_call_id,
                "response": scrub(m.content)[0]}  # fmt: skip
        return {"role": "tool", "parts": [part]}
    parts: list[Mapping[str, Any]] = [_text(m.content)] if m.content else []
    parts += [{"type": "tool_call", "id": c.id, "name": c.name,
               "arguments": scrub(c.arguments_json)[0]} for c in m.tool_calls]  # fmt: skip
    return {"role": m.role, "parts": parts}


def _text(text: str) -> Mapping[str, str]:
    return {"type": "text", "content": scrub(text)[0]}
