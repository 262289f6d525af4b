"""How a run ends, decided in one place: the exit codes of every `proctor` command (one table,
so that a CI job can trust them), and the exit code, lines and finishing command that a stored
run's state gives (`state_exit`), for `run`, `score`, `report`, `gate` and `proctor.testing`.

| code | meaning |
|---|---|
| 0 | success: every call was answered and graded (and every check asked for passed) |
| 1 | a check asked for failed (`gate`; `compare` found B worse; `audit` found a false correct) |
| 2 | bad usage, input file or configuration: refused before any call, nothing written |
| 3 | incomplete: not everything was asked (circuit breaker, `--deadline`); resumable |
| 4 | calls failed: everything was asked, some calls failed after the last attempt |
| 5 | a workflow stopped by its hard budget (tokens, wall time, tool calls) |
| 6 | a workflow's (or dialogue's) output failed validation |
| 7 | inconclusive: too little evidence to decide a check (`gate`, `compare --margin`) |
| 130 | interrupted (Ctrl-C / SIGINT): what was stored is kept |
| 143, 129 | the same, stopped by SIGTERM or SIGHUP (`cli.stop_signals`: 128 + the signal) |

A run stopped early by design (`--sequential` decided, `proctor.runs.stopped`) is a success
when every call it asked was answered: what it did not ask was not needed.

Where several apply, the first in `PRECEDENCE` wins: a harness-side failure is reported before
a model-side one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kept out of `proctor --help`'s imports
    from proctor.runs.plan import RunOutcome
    from proctor.stats.completeness import Completeness
    from proctor.stats.run_statistics import GateReport

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_CALLS_FAILED = 4
EXIT_BUDGET = 5
EXIT_INVALID_OUTPUT = 6
EXIT_INCONCLUSIVE = 7
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
"""Interrupted by SIGTERM (128 + 15), handled as Ctrl-C."""
EXIT_HANGUP = 129
"""Interrupted by SIGHUP (128 + 1), handled as Ctrl-C."""

# Names the older modules used for the same code.
EXIT_WORSE = EXIT_CHECK_FAILED
EXIT_FAILED = EXIT_CHECK_FAILED

PRECEDENCE: tuple[int, ...] = (
    EXIT_USAGE,
    EXIT_INTERRUPTED,
    EXIT_INCOMPLETE,
    EXIT_CALLS_FAILED,
    EXIT_BUDGET,
    EXIT_INVALID_OUTPUT,
    EXIT_CHECK_FAILED,
    EXIT_INCONCLUSIVE,
)


def first_applicable(codes: Iterable[int]) -> int:
    """The code to exit with when several apply (0 when none does)."""
    present = {c for c in codes if c != EXIT_OK}
    for code in PRECEDENCE:
        if code in present:
            return code
    if present:
        raise ValueError(f"not an exit code of the table: {sorted(present)}")
    return EXIT_OK


def plain(text: object) -> str:
    """`text` as it must be put into a markup string (rich's, imported here: `proctor --help`
    imports this module for its exit codes and needs no rich)."""
    from rich.markup import escape

    return escape(str(text))


def state_lines(run_id: str, state: Completeness) -> list[str]:
    """What keeps a stored run from being a success, one line per model and problem (markup
    escaped, for the terminal); empty when every answer is stored and every call was answered.
    The same lines as the run's files show (`proctor.report.text.completeness_lines`)."""
    from proctor.report.text import completeness_lines

    return [plain(line) for line in completeness_lines(state)]


def state_exit(
    run_id: str, state: Completeness, why: str | None = None, gate: GateReport | None = None
) -> tuple[int, str | None]:
    """The exit code a stored run gives (the table above), and the line that says why (`why`:
    what this session saw, e.g. the deadline) and which command finishes it (None when it
    succeeded). The one decision of `run`, `score`, `report`, `gate` and `proctor.testing`: the
    run's state comes first; then a `gate` (the suite's own, or the one asked) that failed."""
    from proctor.report.text import finishing_command

    if state.incomplete and not state.stopped_by_design:
        return EXIT_INCOMPLETE, (
            f"[red]run {run_id} is incomplete:[/] not every call was asked"
            f"{f' ({plain(why)})' if why else ''}; what is stored is kept. "
            f"`{finishing_command(run_id, state)}` finishes it"
        )
    if state.calls_failed:
        failed = sum(m.failed for m in state.models)
        return EXIT_CALLS_FAILED, (
            f"[red]run {run_id} has {failed:,} failed call(s)[/] (never graded as wrong). "
            f"Fix the cause, then `proctor run --retry-errors {run_id}` asks them again"
        )
    if gate is not None and not gate.passed:
        failed = sum(not r.passed and not r.inconclusive for r in gate.rows)
        if failed:
            return EXIT_CHECK_FAILED, (
                f"[red]gate failed:[/] {failed} of {len(gate.rows)} checks"
            )
        undecided = sum(r.inconclusive for r in gate.rows)
        return EXIT_INCONCLUSIVE, (
            f"[yellow]gate inconclusive:[/] {undecided} of {len(gate.rows)} checks lack the "
            "evidence to decide (their notes say how many items would); never a pass"
        )
    if state.stopped_by_design:  # a success: what was not asked was not needed
        return EXIT_OK, (
            f"[yellow]run {run_id} stopped early by design:[/] {plain(state.stopped_early)}. "
            f"`{finishing_command(run_id, state)}` asks the rest"
        )
    return EXIT_OK, None


def session_cause(outcome: RunOutcome) -> str | None:
    """Why this session left answers unasked, when it knows."""
    if outcome.deadline_hit:
        return "the deadline came first"
    lost = sum(r.left_missing for r in outcome.models)
    if lost:
        return f"{lost:,} answers left missing after Ray workers failed (the shard lines say where)"
    stopped = [r.model for r in outcome.models if r.stopped]
    if stopped:
        return f"{', '.join(stopped)} stopped by the circuit breaker"
    return None
