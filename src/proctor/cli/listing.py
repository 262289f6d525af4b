"""`proctor list`: stored runs, built-in tasks, and the model strings with where their keys come
from. Light to import (`proctor --help` imports it): what it prints is imported when it prints."""

from __future__ import annotations

from typing import Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir, terminal


def list_cmd(
    what: Annotated[str, typer.Argument(help="runs, tasks, models, or all.")] = "all",
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """List stored runs, built-in tasks, and the model strings with where their keys come from."""
    if what not in ("all", "runs", "tasks", "models"):
        raise typer.BadParameter(f"unknown list {what!r}: use runs, tasks, models or all")
    from proctor.cli.console import plain
    from proctor.tasks.registry import TASKS

    console = terminal()

    if what == "models":
        list_models()
        return

    if what in ("all", "tasks"):
        from rich.table import Table
        from rich.text import Text

        table = Table(title="Tasks")
        for col in ("task", "version", "description"):
            table.add_column(col)
        for t in TASKS.values():
            table.add_row(Text(t.name), Text(t.version), Text(t.description))
        from proctor.tasks.registry import TASK_PLUGINS

        for name in TASK_PLUGINS.names():  # named, not loaded: a listing runs no plugin code
            table.add_row(Text(name), Text("plugin"), Text(TASK_PLUGINS.origin(name)))
        console.print(table)
    if what in ("all", "runs"):
        if not (results_dir / "proctor.db").exists():
            console.print(f"no runs in {plain(results_dir)}")
            return
        from proctor.cli.list_runs import print_runs

        print_runs(console, results_dir)


def list_models() -> None:
    from rich.table import Table
    from rich.text import Text

    from proctor.cli.keys import KEY_RULE
    from proctor.providers.registry import MODEL_FORMS

    console = terminal()

    table = Table(title="Models")
    for col in ("model string", "what it is", "key from"):
        table.add_column(col)
    for form in MODEL_FORMS:
        table.add_row(*form)
    from proctor.providers.registry import BUILTIN_KINDS, PROVIDERS

    for kind in PROVIDERS.names():
        if kind not in BUILTIN_KINDS:
            table.add_row(Text(f"{kind}/NAME[@URL]"), Text(PROVIDERS.origin(kind)), "as PLUGIN")
    console.print(table)
    console.print(KEY_RULE)
    console.print("A run whose one variable would go to two hosts is refused before any call.")
