"""`proctor new task NAME`: a commented task file and a test of it that passes as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from proctor.cli.plain_help import command_group
from proctor.errors import ConfigError

new_app = command_group(help="Write a template to start from.", no_args_is_help=True)

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

TASK_TEMPLATE = '''"""{name}: a proctor task of your own.

Run it:        proctor run {name}.py:{name} -m MODEL      (e.g. -m openai-compat/NAME@URL)
Re-grade it:   proctor score RUN       Report: proctor report RUN      Gate: proctor gate RUN
Test it:       python -m pytest test_{name}.py
"""

import proctor
from proctor import Record, Sample


# A scorer decides one answered reply (a failed call never reaches it: that is `call_failed`,
# never a wrong answer). Its rule is one sentence: every report prints it next to a failure.
# Return True (correct), False (wrong), or a proctor.Score for anything finer ("unscored" with
# a reason when the reply can be read two ways: never guess "correct").
@proctor.scorer(rule="The reply's last line, trimmed and case-folded, equals the target.")
def last_line_equals(reply: Record, sample: Sample) -> bool:
    lines = reply.text.strip().splitlines()
    return bool(lines) and lines[-1].strip().casefold() == sample.target.strip().casefold()


# Samples: a list, a function that reads them (your database, an API), or a .jsonl/.csv file
# with id, input and target (see the README's "Your own test set").
SAMPLES = [
    Sample(id="fr", input="France", target="Paris", answer_type="text"),
    Sample(id="jp", input="Japan", target="Tokyo", answer_type="text"),
]

{name} = proctor.define_task(
    "{name}",
    samples=SAMPLES,
    # A template ({{input}}, {{id}}, {{category}}, {{metadata[KEY]}}; never the target) or a
    # function of the sample returning the text (or a proctor Prompt).
    prompt="What is the capital of {{input}}? Reply with the city only, on the last line.",
    scorer=last_line_equals,
    # Change the version whenever grading changes, so old and new scores are never mixed up.
    version="1",
    max_tokens=64,
)
'''

TEST_TEMPLATE = '''"""Tests of the task in {name}.py: its scorer on replies written by hand, and a
whole run against a scripted model (no server, no key)."""

from pathlib import Path

import proctor
from proctor import Record
from proctor.testing import assert_run
from proctor.types import Usage

from {name} import SAMPLES, {name}, last_line_equals


def reply(text: str, finish_reason: str = "stop") -> Record:
    return Record(
        run_id="test", model="hand", sample_id="fr", status="ok", text=text,
        finish_reason=finish_reason, usage=Usage(), latency_s=0.0, attempts=1,
        prompt_variant="default", lang="en",
    )


def test_the_scorer_says_no_to_near_misses() -> None:
    paris = SAMPLES[0]
    for text in ("Pariss", "Lyon", "", "Paris, or maybe Lyon"):
        assert last_line_equals(reply(text), paris).outcome != "correct", text
    assert last_line_equals(reply("The capital is:\\n Paris "), paris).outcome == "correct"


def test_a_whole_run_is_stored_graded_and_gated(tmp_path: Path) -> None:
    run = proctor.evaluate({name}, ["fake/const:Paris"], results_dir=tmp_path, limit=1)
    assert (run.folder / "results.json").exists()
    # one item proves no rate by its interval: the point-estimate rule, named
    assert_run(run, "rule=point:accuracy>=1.0")
    assert proctor.load_run(run.id, results_dir=tmp_path, task={name}).accuracy() == 1.0
'''


@new_app.command(name="task")
def new_task(
    name: Annotated[str, typer.Argument(help="The task's name: a Python identifier.")],
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to write NAME.py and test_NAME.py.")
    ] = Path(),
) -> None:
    """Write NAME.py (a commented task: samples, prompt, scorer, version) and test_NAME.py (a
    test of it that passes as written); refuses to overwrite a file."""
    from proctor.cli.console import SafeConsole, plain

    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"bad task name {name!r}: use lower-case letters, digits and _ (a Python identifier)"
        )
    task_file, test_file = directory / f"{name}.py", directory / f"test_{name}.py"
    for path in (task_file, test_file):
        if path.exists():
            raise ConfigError(f"{path} exists already: nothing written")
    directory.mkdir(parents=True, exist_ok=True)
    task_file.write_text(TASK_TEMPLATE.format(name=name), encoding="utf-8")
    test_file.write_text(TEST_TEMPLATE.format(name=name), encoding="utf-8")
    console = SafeConsole()
    console.print(f"wrote {plain(task_file)} and {plain(test_file)}")
    console.print(f"  proctor run {plain(task_file)}:{name} -m MODEL")
    console.print(f"  python -m pytest {plain(test_file)}")
