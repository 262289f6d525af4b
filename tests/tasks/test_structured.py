"""The structured task end to end through the runner with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.calling.retry import RetryPolicy
from proctor.errors import DatasetError
from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.grade import grade_run
from proctor.runs.plan import Calling
from proctor.store import RunStore
from proctor.tasks.registry import get_task, load_for_run
from proctor.tasks.structured import (
    TASK,
    confidence_pairs,
    item_of,
    read_items,
    structured_metrics,
)
from proctor.types import GenerationParams, Prompt

DATA = load_for_run(TASK)
BY_QUESTION = {s.input: s for s in DATA.samples}


def _sample(prompt: Prompt):  # type: ignore[no-untyped-def]
    text = prompt.messages[-1].content
    found = [s for q, s in BY_QUESTION.items() if text.endswith(q)]
    assert len(found) == 1
    return found[0]


def perfect(prompt: Prompt) -> str:
    s = _sample(prompt)
    exact = json.loads(s.metadata["data_point"])[0]
    other = json.loads(s.metadata["sources"])[1][0]
    timeless = s.metadata["time_sensitive"] == "false"
    return json.dumps(
        {
            "answer": s.target,
            "confidence_score": 1.0,
            "source_citation": [exact, other],
            "valid_until": "FOREVER" if timeless else s.metadata["question_time"],
        },
        ensure_ascii=False,
    )


def test_shipped_suite_shape() -> None:
    assert get_task("structured") is TASK
    assert len(DATA.samples) == 20
    langs = {s.metadata["lang"] for s in DATA.samples}
    assert langs == {"en", "zh"}
    assert {s.category for s in DATA.samples} == {
        "en-dated",
        "en-timeless",
        "zh-dated",
        "zh-timeless",
    }
    limited = load_for_run(TASK, limit=4)
    assert len({s.category for s in limited.samples}) == 4


def test_prompt_carries_protocol_sources_and_time() -> None:
    zh = next(s for s in DATA.samples if s.metadata["lang"] == "zh")
    prompt = TASK.build_prompt(zh, "json", "en")
    assert prompt.messages[0].role == "system" and "FOREVER" in prompt.messages[0].content
    assert "提问时间" in prompt.messages[1].content
    assert json.loads(zh.metadata["data_point"])[0] in prompt.messages[1].content


def test_bad_file_names_line_and_field(tmp_path: Path) -> None:
    line = json.dumps(
        {
            "id": "a",
            "question_time": "soon",
            "time_sensitive": True,
            "question": "q",
            "expected": "1",
            "sources": [{"id": "s", "text": "t"}],
        }
    )
    with pytest.raises(DatasetError, match=r"f.jsonl:2: field 'question_time'"):
        read_items("\n" + line, "f.jsonl")


async def test_runner_grades_perfect_and_broken_models(tmp_path: Path) -> None:
    plan = RunPlan(
        task=TASK,
        samples=DATA.samples,
        dataset_hash=DATA.content_hash,
        generator_version=DATA.generator_version,
        models=("fake/perfect", "fake/broken"),
        variant="json",
        lang="en",
        params=GenerationParams(timeout_s=5.0, max_tokens=256),
        results_dir=tmp_path / "results",
        calling=Calling(retry=RetryPolicy(max_attempts=1)),
    )
    providers = {
        "fake/perfect": FakeProvider("fake/perfect", perfect),
        "fake/broken": FakeProvider("fake/broken", "Sure! {'answer': 42}"),
    }
    outcome = await execute(plan, providers=providers)
    with RunStore.open(plan.results_dir) as store:
        _info, items = grade_run(store, outcome.run_id, TASK)
    perfect_items = [i for i in items if i.record.model == "fake/perfect"]
    broken_items = [i for i in items if i.record.model == "fake/broken"]
    assert all(i.score.outcome == "correct" for i in perfect_items), [
        i.score.explanation for i in perfect_items if i.score.outcome != "correct"
    ]
    assert all(i.score.outcome == "violation" for i in broken_items)
    assert "invalid JSON" in broken_items[0].score.explanation
    metrics = structured_metrics(items)
    assert metrics["fake/perfect"]["structured total (mean)"] == pytest.approx(1.0)
    assert metrics["fake/perfect"]["ECE"] == pytest.approx(0.0)
    assert metrics["fake/broken"]["structured total (mean)"] == 0.0
    assert metrics["fake/broken"]["valid replies"] == 0.0
    assert "ECE" not in metrics["fake/broken"]
    pairs = confidence_pairs(items)
    assert pairs["fake/perfect"] == [(1.0, True)] * len(perfect_items)
    assert "fake/broken" not in pairs


def _line(**extra: object) -> str:
    row = {
        "id": "a",
        "question_time": "2024-01-01",
        "time_sensitive": True,
        "question": "How much?",
        "expected": "180000",
        "sources": [{"id": "s", "text": "t"}],
        **extra,
    }
    return json.dumps(row, ensure_ascii=False)


@pytest.mark.parametrize(
    ("extra", "field", "why"),
    [
        ({"unit": "furlongs"}, "unit", "not in the unit table"),
        ({"unit": "tons"}, "unit", "ambiguous"),
        ({"unit": "tonnes", "expected": "180000 kg"}, "unit", "in kilogram"),
        ({"tolerance": -1}, "tolerance", "greater than or equal to 0"),
        ({"tolerance": 5, "expected": "Canberra"}, "tolerance", "numeric expected answer"),
        ({"unit": "tonnes", "expected": "Canberra"}, "unit", "numeric expected answer"),
    ],
)
def test_bad_contract_names_line_and_field(extra: dict[str, object], field: str, why: str) -> None:
    with pytest.raises(DatasetError, match=rf"f.jsonl:1: field '{field}'.*{why}"):
        read_items(_line(**extra), "f.jsonl")


def test_shipped_contracts_agree_with_their_questions() -> None:
    """Every numeric item states its unit, and it is the unit its question names, when the
    question names one (the EV item counts units in millions: cars, not the table's 'units')."""
    from proctor.extract.quantity_match import expected_quantity, parse_unit, unit_asked

    for s in DATA.samples:
        item = item_of(s)
        if expected_quantity(s.target) is None or s.id in ("en-hypotenuse", "zh-pi-two-places",
                                                           "zh-oxygen-number"):  # fmt: skip
            assert not item.unit, s.id
            continue
        assert item.unit, s.id
        asked = unit_asked(s.input)
        if asked and s.id != "en-ev-growth":
            assert parse_unit(asked) == parse_unit(item.unit), s.id
