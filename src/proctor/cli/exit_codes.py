"""The exit codes of every `proctor` command: one table, so that a CI job can trust them.

| code | meaning |
|---|---|
| 0 | success: every call was answered and graded (and every check asked for passed) |
| 1 | a check asked for failed (`gate`; `compare` found B worse; `audit` found a false correct) |
| 2 | bad usage, input file or configuration: refused before any call, nothing written |
| 3 | incomplete: not everything was asked (circuit breaker, `--deadline`); resumable |
| 4 | calls failed: everything was asked, some calls failed after the last attempt |
| 5 | a workflow stopped by its hard budget (tokens, wall time, tool calls) |
| 6 | a workflow's (or dialogue's) output failed validation |
| 130 | interrupted (Ctrl-C / SIGINT): what was stored is kept |
| 143, 129 | the same, stopped by SIGTERM or SIGHUP (`cli.stop_signals`: 128 + the signal) |

Where several apply, the first in `PRECEDENCE` wins: a harness-side failure is reported before
a model-side one.
"""

from __future__ import annotations

from collections.abc import Iterable

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_CALLS_FAILED = 4
EXIT_BUDGET = 5
EXIT_INVALID_OUTPUT = 6
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
