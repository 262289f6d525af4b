"""How a task's item is asked: with one of the task's own prompt variants, or with a prompt
file (`proctor.prompts.files`) whose replies the task still grades its own way (the variant the
file names in `grade_as`, else the task's default). One function builds every asked prompt, so
the run, its estimate and the response cache's keys see the same messages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from proctor.errors import ConfigError
from proctor.prompts.files import PromptFile, read_prompt_file, render_messages
from proctor.tasks.base import Task
from proctor.types import Prompt, Sample

RENDER_CHECKED = 1000
"""Items each prompt file is rendered for before a run asks anything (`check_asks`)."""

PromptFiles = Mapping[str, PromptFile]
"""A run's prompt files by their key (`PromptFile.key`, the `prompt=` of a variant's model)."""


def is_variant(task: Task, value: str) -> bool:
    """Whether `value` names one of the task's own prompt variants (which win over a file of
    the same name: write ./A for a file called A)."""
    return any(v.lower() == value.strip().lower() for v in task.variants)


def read_task_prompt(task: Task, value: str, base: Path | None = None) -> str | PromptFile:
    """`--prompt VALUE` for `task`: its own variant's spelling, or the prompt file VALUE
    names (relative to `base`, default the working folder), checked against the task."""
    from proctor.tasks.registry import resolve_variant

    if is_variant(task, value):
        return resolve_variant(task, value)
    path = Path(value).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.exists():
        looks_like_file = "/" in value or "." in value
        if looks_like_file:
            raise ConfigError(f"prompt file {path}: no such file")
        raise ConfigError(
            f"unknown prompt variant {value!r} for task {task.name}: use "
            f"{' or '.join(task.variants)}, or a prompt file (a path)"
        )
    found = read_prompt_file(path)
    if found.grade_as is not None:
        try:
            grade_as = resolve_variant(task, found.grade_as)
        except ConfigError as e:
            raise ConfigError(f"{path}: grade_as: {e}") from None
        found = replace(found, grade_as=grade_as)
    return found


def grading_variant(task: Task, prompt: PromptFile) -> str:
    """The task variant whose extractor grades replies to `prompt`."""
    return prompt.grade_as or task.default_variant


def longest_max_tokens(task: Task) -> int:
    """A prompt file's reply length when none is asked: the longest of the task's defaults (a
    file may ask for reasoning; an answer-only default would cut it)."""
    from proctor.tasks.registry import default_max_tokens

    return max(default_max_tokens(task, v) for v in task.variants)


def asked_prompt(task: Task, files: PromptFiles, prompt: str, lang: str, sample: Sample) -> Prompt:
    """The prompt `sample` is asked with under `prompt` (a task variant, or a prompt file's
    key in `files`) and language `lang`."""
    found = files.get(prompt)
    if found is None:
        return task.build_prompt(sample, prompt, lang)
    variant = grading_variant(task, found)
    names = {
        "question": sample.input, "id": sample.id, "category": sample.category,
        "difficulty": sample.difficulty, "answer_type": sample.answer_type,
        "decimals": "" if sample.decimals is None else str(sample.decimals), "lang": lang,
    }  # fmt: skip
    if "task_prompt" in found.user or "task_prompt" in found.system:
        own = task.build_prompt(sample, variant, lang).messages
        names["task_prompt"] = next((m.content for m in reversed(own) if m.role == "user"), "")
    return Prompt(render_messages(found, names), variant, lang)


def check_asks(
    task: Task, files: PromptFiles, asked: Iterable[tuple[str, str]], samples: Sequence[Sample]
) -> None:
    """Build each (prompt, language) of `asked` before anything is asked, so what cannot be
    asked is refused now, not in the middle of a run or of a set: a task's own variant for the
    paper's first item (a benchmark in English only refuses 'zh'), a prompt file (its key) for
    the first `RENDER_CHECKED` items (a template can fail on one item's values: a filter on an
    empty field, `{{ 1 / 0 }}`), each naming its file."""
    for prompt, lang in dict.fromkeys(asked):
        if prompt in files:
            for sample in samples[:RENDER_CHECKED]:
                asked_prompt(task, files, prompt, lang, sample)
            continue
        try:
            for sample in samples[:1]:
                asked_prompt(task, files, prompt, lang, sample)
        except ConfigError as e:  # a set asks several tasks: say which
            raise ConfigError(f"task {task.name} (prompt {prompt}, lang {lang}): {e}") from None
