"""The terminal every command prints to: text from a server or a file never drives it.

Two guards, because text reaches rich in two ways:

- `SafeConsole` writes every control character inside printed *text* as a visible escape
  (`proctor._util.untrusted.visible`), whatever built the text (a plain string, a `Text`, a table
  cell, an exception message); rich's own styling and cursor moves are not text and pass;
- `plain` (rich's markup escape) must wrap any outside value put into a string that rich
  reads as markup: `f"[red]error:[/] {plain(message)}"`. A `Text` is never markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.segment import Segment

from proctor._util.untrusted import visible


class SafeConsole(Console):
    """A rich Console whose output holds no control character it did not make itself, and
    that never reads ":name:" in a string as an emoji code (a model called "m:smile:" prints
    as written)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(visible(segment.text), segment.style)
            for segment in buffer
        )


def plain(text: object) -> str:
    """`text` as it must be put into a markup string: never read as markup."""
    return escape(str(text))
