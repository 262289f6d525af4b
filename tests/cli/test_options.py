"""An option several commands share means one thing: each is declared once (`cli/options.py`),
so its help reads the same wherever a user meets it."""

from __future__ import annotations

from typing import Any

import pytest
import typer

from proctor.cli.app import app


def _command(*path: str) -> Any:
    """The click command `proctor PATH` runs (typer carries its own click: read by duck type)."""
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def _help_of(path: tuple[str, ...], param: str) -> str:
    for candidate in _command(*path).params:
        if candidate.name == param:
            return str(getattr(candidate, "help", None) or "")
    raise AssertionError(f"proctor {' '.join(path)} has no {param}")


def _flags_of(path: tuple[str, ...], param: str) -> tuple[str, ...]:
    return next(tuple(p.opts) for p in _command(*path).params if p.name == param)


@pytest.mark.parametrize(
    ("param", "commands"),
    [
        (
            "run_ref",
            [("report",), ("score",), ("export",), ("judge",), ("review", "export"),
             ("review", "import")],
        ),
        ("allow_inconclusive", [("gate",), ("compare",)]),
        ("resume", [("dialogue",), ("workflow",)]),
        ("model", [("dialogue",), ("workflow",)]),
        ("timeout", [("run",), ("dialogue",), ("workflow",), ("judge",)]),
        ("concurrency", [("run",), ("judge",)]),
        ("results_dir", [("run",), ("gate",), ("report",), ("dialogue",), ("workflow",)]),
    ],
)  # fmt: skip
def test_a_shared_option_reads_the_same_in_every_command(
    param: str, commands: list[tuple[str, ...]]
) -> None:
    helps = {path: _help_of(path, param) for path in commands}
    assert all(helps.values()), helps
    assert len(set(helps.values())) == 1, helps
    assert len({_flags_of(path, param) for path in commands}) == 1


def test_every_run_argument_says_latest_is_a_run() -> None:
    """`latest` names the newest run in every command that takes a RUN (one resolver)."""
    assert "latest" in _help_of(("report",), "run_ref")
