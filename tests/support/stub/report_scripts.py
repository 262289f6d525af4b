"""Scripted replies that give a report something to show, for the scripted stub
(`support.stub.scripted`): used by tests/runs/test_streamed_report.py and by
bench/same_report.py, which both compare reports written two ways."""

from __future__ import annotations

import json
import zlib
from typing import Any

from proctor.tasks.registry import get_task, load_for_run
from support.stub.scripted import Script, Scripted


def numbers(offset: int) -> Script:
    """A gsm8k or suite reply: the item's number in one of several forms, or a wrong one."""
    forms = ("Final answer: {t}", "The answer is {t}.", "{t}1", "#### {t}", "I cannot say.")

    def answer(messages: list[dict[str, Any]]) -> Scripted:
        asked = str(messages[-1]["content"])
        form = forms[(zlib.crc32(asked.encode()) + offset) % len(forms)]
        return Scripted(form.format(t=zlib.crc32(asked.encode()) % 50))

    return answer


def structured(offset: int) -> Script:
    """Replies in the structured protocol, their confidence and answer varied per item (right,
    wrong, invalid JSON), so that the calibration has several bins on both sides."""
    by_question = {s.input: s for s in load_for_run(get_task("structured")).samples}

    def answer(messages: list[dict[str, Any]]) -> Scripted:
        asked = str(messages[-1]["content"])
        sample = next(s for q, s in by_question.items() if asked.endswith(q))
        pick = (zlib.crc32(sample.id.encode()) + offset) % 7
        if pick == 6:
            return Scripted("not json at all")
        exact = json.loads(sample.metadata["data_point"])[0]
        reply = {
            "answer": sample.target if pick % 3 else "nothing like it",
            "confidence_score": round(0.15 * pick + 0.05, 2),
            "source_citation": [exact],
            "valid_until": sample.metadata["question_time"],
        }
        return Scripted(json.dumps(reply, ensure_ascii=False))

    return answer
