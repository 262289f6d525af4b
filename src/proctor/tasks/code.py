"""What HumanEval and MBPP share: a task whose replies are code run in the sandbox, graded under
named limits, with a version that names the limits unless they are the reference."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from proctor.sandbox import PROFILES, REFERENCE, Job, Limits
from proctor.score.code import RULES, grade_code, sandbox_note
from proctor.tasks.base import Dataset, Task, benchmark_task
from proctor.types import Prompt, Record, Sample, Score


def sandboxed_task(
    name: str,
    version: str,
    description: str,
    load: Callable[[int | None, int | None], Dataset],
    build_prompt: Callable[[Sample, str, str], Prompt],
    program: Callable[[str, Sample], Job],
    *,
    variants: tuple[str, ...],
    max_tokens: int,
    limits: Limits = REFERENCE,
    load_file: Callable[[Path, int | None], Dataset] | None = None,
) -> Task:
    """The task graded under `limits` (`program` turns a reply's code into the sandbox's job);
    `with_limits` gives the same task under another named profile."""

    def grade(record: Record, sample: Sample) -> Score:
        return grade_code(record.text, record.finish_reason, sample, build=program, limits=limits)

    def under(profile: str) -> Task:
        return sandboxed_task(
            name,
            version,
            description,
            load,
            build_prompt,
            program,
            variants=variants,
            max_tokens=max_tokens,
            limits=PROFILES[profile],
            load_file=load_file,
        )

    return benchmark_task(
        name,
        version if limits == REFERENCE else f"{version}+{limits.name}",
        description,
        load,
        build_prompt,
        grade,
        RULES,
        variants=variants,
        max_tokens=max_tokens,
        load_file=load_file,
        with_limits=under,
        grading_note=lambda: sandbox_note(limits),
    )
