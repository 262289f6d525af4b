"""Keys at the command line: the `--api-key-env MODEL=VAR` option, and the lines that say, per
model, which variable its key comes from (the name, never the value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from proctor.providers.keys import KeySource

KEY_RULE = (
    "A key goes only to the host it belongs to: OPENAI_API_KEY only to OpenAI's API, "
    "ANTHROPIC_API_KEY only to Anthropic's; any other host gets a key only from a variable you "
    "name for it (--api-key-env MODEL=VAR), or from PROCTOR_API_KEY when the run talks to one "
    "host only."
)

ApiKeyEnv = Annotated[
    list[str] | None,
    typer.Option(
        "--api-key-env",
        metavar="MODEL=VAR",
        help=(
            "Read MODEL's key (a model string or its name) from the environment variable VAR: "
            "its name, never the key. Repeat per model. " + KEY_RULE
        ),
    ),
]

SHOWN = 6
"""Models named on one line of the key header before the rest are counted."""


def key_from(source: KeySource | None) -> str:
    """One cell: "OPENAI_API_KEY", "A_KEY (not set)", "no key", or "—" for a keyless model."""
    if source is None or not source.host:
        return "—"
    if source.var is None:
        return "no key"
    return source.var if source.read() else f"{source.var} (not set)"


def print_key_header(sources: Mapping[str, KeySource], console: Console) -> None:
    """Before a run calls anything: one line per variable and host, with the models that take
    their key from it. Nothing for a run whose models take no key. Models whose reasons differ
    only in the model they name ("--api-key-env m01=VAR") share a line that names MODEL: 50
    models on one keyless server are one line, not 50."""
    import re

    from rich.markup import escape

    groups: dict[tuple[str | None, str, str], list[tuple[str, str]]] = {}
    for model, s in sources.items():
        if s.host:
            shared = re.sub(r"--api-key-env \S+=VAR", "--api-key-env MODEL=VAR", s.why)
            groups.setdefault((s.var, s.host, shared), []).append((model, s.why))
    lead = "keys"
    for (var, host, shared), members in groups.items():
        models = [model for model, _ in members]
        why = members[0][1] if len(members) == 1 else shared
        names = ", ".join(models[:SHOWN])
        if len(models) > SHOWN:
            names += f" and {len(models) - SHOWN} more"
        what = var or "no key"
        console.print(f"{lead:<5} {escape(what)} → {escape(host)}: {escape(names)} ({escape(why)})")
        lead = ""
