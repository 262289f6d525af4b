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
OnStored = Callable[[Sequence[tuple[Record, Sample]]], None]
"""Called with each batch of answers once the store holds them."""


def answer_log(run_dir: Path) -> OnStored:
    """Appends each stored batch to `run_dir/samples.jsonl`, whole lines, flushed. The store is
    the record and this file a view of it: when it cannot be written (a full disk) the lines
    of that batch are taken back and the file is given up for the rest of the session, so
    the store's own error (if the disk stays full) is the one the run reports."""
    path = run_dir / ANSWER_LOG
    given_up: list[bool] = []

    def write(batch: Sequence[tuple[Record, Sample]]) -> None:
        if not batch or given_up:
            return
        lines = (json.dumps(answer_fields(r, s), ensure_ascii=False) + "\n" for r, s in batch)
        text = "".join(lines)
        size: int | None = None
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            size = path.stat().st_size if path.exists() else 0
            with path.open("a", encoding="utf-8") as f:
                f.write(text)
                f.flush()
        except OSError:
            given_up.append(True)
            if size is not None:
                with contextlib.suppress(OSError):
                    os.truncate(path, size)  # no half line: the batch's lines go back

    return write
