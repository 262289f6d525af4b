"""What HumanEval and MBPP share: a task whose replies are code run in the sandbox, graded under
named limits, with a version that names the limits unless they are the reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from proctor.sandbox import PROFILES, REFERENCE, Job, Limits
from proctor.score.code import RULES, grade_code, sandbox_note
from proctor.tasks.base import Benchmark, Task
from proctor.types import Record, Sample, Score


def sandboxed_task(
    benchmark: Benchmark, program: Callable[[str, Sample], Job], limits: Limits = REFERENCE
) -> Task:
    """The benchmark's task graded under `limits` (`program` turns a reply's code into the
    sandbox's job); `with_limits` gives the same task under another named profile."""

    def grade(record: Record, sample: Sample) -> Score:
        return grade_code(record.text, record.finish_reason, sample, build=program, limits=limits)

    def under(profile: str) -> Task:
        return sandboxed_task(benchmark, program, PROFILES[profile])

    version = benchmark.version if limits == REFERENCE else f"{benchmark.version}+{limits.name}"
    named = replace(benchmark, version=version)
    return named.task(grade, RULES, with_limits=under, grading_note=lambda: sandbox_note(limits))
