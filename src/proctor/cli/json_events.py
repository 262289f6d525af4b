"""`proctor run --json`: the run as events, one JSON object a line on stdout, for scripts and
agents that follow a run; everything a person reads (progress, report, exit line) goes to
stderr instead, so stdout holds nothing else. Each object has "event" and "time" (UTC, ISO):

    run_started    run_id, task, models, per model {stored, to_ask}
    answer_stored  run_id, model, sample_id, epoch, status, finish_reason, latency_s,
                   prompt_tokens, completion_tokens, error          (once the store holds it)
    progress       run_id, model, done, total, correct, scored, failed (after each grade)
    warning        message (and model, when it is one model's)
    run_ended      run_id (null if the run never began), exit_code, state, folder, files,
                   error (when it was refused)

`run_ended` is always the last line, whatever ends the command (success, a refused option,
a failed report, Ctrl-C)."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer

from proctor.errors import ProctorError

if TYPE_CHECKING:
    from proctor.runs.plan import RunOutcome
    from proctor.types import Record, Sample, Score

STATES = {0: "success", 1: "check_failed", 2: "usage_error", 3: "incomplete",
          4: "calls_failed", 130: "interrupted", 143: "terminated", 129: "hangup"}  # fmt: skip
"""Exit code → the word `run_ended` says (the table of `proctor.runs.state`)."""
_NOT_SCORED = ("call_failed", "unscored")


class JsonEvents:
    """Writes the events to the stream that was stdout when the command began."""

    def __init__(self, out: IO[str], results_dir: Path) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._results_dir = results_dir
        self.run_id: str | None = None
        self._tally: dict[str, dict[str, int]] = {}

    def emit(self, event: str, **fields: Any) -> None:
        when = datetime.now(UTC).isoformat(timespec="milliseconds")
        line = json.dumps({"event": event, "time": when, **fields}, ensure_ascii=False)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()

    def started(self, run_id: str, task: str, counts: Mapping[str, tuple[int, int]]) -> None:
        self.run_id = run_id
        for model, (stored, todo) in counts.items():
            self._tally[model] = {"done": stored, "total": stored + todo, "correct": 0,
                                  "scored": 0, "failed": 0}  # fmt: skip
        per_model = {m: {"stored": s, "to_ask": t} for m, (s, t) in counts.items()}
        self.emit("run_started", run_id=run_id, task=task, models=list(counts),
                  planned=per_model)  # fmt: skip

    def stored(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        for r, _ in batch:
            self.emit(
                "answer_stored", run_id=r.run_id or self.run_id, model=r.model,
                sample_id=r.sample_id, epoch=r.epoch, status=r.status,
                finish_reason=r.finish_reason, latency_s=r.latency_s,
                prompt_tokens=r.usage.prompt_tokens,
                completion_tokens=r.usage.completion_tokens, error=r.error,
            )  # fmt: skip

    def graded(self, model: str, score: Score) -> None:
        t = self._tally.setdefault(model, {"done": 0, "total": 0, "correct": 0, "scored": 0,
                                           "failed": 0})  # fmt: skip
        t["done"] += 1
        t["failed"] += score.outcome == "call_failed"
        t["scored"] += score.outcome not in _NOT_SCORED
        t["correct"] += score.outcome == "correct"
        self.emit("progress", run_id=self.run_id, model=model, **t)

    def asked(self, outcome: RunOutcome) -> None:
        """Warnings of the session that asked: the deadline, stopped models, failed calls."""
        if outcome.deadline_hit:
            self.emit("warning", message="deadline reached: unasked samples stay missing")
        for r in outcome.models:
            if r.stopped:
                self.emit("warning", model=r.model, message=f"stopped: {r.stopped}")
            for kind, count in sorted(r.stats.failures_by_type.items()):
                self.emit("warning", model=r.model, message=f"{count} failed calls: {kind}")

    def ended(self, code: int, error: str | None = None, state: str | None = None) -> None:
        folder = self._results_dir / "runs" / self.run_id if self.run_id else None
        files = sorted(str(p) for p in folder.iterdir() if p.is_file()) if folder else []
        fields: dict[str, Any] = {"run_id": self.run_id, "exit_code": code,
                                  "state": state or STATES.get(code, "error"),
                                  "folder": str(folder) if folder else None, "files": files}
        if error is not None:
            fields["error"] = error
        self.emit("run_ended", **fields)


ACTIVE: ContextVar[JsonEvents | None] = ContextVar("proctor_json_events", default=None)


def active() -> JsonEvents | None:
    """The events of the `--json` run under way in this context, if any."""
    return ACTIVE.get()


def warn(console: Any, message: str) -> None:
    """A warning: printed (to stderr), and an event under --json."""
    from proctor.cli.console import plain

    console.print(f"[yellow]warning:[/] {plain(message)}")
    events = active()
    if events is not None:
        events.emit("warning", message=message)


def tee(first: Callable[[str, Score], None], events: JsonEvents | None) -> Callable[..., None]:
    if events is None:
        return first

    def both(model: str, score: Score) -> None:
        first(model, score)
        events.graded(model, score)

    return both


def as_json_lines(command: Callable[..., None], params: dict[str, Any]) -> None:
    """Run `command(**params)` with stdout sent to stderr and its events on the real stdout;
    `run_ended` last, whatever ends it; the command's exit code kept."""
    events = JsonEvents(sys.stdout, Path(params.get("results_dir") or "proctor-results"))
    token = ACTIVE.set(events)
    code, error, state = 0, None, None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            command(**params)
    except BaseException as e:
        code, error, state = _ending(e)
        raise
    finally:
        ACTIVE.reset(token)
        events.ended(code, error, state)


def _ending(e: BaseException) -> tuple[int, str | None, str | None]:
    """(exit code, error message, state) of what ended the command."""
    if isinstance(e, typer.Exit):
        return e.exit_code, None, None
    exit_code, message = getattr(e, "exit_code", None), getattr(e, "format_message", None)
    if isinstance(exit_code, int) and callable(message):  # a usage error typer prints itself
        return exit_code, str(message()), None
    if isinstance(e, SystemExit):
        return (e.code if isinstance(e.code, int) else 1), None, None
    if isinstance(e, ProctorError):
        return 2, str(e), None
    if isinstance(e, KeyboardInterrupt):
        return 130, None, None
    return 1, f"{type(e).__name__}: {e}", "crashed"
