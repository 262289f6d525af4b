"""How a task's item is asked (`proctor.tasks.prompting`): a value naming the task's own variant
is that variant; any other is a prompt file, whose grading variant must be the task's; a file is
rendered with the item's fields (never its answer), and graded by the task's own extractor."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.prompts.files import PromptFile
from proctor.tasks.arithmetic import load
from proctor.tasks.prompting import (
    asked_prompt,
    grading_variant,
    longest_max_tokens,
    read_task_prompt,
)
from proctor.tasks.registry import get_task

ARITHMETIC = get_task("arithmetic")


def test_an_unknown_variant_and_a_missing_file_are_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown prompt variant 'C'.*or a prompt file"):
        read_task_prompt(ARITHMETIC, "C")
    with pytest.raises(ConfigError, match=r"prompt file .*gone.txt: no such file"):
        read_task_prompt(ARITHMETIC, str(tmp_path / "gone.txt"))


def test_grade_as_must_name_one_of_the_tasks_variants(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("---\ngrade_as: zero-shot\n---\n{{ question }}\n")
    with pytest.raises(ConfigError, match=r"p.txt: grade_as: unknown prompt variant 'zero-shot'"):
        read_task_prompt(ARITHMETIC, str(path))


def test_a_variant_wins_over_a_file_of_its_name(tmp_path: Path) -> None:
    (tmp_path / "A").write_text("{{ question }}")
    assert read_task_prompt(ARITHMETIC, "a", base=tmp_path) == "A"
    found = read_task_prompt(ARITHMETIC, "./A", base=tmp_path)
    assert isinstance(found, PromptFile) and found.name == "A"


def test_a_file_is_graded_as_the_tasks_default_unless_it_says(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("{{ question }}")
    (tmp_path / "short.txt").write_text("---\ngrade_as: a\n---\n{{ question }}")
    plain = read_task_prompt(ARITHMETIC, "plain.txt", base=tmp_path)
    short = read_task_prompt(ARITHMETIC, "short.txt", base=tmp_path)
    assert isinstance(plain, PromptFile) and isinstance(short, PromptFile)
    assert grading_variant(ARITHMETIC, plain) == "B"
    assert grading_variant(ARITHMETIC, short) == "A"  # the task's own spelling
    assert longest_max_tokens(ARITHMETIC) == 256  # B's, not A's 32


def test_a_file_renders_the_items_fields_and_the_tasks_own_prompt(tmp_path: Path) -> None:
    (tmp_path / "wrap.txt").write_text(
        "---\nsystem: item {{ id }} ({{ category }})\n---\n[{{ task_prompt }}]\n{{ answer_type }}"
    )
    found = read_task_prompt(ARITHMETIC, "wrap.txt", base=tmp_path)
    assert isinstance(found, PromptFile)
    sample = load(None, 1).samples[0]
    prompt = asked_prompt(ARITHMETIC, {found.key: found}, found.key, "en", sample)
    own = ARITHMETIC.build_prompt(sample, "B", "en").messages[-1].content
    assert prompt.variant == "B" and prompt.lang == "en"
    assert [m.role for m in prompt.messages] == ["system", "user"]
    assert prompt.messages[0].content == f"item {sample.id} ({sample.category})"
    assert prompt.messages[1].content == f"[{own}]\n{sample.answer_type}"
    assert sample.target not in prompt.messages[0].content
    # a task variant is the task's own prompt, unchanged
    assert asked_prompt(ARITHMETIC, {found.key: found}, "A", "en", sample) == (
        ARITHMETIC.build_prompt(sample, "A", "en")
    )
