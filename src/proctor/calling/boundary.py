"""Where a provider's reply becomes data: every Completion and every failure message passes
here (in `ModelCaller.call`) before a Record is made of it, whatever the provider.

- a reply text larger than `GenerationParams.max_reply_bytes` is refused (BadReply: the call
  fails with that reason; HTTP adapters already stop reading at the cap);
- lone surrogates (no UTF-8 file or SQLite column can hold them) become U+FFFD;
- an API key of this process, in any of the forms `proctor._util.redact` knows, becomes
  `[redacted]`;
- token counts that are not counts become unknown;

and each change is said in the Completion's notes, which the Record keeps."""

from __future__ import annotations

from dataclasses import replace

from proctor._util.redact import scrub
from proctor._util.untrusted import repair_text
from proctor.errors import BadReply
from proctor.providers.http import MESSAGE_LIMIT, token_count
from proctor.types import Completion, ToolCall, Usage


class _Changes:
    def __init__(self) -> None:
        self.surrogates = 0
        self.secrets = 0

    def clean(self, text: str) -> str:
        text, bad = repair_text(text)
        text, found = scrub(text)
        self.surrogates += bad
        self.secrets += found
        return text

    def notes(self) -> tuple[str, ...]:
        notes: list[str] = []
        if self.surrogates:
            notes.append(
                f"{self.surrogates} invalid character(s) (lone surrogates) replaced by U+FFFD"
            )
        if self.secrets:
            notes.append(f"{self.secrets} copy(ies) of an API key replaced by [redacted]")
        return tuple(notes)


def accept(completion: Completion, max_bytes: int) -> Completion:
    """The completion as it may be stored; BadReply when its text is over `max_bytes`."""
    c = completion
    # 4 bytes a character at most: the exact UTF-8 size only when it could matter.
    if len(c.text) * 4 > max_bytes and len(c.text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise BadReply(
            f"reply text larger than the {max_bytes:,}-byte cap; "
            "--max-reply-bytes raises the cap if the model is right"
        )
    changes = _Changes()
    text = changes.clean(c.text)
    model = changes.clean(c.model)
    calls = tuple(
        ToolCall(changes.clean(t.id), changes.clean(t.name), changes.clean(t.arguments_json))
        for t in c.tool_calls
    )
    usage = Usage(token_count(c.usage.prompt_tokens), token_count(c.usage.completion_tokens))
    notes = (*(changes.clean(n) for n in c.notes), *changes.notes())
    if (text, model, calls, usage, notes) == (c.text, c.model, c.tool_calls, c.usage, c.notes):
        return c
    return replace(c, text=text, model=model, tool_calls=calls, usage=usage, notes=notes)


def accept_error(message: str) -> str:
    """A failure's reason as it may be stored and printed: repaired, keys scrubbed, then cut
    (scrubbed before it is cut, so no part of a key survives the cut)."""
    text, _ = repair_text(message)
    text, _ = scrub(text)
    if len(text) > MESSAGE_LIMIT:
        text = text[: MESSAGE_LIMIT - 1] + "…"
    return text
