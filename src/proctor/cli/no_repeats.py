"""A command that refuses an option given twice when it takes one value: click keeps the last
silently, so `--limit 5 --limit 50` would run 50 and `--temperature 0 --temperature 1` one of
them. Options that take several (`-m`, `--prompt`, `--lang`) are not concerned."""

from __future__ import annotations

from typing import TYPE_CHECKING

from typer._click.exceptions import UsageError  # typer's own click, as plain_help.py reads it
from typer.core import TyperCommand, TyperOption

if TYPE_CHECKING:
    from typer._click.core import Context


class RefuseRepeats(TyperCommand):
    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        single: dict[str, str] = {}
        for param in self.params:
            if isinstance(param, TyperOption) and not param.multiple and not param.count:
                for name in (*param.opts, *param.secondary_opts):
                    single[name] = param.name or name
        seen: dict[str, str] = {}
        for arg in args:
            if arg == "--":
                break
            name = arg.split("=", 1)[0]
            key = single.get(name)
            if key is None:
                continue
            if key in seen:
                given = f"{name} given twice" if seen[key] == name else f"{seen[key]} and {name}"
                raise UsageError(
                    f"{given}: it takes one value, and a second would silently replace the first",
                    ctx,
                )
            seen[key] = name
        return super().parse_args(ctx, args)
