"""The terminal console: text from outside never drives the terminal nor turns into emoji."""

from __future__ import annotations

import io

from rich.text import Text

from proctor.cli.console import SafeConsole


def _printed(*values: object) -> str:
    out = io.StringIO()
    console = SafeConsole(file=out, width=120, force_terminal=True, color_system=None)
    for value in values:
        console.print(value)
    return out.getvalue()


def test_control_characters_in_text_are_shown_not_sent() -> None:
    shown = _printed("model \x1b[2J\x07 name", Text("note \x1b]0;title\x07 end"))
    assert "\x1b[2J" not in shown and "\x1b]0;" not in shown and "\x07" not in shown
    assert "model" in shown and "note" in shown and "end" in shown


def test_emoji_codes_print_as_written() -> None:
    shown = _printed("model m:smile: and :thumbs_up:")
    assert "m:smile:" in shown and ":thumbs_up:" in shown
    assert "😄" not in shown and "👍" not in shown
