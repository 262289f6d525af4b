"""The structured task's keys are defined once (`score.structured.StructuredAnswer`): what
`proctor list tasks` documents, what the prompt asks for and what the grader accepts agree.
Through the CLI: a reply with the documented keys is read; one with the keys the listing used
to document (confidence, citations) is a protocol violation, never correct."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from proctor.replay import serve_replies
from proctor.score.structured import ANSWER_FIELDS, StructuredAnswer
from proctor.tasks.registry import get_task
from support.replayed_run import proctor


def listed_keys() -> list[str]:
    done = proctor("list", "tasks")
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if re.search(r"^\W*structured\s", x)]
    found = re.search(r"\{([^}]*)\}", line)
    assert found, line
    return [k.strip() for k in found[1].split(",")]


def test_the_listing_the_prompt_and_the_grader_name_the_same_keys() -> None:
    assert listed_keys() == list(ANSWER_FIELDS) == list(StructuredAnswer.model_fields)
    task = get_task("structured")
    samples = task.load(None, None).samples
    for lang in ("en", "zh"):
        sample = next(s for s in samples if s.metadata["lang"] == lang)
        system = task.build_prompt(sample, task.default_variant, lang).messages[0].content
        assert re.findall(r'"(\w+)":', system) == list(ANSWER_FIELDS), lang


def test_a_reply_with_the_listed_keys_is_read_and_the_old_keys_are_not(tmp_path: Path) -> None:
    keys = listed_keys()
    good = dict(zip(keys, ["x", 0.5, ["S1", "S2"], "FOREVER"], strict=True))
    old = {"answer": "x", "confidence": 0.5, "citations": ["S1", "S2"], "valid_until": "FOREVER"}
    results = tmp_path / "results"
    with (
        serve_replies((("", json.dumps(good)),), "listed") as a,
        serve_replies((("", json.dumps(old)),), "old") as b,
    ):
        done = proctor("run", "structured", "--limit", "2", "-r", results,
                       "-m", f"openai-compat/listed@{a.base_url}",
                       "-m", f"openai-compat/old@{b.base_url}")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (samples,) = results.glob("runs/*/samples.csv")
    with samples.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    listed = [r for r in rows if "listed@" in r["model"]]
    stale = [r for r in rows if "old@" in r["model"]]
    assert len(listed) == len(stale) == 2
    assert all(r["outcome"] == "violation" for r in stale)  # never correct
    assert all("confidence_score" in r["explanation"] for r in stale)
    assert not any("Field required" in r["explanation"] for r in listed)
    assert all(r["outcome"] != "violation" for r in listed)
