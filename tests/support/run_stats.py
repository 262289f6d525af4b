"""A graded run for the report tests, and its statistics as `proctor report` builds them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.stats import RunMetrics
from proctor.stats.run_statistics import RunStatistics, TaskView, build_statistics
from proctor.stats.tiers import TIERS
from proctor.types import GradedItem, RunInfo


@dataclass(frozen=True)
class Run:
    info: RunInfo
    items: list[GradedItem]
    metrics: RunMetrics
    rules: dict[str, str]

    @property
    def stats(self) -> RunStatistics:
        """The run's statistics, as `proctor report` builds them for its task."""
        return statistics(self.info, self.items, self.rules)


def statistics(
    info: RunInfo, items: Sequence[GradedItem], rules: Mapping[str, str], **given: Any
) -> RunStatistics:
    """`build_statistics` for a task named `info.task` (the arithmetic one has its tiers)."""
    tiers = TIERS if info.task == "arithmetic" else None
    return build_statistics(info, items, TaskView(info.task, rules=rules, tiers=tiers), **given)
