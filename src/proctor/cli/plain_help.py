"""The help every command prints: click's plain layout, not typer's rich panels.

Typer's rich help imports rich's markdown and traceback renderers (markdown-it, pygments, attrs):
that alone took longer than everything else `proctor --help` does. Plain help says the same
things (usage, every option with its type, default and environment variable, every command).
Two changes to click's layout: help fills the terminal's width (click stops at 80 columns), and a
group's list gives each command's whole first sentence, wrapped, where click would cut it at
the terminal's width with "..."."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter

_AS_WIDE_AS_THE_TERMINAL = {"max_content_width": 1_000}
"""Help as wide as the terminal (COLUMNS), as rich's was; click alone stops at 80 columns."""
_WHOLE_SENTENCE = 10_000
"""A limit no command's first sentence reaches."""


def command_group(**options: Any) -> typer.Typer:
    """`typer.Typer(**options)` for `proctor` and each of its command groups, with plain help
    (`rich_markup_mode=None` is typer's switch to click's help)."""
    return typer.Typer(
        cls=PlainHelpGroup,
        rich_markup_mode=None,
        context_settings=_AS_WIDE_AS_THE_TERMINAL,
        **options,
    )


class PlainHelpGroup(TyperGroup):
    """A command group whose `--help` lists each command with its whole first sentence."""

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(_WHOLE_SENTENCE)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
