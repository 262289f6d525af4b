"""SIGTERM and SIGHUP stop a command the way Ctrl-C does.

CI runners, `timeout` and `kill` send SIGTERM; a closed terminal or SSH session sends SIGHUP.
Their default action ends the process at once: no answer in flight is written, no line says
what was kept. With `install()` (the `proctor` entry point calls it), either signal is handed
to the handler of SIGINT: inside `asyncio.run` that cancels the run, so the answers received are
written, the run is marked interrupted and the line with the count and the resume command is
printed, as after Ctrl-C; only the exit code differs, 128 + the signal's number, as a shell
reports a process ended by it (143 for SIGTERM, 129 for SIGHUP, 130 for Ctrl-C). A second
signal, like a second Ctrl-C, stops at once.

A signal that was ignored when proctor started (`nohup` ignores SIGHUP) stays ignored."""

from __future__ import annotations

import signal
from types import FrameType

_HANDLED = (signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []


def install() -> None:
    """Handle SIGTERM and SIGHUP as Ctrl-C from now on (main thread only, as Python requires)."""
    for signum in _HANDLED:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _as_ctrl_c)


def _as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)  # asyncio's: cancel the run; else KeyboardInterrupt
    else:  # SIGINT is ignored (`cmd &` in a script): stop all the same, as Ctrl-C would
        raise KeyboardInterrupt


def stop_signal_received() -> bool:
    """Whether SIGTERM or SIGHUP has come (and was handed on as Ctrl-C)."""
    return bool(_received)


def interrupted_exit_code() -> int:
    """The exit code of an interrupted command: 128 + the first stop signal received."""
    return 128 + (_received[0] if _received else signal.SIGINT)


def interrupted_by() -> str:
    """`interrupted`, or `interrupted by SIGTERM` (or SIGHUP) when that signal stopped it."""
    return f"interrupted by {signal.Signals(_received[0]).name}" if _received else "interrupted"
