"""A task of the user's own, in a few lines: samples, a prompt, a scorer, a version.

    capitals = define_task(
        "capitals",
        samples=[Sample(id="fr", input="France", target="Paris")],
        prompt="What is the capital of {input}? Reply with the city only.",
        scorer=exact_city,               # a Scorer (proctor.scorer), or an installed one's name
        version="1",
    )

The Task it returns is the same shape as a built-in one, so it runs with the same store,
resume, re-grading, reports and gates (`proctor run path/to/file.py:capitals`,
`proctor.evaluate(capitals, [...])`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from proctor.datasets.loaders import load_samples
from proctor.errors import ConfigError
from proctor.plugins import SCORER_GROUP, PluginTable
from proctor.score.custom import Scorer
from proctor.tasks.base import Dataset, Task
from proctor.types import Message, Prompt, Sample

VARIANT = "default"
"""The one prompt variant of a task made here (`--prompt` is not needed)."""

SampleSource = Iterable[Sample] | Callable[[], Iterable[Sample]] | str | Path
"""Samples as a list, a function that reads them (a database, an API), or a .jsonl/.csv file."""
PromptSource = str | Callable[[Sample], "str | Prompt"]
"""A template with {input}, {id}, {category}, {difficulty} or {metadata[KEY]} (never the
target), or a function of the sample."""


def define_task(
    name: str,
    *,
    samples: SampleSource,
    prompt: PromptSource,
    scorer: Scorer | str,
    version: str,
    description: str = "",
    system: str | None = None,
    max_tokens: int = 512,
) -> Task:
    """A Task from its parts. `version` must change whenever grading changes, so scores of two
    versions are never mixed up; `scorer` is a Scorer or the name of an installed one."""
    if not name.strip():
        raise ConfigError("a task needs a name")
    if not version.strip():
        raise ConfigError(f"task {name!r} needs a version (change it when grading changes)")
    chosen = get_scorer(scorer) if isinstance(scorer, str) else scorer
    if not isinstance(chosen, Scorer):
        raise ConfigError(f"task {name!r}: scorer must be a proctor Scorer or a scorer's name")

    def load(_seed: int | None, n: int | None) -> Dataset:
        picked = _samples(name, samples)
        if n is not None:
            picked = picked[:n]
        return Dataset.of(picked, f"{name}/{version}", _source(samples))

    def build_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
        made = _render(prompt, sample)
        if isinstance(made, Prompt):
            return made
        messages = (Message("system", system),) if system else ()
        return Prompt((*messages, Message("user", made)), variant, lang)

    return Task(
        name=name,
        version=version,
        description=description or f"{name}: {chosen.rule}",
        load=load,
        build_prompt=build_prompt,
        grade=chosen,
        rules=chosen.all_rules(),
        default_variant=VARIANT,
        variants=(VARIANT,),
        max_tokens={VARIANT: max_tokens},
    )


def _samples(name: str, source: SampleSource) -> tuple[Sample, ...]:
    if isinstance(source, str | Path):
        return tuple(load_samples(source))
    found = tuple(source() if callable(source) else source)
    if not found:
        raise ConfigError(f"task {name!r} has no samples")
    for s in found:
        if not isinstance(s, Sample):
            raise ConfigError(f"task {name!r}: a sample is {type(s).__name__}, not a Sample")
    ids = [s.id for s in found]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise ConfigError(f"task {name!r}: sample id {twice!r} is used twice")
    return found


def _source(source: SampleSource) -> str:
    return str(source) if isinstance(source, str | Path) else "python"


def _render(prompt: PromptSource, sample: Sample) -> str | Prompt:
    if callable(prompt):
        return prompt(sample)
    try:
        return prompt.format(
            input=sample.input, id=sample.id, category=sample.category,
            difficulty=sample.difficulty, metadata=sample.metadata,
        )  # fmt: skip
    except (KeyError, IndexError, ValueError) as e:
        raise ConfigError(f"prompt template {prompt[:60]!r}: {type(e).__name__}: {e}") from None


def _check_scorer(loaded: object) -> Scorer:
    if isinstance(loaded, Scorer):
        return loaded
    raise TypeError(
        f"expected a proctor Scorer (made with @proctor.scorer(rule=...)), got {type(loaded)}"
    )


SCORERS: PluginTable[Scorer] = PluginTable(SCORER_GROUP, "scorer", _check_scorer)
"""Scorers by name: those a process registers, then installed packages' entry points."""


def get_scorer(name: str) -> Scorer:
    """The scorer of that name; ConfigError when none has it, or its plugin fails to load."""
    found = SCORERS.get(name)
    if found is None:
        known = ", ".join(SCORERS.names()) or "none installed"
        raise ConfigError(f"unknown scorer {name!r}: known scorers are {known}")
    return found
