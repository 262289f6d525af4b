"""samples.jsonl, streamed while a run asks (`proctor.runs.answer_log`): one line per stored
answer, failed calls included; `on_stored` sees the same answers; a run that asks again
(--retry-errors) appends. The CLI's file: tests/foreign/test_export.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proctor.errors import AuthError
from proctor.providers.fake import FakeProvider, Reply
from proctor.runs.answer_log import ANSWER_LOG
from proctor.runs.ask import execute
from proctor.types import Prompt, Record, Sample

from .test_ask import MODELS, N, correct, fakes, plan_for, sample_of


def lines(run_dir: Path) -> list[dict[str, object]]:
    text = (run_dir / ANSWER_LOG).read_text(encoding="utf-8")
    assert text.endswith("\n")  # whole lines only
    return [json.loads(line) for line in text.splitlines()]


async def test_every_stored_answer_is_a_line_and_a_retry_appends(tmp_path: Path) -> None:
    plan = plan_for(tmp_path)

    def fails_on_q1(prompt: Prompt) -> Reply:
        if sample_of(prompt).id == "q1":
            return AuthError("HTTP 401: nope", status=401)
        return correct(prompt)

    seen: list[tuple[Record, Sample]] = []
    providers = {"fake/a": FakeProvider("fake/a", fails_on_q1), "fake/b": fakes()["fake/b"]}
    outcome = await execute(plan, providers=providers, on_stored=seen.extend)
    first = lines(outcome.run_dir)
    assert len(first) == N * len(MODELS) == len(seen)
    assert {(x["model"], x["sample_id"]) for x in first} == {
        (r.model, r.sample_id) for r, _ in seen
    }
    (failed,) = [x for x in first if x["status"] == "call_failed"]
    assert (failed["model"], failed["sample_id"], failed["reply"]) == ("fake/a", "q1", "")
    assert "nope" in str(failed["error"]) and failed["target"] == "101"

    again = await execute(plan, resume=outcome.run_id, retry_errors=True, providers=fakes())
    after = lines(again.run_dir)
    assert after[: len(first)] == first
    (retried,) = after[len(first) :]
    assert (retried["model"], retried["sample_id"], retried["status"]) == ("fake/a", "q1", "ok")
    assert retried["reply"] == "Let me add.\nFinal answer: 101"


def test_a_log_that_cannot_be_written_is_given_up_whole_lines_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while appending: the batch's partial lines are taken back, later batches
    are not written (the store reports the disk itself), nothing is raised."""
    from proctor.runs.answer_log import answer_log
    from proctor.types import Usage

    def rec(sample_id: str) -> tuple[Record, Sample]:
        r = Record("r", "m", sample_id, "ok", "reply", "stop", Usage(1, 1), 0.1, 1, "A", "en")
        return r, Sample(sample_id, "1 + 1", "2")

    write = answer_log(tmp_path)
    write([rec("a")])
    kept = (tmp_path / ANSWER_LOG).read_bytes()
    real_write = os.write

    def full(fd: int, data: bytes | memoryview) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))  # half the batch reaches the disk
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "write", full)
        write([rec("b"), rec("c")])
    write([rec("d")])
    assert (tmp_path / ANSWER_LOG).read_bytes() == kept
