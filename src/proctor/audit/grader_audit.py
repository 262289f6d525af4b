"""Measure a task's grader against replies a person has labelled (`proctor audit`).

Each labelled reply is graded by the task's own grader, exactly as a stored record would be, and
set against its label: a false correct is a reply labelled not correct that the grader calls
correct; a false wrong one labelled correct that it calls anything but correct (except
`unscored`, counted apart: the grader declined to decide). Counts come with a 95 % Wilson
interval of the rate, and disagreements are grouped by the reply's `form`.

Audit sets are pluggable per task: `AUDIT_SOURCES` maps a task name to an `AuditSource` (how to
load its labelled replies, and optionally how to grade one); the shipped files under
builtin/audit/ are registered by name, and a task whose replies need their own grader (a team
suite's cases) registers its own source with `register_audit_source`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from proctor.audit.labelled_sets import AuditItem, builtin_audit_files, load_audit_file
from proctor.errors import ConfigError
from proctor.stats.intervals import wilson_interval
from proctor.tasks.registry import get_task
from proctor.types import Record, Sample, Score, Usage

Grader = Callable[[Record, Sample], Score]


@dataclass(frozen=True)
class AuditSource:
    """Where a task's labelled replies come from, and how one is graded (default: the task's
    own grader, looked up by name)."""

    task: str
    load: Callable[[], Sequence[AuditItem]]
    grade: Grader | None = None
    version: Callable[[], str] | None = None
    """The grader version audited (default: "<task>/<task version>")."""


def _file_source(task: str, path: Path) -> AuditSource:
    return AuditSource(task, lambda: load_audit_file(path))


AUDIT_SOURCES: dict[str, AuditSource] = {
    task: _file_source(task, path) for task, path in builtin_audit_files().items()
}


def register_audit_source(source: AuditSource) -> None:
    """Add (or replace) the audit set of one task."""
    AUDIT_SOURCES[source.task] = source


@dataclass(frozen=True)
class Disagreement:
    item: AuditItem
    score: Score
    kind: str
    """false_correct, false_wrong or unscored"""


@dataclass(frozen=True)
class AuditResult:
    """One task's grader against its labelled replies."""

    task: str
    grader_version: str
    labelled: int
    labelled_correct: int
    false_correct: int
    false_wrong: int
    unscored: int
    disagreements: tuple[Disagreement, ...] = field(default=())
    languages: tuple[tuple[str, int, int], ...] = field(default=())
    """(language, labelled, agree) for each language of the set's replies, by code."""

    @property
    def labelled_not_correct(self) -> int:
        return self.labelled - self.labelled_correct

    @property
    def agree(self) -> int:
        return self.labelled - self.false_correct - self.false_wrong - self.unscored

    @property
    def false_correct_interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the share of not-correct replies graded correct."""
        return wilson_interval(self.false_correct, self.labelled_not_correct)

    @property
    def false_wrong_interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the share of correct replies graded not correct."""
        return wilson_interval(self.false_wrong, self.labelled_correct)

    def classes(self) -> Mapping[str, Mapping[str, int]]:
        """Disagreements by kind, then by the replies' form."""
        found: dict[str, Counter[str]] = {}
        for d in self.disagreements:
            found.setdefault(d.kind, Counter())[d.item.form] += 1
        return {kind: dict(forms.most_common()) for kind, forms in found.items()}


def _record(item: AuditItem, variant: str) -> Record:
    return Record(
        run_id="audit",
        model="audit",
        sample_id=item.sample.id,
        status="ok",
        text=item.reply,
        finish_reason=item.finish_reason,
        usage=Usage(),
        latency_s=0.0,
        attempts=1,
        prompt_variant=item.variant or variant,
        lang="en",
    )


def _kind(item: AuditItem, score: Score) -> str | None:
    if score.outcome == "unscored":
        return "unscored"
    graded_correct = score.outcome == "correct"
    if graded_correct and item.label == "not_correct":
        return "false_correct"
    if not graded_correct and item.label == "correct":
        return "false_wrong"
    return None


def audit(task: str) -> AuditResult:
    """Grade the audit set of `task` with its current grader."""
    source = AUDIT_SOURCES.get(task)
    if source is None:
        known = ", ".join(sorted(AUDIT_SOURCES)) or "none"
        raise ConfigError(f"no audit set for task {task!r} (audited tasks: {known})")
    grader = source.grade
    version = source.version() if source.version is not None else ""
    variant = "B"
    if grader is None or not version:
        definition = get_task(task)
        grader = grader or definition.grade
        version = version or f"{definition.name}/{definition.version}"
        variant = definition.default_variant
    items = list(source.load())
    disagreements = []
    for item in items:
        if item.task != task:
            raise ConfigError(f"audit item {item.id!r} is for task {item.task!r}, not {task!r}")
        score = grader(_record(item, variant), item.sample)
        kind = _kind(item, score)
        if kind is not None:
            disagreements.append(Disagreement(item, score, kind))
    counts = Counter(d.kind for d in disagreements)
    return AuditResult(
        task=task,
        grader_version=version,
        labelled=len(items),
        labelled_correct=sum(item.label == "correct" for item in items),
        false_correct=counts["false_correct"],
        false_wrong=counts["false_wrong"],
        unscored=counts["unscored"],
        disagreements=tuple(disagreements),
        languages=_languages(items, disagreements),
    )


def _languages(
    items: Sequence[AuditItem], disagreements: Sequence[Disagreement]
) -> tuple[tuple[str, int, int], ...]:
    labelled = Counter(item.language for item in items)
    missed = Counter(d.item.language for d in disagreements)
    return tuple((lang, n, n - missed[lang]) for lang, n in sorted(labelled.items()))
