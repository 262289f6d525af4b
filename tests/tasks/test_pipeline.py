"""Every benchmark task's whole pipe with a scripted fake provider: load → prompt → call → store →
extract → score (the code tasks through the sandbox) → repeated-sampling metrics."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.providers.fake import FakeProvider
from proctor.runs.ask import RunPlan, execute
from proctor.runs.grade import grade_run
from proctor.runs.plan import Calling
from proctor.stats.repeats import repeat_metrics
from proctor.store import RunStore
from proctor.tasks.base import Task
from proctor.tasks.registry import get_task, load_for_run, resolve_variant
from proctor.types import GenerationParams, GradedItem, Prompt, Sample

GPQA_ROWS = [
    {
        "Record ID": f"rec{i}",
        "Question": f"Synthetic question {i}: which value is the reference value?",
        "Correct Answer": f"right {i}",
        "Incorrect Answer 1": f"wrong a{i}",
        "Incorrect Answer 2": f"wrong b{i}",
        "Incorrect Answer 3": f"wrong c{i}",
        "High-level domain": "Physics",
        "Subdomain": "Synthetic",
    }
    for i in range(4)
]


def write_gpqa_csv(path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(GPQA_ROWS[0]))
        writer.writeheader()
        writer.writerows(GPQA_ROWS)
    return path


def right_answer(task: str, sample: Sample) -> str:
    t = sample.target
    if task == "gsm8k":
        return f"Step by step: ... so the total is {t}.\nThe answer is {t}."
    if task in ("math500", "aime", "aime2025"):
        return f"Working it out carefully.\nThus the answer is $\\boxed{{{t}}}$."
    if task == "humaneval":
        return f"Here it is:\n```python\n{sample.input}{t}\n```"
    if task == "mbpp":
        return f"```python\n{t}\n```"
    if task == "gpqa":
        return f"Comparing the options, the reference value fits.\nAnswer: {t}"
    raise AssertionError(task)


def wrong_answer(task: str, sample: Sample) -> str:
    if task in ("humaneval", "mbpp"):
        fn = sample.metadata.get("entry_point") or "f"
        return f"```python\ndef {fn}(*args, **kwargs):\n    return None\n```"
    if task == "gpqa":
        return "Answer: " + ("A" if sample.target != "A" else "B")
    return "The answer is \\boxed{-12345}."


def scripted(
    task: str, samples: tuple[Sample, ...], answer: Callable[[str, Sample], str]
) -> FakeProvider:
    def reply(prompt: Prompt) -> str:
        last = prompt.messages[-1].content
        for s in samples:
            if s.input.strip() in last:
                return answer(task, s)
        raise AssertionError(f"no sample matches the prompt {last[:80]!r}")

    return FakeProvider("fake", reply)


def run_task(
    task: Task,
    samples: tuple[Sample, ...],
    provider: FakeProvider,
    tmp: Path,
    *,
    variant: str | None = None,
    epochs: int = 1,
) -> list[GradedItem]:
    plan = RunPlan(
        task=task,
        samples=samples,
        dataset_hash="sha256:test",
        generator_version="test",
        models=("fake",),
        variant=resolve_variant(task, variant),
        lang="en",
        params=GenerationParams(temperature=0.7 if epochs > 1 else 0.0, max_tokens=64),
        results_dir=tmp,
        calling=Calling(epochs=epochs),
    )
    outcome = asyncio.run(execute(plan, providers={"fake": provider}))
    with RunStore.open(tmp) as store:
        _, items = grade_run(store, outcome.run_id, task)
    return items


def load(name: str, tmp: Path, limit: int) -> tuple[Task, tuple[Sample, ...]]:
    task = get_task(name)
    dataset = write_gpqa_csv(tmp / "gpqa.csv") if name == "gpqa" else None
    data = load_for_run(task, dataset=dataset, seed=7, limit=limit)
    return task, data.samples


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("gsm8k", "zero-shot"),
        ("gsm8k", "few-shot"),
        ("math500", "zero-shot"),
        ("math500", "few-shot"),
        ("aime", None),
        ("aime2025", None),
        ("humaneval", None),
        ("mbpp", "zero-shot"),
        ("mbpp", "few-shot"),
        ("gpqa", None),
    ],
)
def test_each_task_end_to_end_right_then_wrong(
    name: str, variant: str | None, tmp_path: Path
) -> None:
    task, samples = load(name, tmp_path, 4)
    assert len(samples) == 4
    right = run_task(
        task, samples, scripted(name, samples, right_answer), tmp_path / "right", variant=variant
    )
    assert [i.score.outcome for i in right] == ["correct"] * 4, [i.score.explanation for i in right]
    assert all(i.score.format_ok for i in right)
    wrong = run_task(
        task, samples, scripted(name, samples, wrong_answer), tmp_path / "wrong", variant=variant
    )
    assert [i.score.outcome for i in wrong] == ["wrong"] * 4, [i.score.explanation for i in wrong]
    if name in ("humaneval", "mbpp"):
        assert all("[sandbox: " in i.score.explanation for i in right + wrong)


def test_few_shot_prompts_are_earlier_chat_turns(tmp_path: Path) -> None:
    for name, turns in (("gsm8k", 17), ("math500", 9), ("mbpp", 7)):
        task, samples = load(name, tmp_path, 1)
        prompt = task.build_prompt(samples[0], "few-shot", "en")
        assert len(prompt.messages) == turns
        assert [m.role for m in prompt.messages[:2]] == ["user", "assistant"]
        assert prompt.messages[-1].role == "user"


def test_gsm8k_metrics_set_lmeval_filters_beside_ours(tmp_path: Path) -> None:
    task, samples = load("gsm8k", tmp_path, 4)
    boxed = lambda _t, s: f"So it is \\boxed{{{s.target}}} in all."  # noqa: E731
    items = run_task(task, samples, scripted("gsm8k", samples, boxed), tmp_path / "b")
    assert task.metrics is not None
    metrics = task.metrics(items)["fake"]
    assert metrics["accuracy (proctor extraction)"] == 1.0
    assert metrics["accuracy (lm-eval strict-match)"] == 0.0  # \boxed{} is invisible to it


def test_repeated_sampling_gives_pass_at_k_and_majority(tmp_path: Path) -> None:
    task, samples = load("humaneval", tmp_path, 2)
    calls = {"n": 0}

    def alternate(prompt: Prompt) -> str:
        calls["n"] += 1
        s = next(x for x in samples if x.input.strip() in prompt.messages[-1].content)
        # first sample: right 1 time in 3; second: right every time
        good = s.id == samples[1].id or calls["n"] % 3 == 0
        return (right_answer if good else wrong_answer)("humaneval", s)

    items = run_task(task, samples, FakeProvider("fake", alternate), tmp_path / "r", epochs=3)
    assert len(items) == 6
    per = repeat_metrics(items)["fake"]
    first_correct = sum(i.score.outcome == "correct" for i in items if i.sample.id == samples[0].id)
    expected_pass1 = (first_correct / 3 + 1.0) / 2
    assert per.pass_at[1].value == pytest.approx(expected_pass1)
    assert per.pass_at[3].value == pytest.approx((1.0 if first_correct else 0.0) / 2 + 0.5)


def test_gpqa_without_a_file_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from proctor.errors import ConfigError

    monkeypatch.delenv("PROCTOR_GPQA", raising=False)
    with pytest.raises(ConfigError, match="not shipped"):
        get_task("gpqa").load(None, None)


def test_unknown_variant_names_the_tasks_own(tmp_path: Path) -> None:
    from proctor.errors import ConfigError

    with pytest.raises(ConfigError, match="zero-shot or few-shot"):
        resolve_variant(get_task("gsm8k"), "B")
    assert resolve_variant(get_task("arithmetic"), "b") == "B"
    assert json.dumps(get_task("math500").max_tokens) == '{"zero-shot": 1024, "few-shot": 1024}'


def test_reasoning_trace_is_kept_in_the_store_and_ignored_by_grading(tmp_path: Path) -> None:
    task, samples = load("gsm8k", tmp_path, 1)
    t = samples[0].target
    reply = f"<think>Maybe the answer is {int(t) + 1}.</think>So the answer is {t}."
    items = run_task(task, samples, FakeProvider("fake", reply), tmp_path / "t")
    assert items[0].record.text == reply
    assert items[0].score.outcome == "correct"
    assert items[0].score.extracted == t
