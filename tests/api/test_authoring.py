"""The shapes a user writes: a scorer (one signature, a one-sentence rule), a task from parts,
the template `proctor new task` writes (its own test passes as written), and what each refuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import proctor
import proctor.types
from proctor.errors import ConfigError
from proctor.types import FinishReason, Record, Sample, Usage

PARIS = Sample(id="fr", input="France", target="Paris", answer_type="text")


def record(text: str, *, status: str = "ok", finish: FinishReason = "stop") -> Record:
    return Record(
        run_id="r", model="m", sample_id="fr", status=status,  # type: ignore[arg-type]
        text=text, finish_reason=finish, usage=Usage(), latency_s=0.0, attempts=1,
        prompt_variant="default", lang="en", error="HTTP 500" if status != "ok" else "",
    )  # fmt: skip


calls: list[str] = []


@proctor.scorer(rule="The reply, trimmed, is the target city.")
def city(reply: Record, sample: Sample) -> bool:
    calls.append(reply.text)
    return reply.text.strip() == sample.target


@pytest.mark.parametrize(
    ("text", "status", "finish", "outcome", "rule"),
    [
        # what must NOT be correct first
        ("Pariss", "ok", "stop", "wrong", "city"),
        ("", "ok", "stop", "wrong", "city"),
        ("Par", "ok", "length", "truncated", "truncated"),
        ("Paris", "call_failed", "unknown", "call_failed", "call_failed"),
        ("Paris", "ok", "stop", "correct", "city"),
    ],
)
def test_a_scorer_decides_answered_replies_only(
    text: str, status: str, finish: FinishReason, outcome: str, rule: str
) -> None:
    calls.clear()
    score = city(record(text, status=status, finish=finish), PARIS)
    assert (score.outcome, score.rule) == (outcome, rule)
    assert calls == ([] if status == "call_failed" else [text])  # a failed call never reaches it


def test_a_scorer_that_raises_or_returns_junk_leaves_the_reply_unscored() -> None:
    @proctor.scorer(rule="Raises.")
    def boom(reply: Record, sample: Sample) -> bool:
        raise KeyError("no such field")

    @proctor.scorer(rule="Returns a string.")
    def junk(reply: Record, sample: Sample) -> bool:
        return "yes"  # type: ignore[return-value]

    raised, returned = boom(record("x"), PARIS), junk(record("x"), PARIS)
    assert (raised.outcome, raised.rule) == ("unscored", "scorer_error")
    assert "KeyError" in raised.explanation
    assert returned.outcome == "unscored" and "returned str" in returned.explanation


@pytest.mark.parametrize("rule", ["", "   ", "First.\n\nSecond paragraph."])
def test_a_scorer_needs_its_one_sentence_rule(rule: str) -> None:
    with pytest.raises(ValueError, match="needs its rule"):
        proctor.scorer(rule=rule)(lambda r, s: True)


def test_a_prompt_template_never_shows_the_target() -> None:
    task = proctor.define_task(
        "t", samples=[PARIS], prompt="{input} is {target}?", scorer=city, version="1"
    )
    with pytest.raises(ConfigError, match="KeyError"):
        task.build_prompt(PARIS, "default", "en")


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"version": ""}, "needs a version"),
        ({"samples": []}, "has no samples"),
        ({"samples": [PARIS, PARIS]}, "used twice"),
        ({"scorer": "no-such-scorer"}, "unknown scorer 'no-such-scorer'"),
    ],
)
def test_define_task_refuses(kwargs: dict[str, object], fragment: str) -> None:
    parts: dict[str, object] = {"samples": [PARIS], "prompt": "{input}", "scorer": city}
    parts["version"] = "1"
    parts.update(kwargs)
    with pytest.raises(ConfigError, match=fragment):
        task = proctor.define_task("t", **parts)  # type: ignore[arg-type]
        task.load(None, None)


def test_a_python_task_cannot_take_a_builtin_name() -> None:
    task = proctor.define_task("arithmetic", samples=[PARIS], prompt="{input}", scorer=city,
                               version="1")  # fmt: skip
    with pytest.raises(ConfigError, match="taken by a built-in task"):
        proctor.evaluate(task, ["fake/const:Paris"])


def test_proctor_new_task_writes_a_template_whose_test_passes(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    made = subprocess.run(
        [sys.executable, "-m", "proctor", "new", "task", "support_qa", "--dir", "evals"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_support_qa.py"],
        cwd=tmp_path / "evals", env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "2 passed" in tested.stdout
    again = subprocess.run(
        [sys.executable, "-m", "proctor", "new", "task", "support_qa", "--dir", "evals"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert again.returncode == 2 and "exists already" in again.stderr


async def test_inside_an_event_loop_evaluate_says_to_await_evaluate_async(tmp_path: Path) -> None:
    task = proctor.define_task("loop-cities", samples=[PARIS], prompt="{input}", scorer=city,
                               version="1")  # fmt: skip
    with pytest.raises(ConfigError, match="evaluate_async"):
        proctor.evaluate(task, ["fake/const:Paris"], results_dir=tmp_path)
    run = await proctor.evaluate_async(task, ["fake/const:Paris"], results_dir=tmp_path)
    assert run.accuracy() == 1.0 and run.complete


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("raise RuntimeError('db is down')", "failed to load: RuntimeError: db is down"),
        ("x = (", "failed to load: SyntaxError"),
        ("import sys\nsys.exit(3)", "failed to load: SystemExit: 3"),
        ("t = 42", "is int, not a proctor Task"),
        ("import proctor\nother = 1", "no task named 't'"),
        (
            "import dataclasses, proctor\nfrom proctor import Sample\n"
            "@proctor.scorer(rule='Same.')\ndef s(r, x): return True\n"
            "t = dataclasses.replace(proctor.define_task('n', samples=[Sample('a', 'b', 'c')],"
            " prompt='{input}', scorer=s, version='1'), rules={})",
            "states no rules",
        ),
    ],
)
def test_a_task_file_that_fails_is_one_line_naming_it(
    tmp_path: Path, source: str, fragment: str
) -> None:
    path = tmp_path / "bad_tasks.py"
    path.write_text(source)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "run", f"{path}:t", "-m", "fake/const:1", "-r", "res"],
        cwd=tmp_path, env={**env, "COLUMNS": "300"}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert fragment in " ".join(done.stderr.split()) and "bad_tasks.py" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "res").exists()


class CapitalBot:
    """A provider of the user's own, handed to evaluate as an object."""

    name = "my-bot"
    max_concurrency = 2

    async def complete(self, prompt: proctor.types.Prompt, params: object) -> object:
        text = prompt.messages[-1].content
        if "Japan" in text:
            raise RuntimeError("bot crashed")
        return proctor.types.Completion("Paris", "stop", Usage(3, 1), self.name, 0.0)

    async def aclose(self) -> None:
        pass


