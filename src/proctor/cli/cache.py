"""`proctor cache stats|prune`: the response cache of a results folder.

    proctor cache stats                      entries, tokens they hold, reuses, per model
    proctor cache prune --older-than 30d     forget entries not used for 30 days (s, m, h, d, w)

Runs keep every record they stored; pruning only means a later run asks again."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from proctor._util.defaults import DEFAULT_RESULTS
from proctor.cli.options import ResultsDir
from proctor.cli.plain_help import command_group

if TYPE_CHECKING:  # kept out of `proctor --help`'s imports
    from rich.console import Console

    from proctor.calling.cache_key import CachePolicy
    from proctor.runs.plan import RunOutcome


cache_app = command_group(
    help="The response cache shared by the runs of a results folder.", no_args_is_help=True
)

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_AGE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*")


def check_policy(value: str) -> CachePolicy:
    from proctor.calling.cache_key import CACHE_POLICIES

    for policy in CACHE_POLICIES:
        if value.strip().lower() == policy:
            return policy
    raise typer.BadParameter(f"unknown --cache {value!r}: use {', '.join(CACHE_POLICIES)}")


def parse_age(text: str) -> timedelta:
    """"30d", "12h", "90m", "2w", "45s"; a bare number is days."""
    match = _AGE.fullmatch(text)
    if match is None:
        raise typer.BadParameter(
            f"bad --older-than {text!r}: a number and a unit s, m, h, d or w (e.g. 30d)"
        )
    return timedelta(seconds=float(match[1]) * _UNITS[match[2] or "d"])


def print_reused(outcome: RunOutcome, console: Console) -> None:
    from rich.text import Text

    for model, n in outcome.reused.items():
        if n:
            console.print(Text(f"{model}: {n:,} answers reused from the response cache"))


@cache_app.command("stats")
def stats_cmd(results_dir: ResultsDir = DEFAULT_RESULTS) -> None:
    """How many answers the cache holds, the tokens they took, and how often they were reused."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from proctor.runs.cache import cache_stats

    s = cache_stats(results_dir)
    console = Console(highlight=False)
    console.print(
        f"response cache of {results_dir}: {s.entries:,} answers ({s.owners} key "
        f"owner{'' if s.owners == 1 else 's'}), "
        f"{s.prompt_tokens:,} prompt + {s.completion_tokens:,} completion tokens, "
        f"reused {s.hits:,} times"
    )
    if s.entries:
        console.print(f"last used between {s.oldest_use} and {s.newest_use}")
        table = Table()
        for col in ("model", "answers", "reused"):
            table.add_column(col, justify="left" if col == "model" else "right")
        for model, (entries, hits) in s.by_model.items():
            table.add_row(Text(model), f"{entries:,}", f"{hits:,}")
        console.print(table)


@cache_app.command("prune")
def prune_cmd(
    older_than: Annotated[
        str, typer.Option("--older-than", help="Forget entries not used for this long (30d).")
    ],
    results_dir: ResultsDir = DEFAULT_RESULTS,
) -> None:
    """Forget cached answers not used (written or reused) for longer than --older-than."""
    from rich.console import Console

    from proctor.runs.cache import prune_cache

    cutoff = datetime.now(UTC) - parse_age(older_than)
    pruned = prune_cache(results_dir, cutoff)
    Console(highlight=False).print(
        f"pruned {pruned.gone:,} cached answers not used since"
        f" {cutoff.isoformat(timespec='seconds')}; {pruned.left:,} left"
    )
