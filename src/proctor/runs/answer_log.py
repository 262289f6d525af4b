"""`samples.jsonl` in the run's folder, written while the run asks: one JSON line per answer
as it is stored (`proctor.foreign.answer_line`: the reply, its status, tokens
and time; no grade yet: the graded lines are `proctor export RUN --to jsonl`), appended and
flushed with each commit of the store, so `tail -f` follows a run and a killed run's file
holds every answer stored before the kill. A resumed run appends to it; a re-asked failed
call is a new line (the file is a log, in the order answers were stored)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from proctor.foreign.answer_line import answer_fields
from proctor.types import Record, Sample

ANSWER_LOG = "samples.jsonl"
_ENCODER = json.JSONEncoder(ensure_ascii=False)  # one for the session, not one per answer
OnStored = Callable[[Sequence[tuple[Record, Sample]]], None]
"""Called with each batch of answers once the store holds them."""


class AnswerLog:
    """Appends each stored batch to `run_dir/samples.jsonl`, whole lines, written through to the
    file (no buffer of ours: `tail -f` and a SIGKILL see every stored answer). The file is
    opened once for the session (an open, stat and close per answer cost a fast run ~20 % of
    its time). The store is the record and this file a view of it: when it cannot be written
    (a full disk) the lines of that batch are taken back and the file is given up for the rest
    of the session, so the store's own error (if the disk stays full) is the one the run
    reports."""

    def __init__(self, run_dir: Path) -> None:
        self._dir = run_dir
        self._fd: int | None = None
        self._given_up = False

    def __call__(self, batch: Sequence[tuple[Record, Sample]]) -> None:
        if not batch or self._given_up:
            return
        lines = (_ENCODER.encode(answer_fields(r, s)) + "\n" for r, s in batch)
        data = memoryview("".join(lines).encode("utf-8"))
        end: int | None = None
        try:
            if self._fd is None:
                self._dir.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self._dir / ANSWER_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            end = os.lseek(self._fd, 0, os.SEEK_END)
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            self._given_up = True
            if self._fd is not None and end is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, end)  # no half line: the batch's lines go back
            self.close()

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def answer_log(run_dir: Path) -> AnswerLog:
    """The session's writer of `run_dir/samples.jsonl` (see `AnswerLog`); close it at the end."""
    return AnswerLog(run_dir)