def test_evaluate_takes_a_provider_object_held_to_the_contract(tmp_path: Path) -> None:
    tokyo = Sample(id="jp", input="Japan", target="Tokyo", answer_type="text")
    task = proctor.define_task("bot-cities", samples=[PARIS, tokyo], prompt="{input}",
                               scorer=city, version="1")  # fmt: skip
    run = proctor.evaluate(task, [CapitalBot()], results_dir=tmp_path)  # type: ignore[list-item]
    assert run.models == ("my-bot",)
    outcomes = {i.sample.id: (i.score.outcome, i.record.error) for i in run.items}
    assert outcomes["fr"] == ("correct", "")
    assert outcomes["jp"][0] == "call_failed"  # never a wrong answer, never a traceback
    assert "provider 'my-bot' raised RuntimeError: bot crashed" in outcomes["jp"][1]
    assert not run.complete and run.accuracy() == 1.0


def test_evaluate_asks_a_prompt_file_of_a_provider_object(tmp_path: Path) -> None:
    seen: list[str] = []

    class Recording(CapitalBot):
        async def complete(self, prompt: proctor.types.Prompt, params: object) -> object:
            seen.append(prompt.messages[-1].content)
            return await super().complete(prompt, params)

    (tmp_path / "capital.txt").write_text("What is the capital of {{ question }}?")
    task = proctor.define_task("bot-capitals", samples=[PARIS], prompt="{input}", scorer=city,
                               version="1")  # fmt: skip
    run = proctor.evaluate(task, [Recording()], results_dir=tmp_path / "r",  # type: ignore[list-item]
                           prompt=str(tmp_path / "capital.txt"))  # fmt: skip
    (model,) = run.models
    assert model.startswith("my-bot#prompt=capital.txt@")
    assert seen == ["What is the capital of France?"] and run.accuracy() == 1.0
