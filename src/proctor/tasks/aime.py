"""AIME 2024 and 2025 (I and II): 60 problems whose answers are integers 0-999.

dataset  shipped: builtin/aime (MathArena's assembly); `aime` both years, `aime2024`,
         `aime2025` one each; category = the exam ("AIME 2024 I"), so --limit covers all four
prompt   zero-shot only (AIME has no few-shot convention): reason, answer in \\boxed{}; 2048
         tokens
extract  \\boxed{} → "final answer is" / "the answer is" / "Answer:" → "####" → last number
         (a flagged fallback); reasoning traces removed first
score    exact integer; symbolic only if the answer is an expression
metrics  accuracy by exam; pass@k and maj@N with --samples N (in the report)
version  4, shared by the maths tasks (its history: `proctor.tasks.maths_version`)
"""

from __future__ import annotations

from collections.abc import Callable

from proctor.datasets import benchmarks
from proctor.prompts.maths import ZERO_SHOT, aime_prompt
from proctor.score.maths import RULES, grade_maths
from proctor.tasks.base import Benchmark, Dataset, Task
from proctor.tasks.maths_version import VERSION
from proctor.types import Record, Sample, Score

SOURCE = "builtin/aime/aime_2024_2025_matharena.jsonl (eth-sri/matharena@81f103e)"


def _loader(years: tuple[int, ...]) -> Callable[[int | None, int | None], Dataset]:
    def load(seed: int | None, n: int | None) -> Dataset:
        samples = benchmarks.aime(years)[:n]
        name = "aime-" + "-".join(map(str, years))
        return Dataset.of(samples, name, SOURCE)

    return load


def grade_record(record: Record, sample: Sample) -> Score:
    return grade_maths(
        record.text,
        record.finish_reason,
        sample,
        asked=("boxed",),
        numeric=True,
    )


def _task(name: str, years: tuple[int, ...], description: str) -> Task:
    return Benchmark(
        name,
        VERSION,
        description,
        _loader(years),
        aime_prompt,
        variants=(ZERO_SHOT,),
        max_tokens=2048,
    ).task(grade_record, RULES)


TASK = _task("aime", (2024, 2025), "AIME 2024 and 2025, I and II (60 problems); exact integer.")
TASK_2024 = _task("aime2024", (2024,), "AIME 2024 I and II (30 problems); exact integer.")
TASK_2025 = _task("aime2025", (2025,), "AIME 2025 I and II (30 problems); exact integer.")
