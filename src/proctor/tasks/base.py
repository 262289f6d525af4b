"""A Task is everything that makes one benchmark: its samples, its prompt, its grader, its rules
and its version (which changes whenever grading changes, so old and new scores are never mixed
up silently)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, Unpack

from proctor.datasets.jsonl import content_hash
from proctor.stats.tiers import Tier
from proctor.types import GradedItem, Prompt, Record, Sample, Score

TaskMetrics = Callable[[Sequence[GradedItem]], Mapping[str, Mapping[str, float]]]
"""Graded items of a run → per model, extra metrics by name (e.g. accuracy under lm-eval's
filters). A report calls it with one model's answers at a time, as it reads them (a run of any
size streams), so a metric is of one model's answers alone; models are compared elsewhere."""

Confidences = Callable[[Sequence[GradedItem]], Mapping[str, Sequence[tuple[float, bool]]]]
"""Graded items of a run → per model, (stated confidence, answer right) of each valid reply;
called, like `TaskMetrics`, with one model's answers at a time."""


@dataclass(frozen=True)
class Dataset:
    samples: tuple[Sample, ...]
    content_hash: str
    generator_version: str
    source: str

    @classmethod
    def of(cls, samples: Sequence[Sample], generator_version: str, source: str) -> Dataset:
        """These samples with their content hash: the one place a loader's hash is taken."""
        picked = tuple(samples)
        return cls(picked, content_hash(picked), generator_version, source)


@dataclass(frozen=True)
class Task:
    name: str
    version: str
    description: str
    load: Callable[[int | None, int | None], Dataset]
    """(seed, n) → the task's own test set; each argument None means the task's default."""
    build_prompt: Callable[[Sample, str, str], Prompt]
    """(sample, variant, lang) → the prompt."""
    grade: Callable[[Record, Sample], Score]
    """A pure function of a stored record and its sample."""
    rules: Mapping[str, str]
    """Rule name → its one-sentence statement, shown next to every failure."""
    default_variant: str = "B"
    variants: tuple[str, ...] = ("A", "B")
    """The prompt variants `build_prompt` accepts; the first spelling is the canonical one."""
    max_tokens: Mapping[str, int] = field(default_factory=dict)
    """Default max_tokens per variant (a reasoning benchmark needs more than arithmetic)."""
    metrics: TaskMetrics | None = None
    """Extra metrics beyond accuracy, computed from the graded items (pure)."""
    load_file: Callable[[Path, int | None], Dataset] | None = None
    """(path, seed) → the task's samples from a file the user names (e.g. GPQA's CSV), read
    the task's way; None: the generic JSONL/CSV loader."""
    with_limits: Callable[[str], Task] | None = None
    """The same task graded under a named set of sandbox limits ("reference", "strict"), for
    `--sandbox-limits`; None for a task that runs no code."""
    grading_note: Callable[[], str] | None = None
    """A line the report prints about how grading was done (the sandbox and its limits)."""
    tiers: tuple[Tier, ...] | None = None
    """The accuracy scale the report gives each model a tier on (the arithmetic seed's
    `stats.tiers.TIERS`); None: the task has none, and no report shows a tier."""
    confidence: Confidences | None = None
    """The confidences a task asks its replies to state, for the calibration section; None: the
    task asks for none."""


class TaskExtras(TypedDict, total=False):
    """The optional parts of a Task a built-in benchmark may add (see `Task` for each)."""

    metrics: TaskMetrics
    with_limits: Callable[[str], Task]
    grading_note: Callable[[], str]
    confidence: Confidences


@dataclass(frozen=True)
class Benchmark:
    """A built-in benchmark before its grading: its name and version, its paper, its prompt
    variants (the first is the default) and the reply length every variant gets."""

    name: str
    version: str
    description: str
    load: Callable[[int | None, int | None], Dataset]
    build_prompt: Callable[[Sample, str, str], Prompt]
    variants: tuple[str, ...]
    max_tokens: int
    load_file: Callable[[Path, int | None], Dataset] | None = None

    def task(
        self,
        grade: Callable[[Record, Sample], Score],
        rules: Mapping[str, str],
        **extras: Unpack[TaskExtras],
    ) -> Task:
        """The benchmark's task, graded by `grade` under `rules`."""
        return Task(
            self.name,
            self.version,
            self.description,
            self.load,
            self.build_prompt,
            grade,
            rules,
            default_variant=self.variants[0],
            variants=self.variants,
            max_tokens=dict.fromkeys(self.variants, self.max_tokens),
            load_file=self.load_file,
            **extras,
        )


NOT_GRADED_YET = Score(
    outcome="unscored",
    rule="not_graded",
    explanation="not graded yet: `proctor run` (resuming the run) or `proctor score RUN` grades it",
)
"""How a report shows a stored answer that has no stored grade (its session stopped between
storing and grading it): reports read stored grades only, and never grade."""


def first_n_balanced(samples: Sequence[Sample], n: int | None) -> tuple[Sample, ...]:
    """The first `n` samples taken round-robin across categories (in order of first appearance,
    keeping each category's own order), so `--limit` gives a small paper that still covers every
    category; the same `n` always gives the same samples."""
    if n is None or n >= len(samples):
        return tuple(samples)
    by_category: dict[str, list[Sample]] = {}
    for s in samples:
        by_category.setdefault(s.category, []).append(s)
    queues = list(by_category.values())
    picked: list[Sample] = []
    i = 0
    while len(picked) < n:
        progressed = False
        for q in queues:
            if i < len(q) and len(picked) < n:
                picked.append(q[i])
                progressed = True
        if not progressed:
            break
        i += 1
    return tuple(picked)


def checked_task(task: Task) -> Task:
    """A task from outside proctor, refused (ValueError) unless every report can state its rules
    and tell its versions apart."""
    if not task.version.strip():
        raise ValueError(f"task {task.name!r} has no version (change it when grading changes)")
    if not task.rules or not all(str(r).strip() for r in task.rules.values()):
        raise ValueError(f"task {task.name!r} states no rules (one sentence per rule name)")
    return task
