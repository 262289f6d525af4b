"""Arithmetic without a calculator.

dataset  seeded generator `arith-1` (integer, decimal, mixed, fraction, bigint; tiers 3:4:3),
         or the user's own JSONL/CSV in the same format
prompt   A (answer only) or B (reason, then "Final answer: <number>"), English or Chinese
extract  final-answer line → "Answer:" line → bare answer → \\boxed{} → "= X" ending → last
         number that is not one of the question's operands (reported as a fallback)
score    exact by answer type: integer, decimal (value), reduced fraction, comparison symbol;
         a float artefact (0.30000000000000004 for 0.3) is correct, named as such
version  2
metrics  accuracy with Wilson interval, by category and difficulty, outcome counts
"""

from __future__ import annotations

from proctor.datasets.arithmetic import GENERATOR_VERSION, generate
from proctor.prompts.arithmetic import build_prompt
from proctor.score.numeric import RULES, grade
from proctor.stats.tiers import TIERS
from proctor.tasks.base import Dataset, Task
from proctor.types import Record, Sample, Score

VERSION = "2"
DEFAULT_SEED = 42
DEFAULT_N = 50
"""Sized so the embedded model on 2 CPU cores finishes in a few minutes (see README)."""


def load(seed: int | None, n: int | None) -> Dataset:
    samples = tuple(generate(DEFAULT_SEED if seed is None else seed, DEFAULT_N if n is None else n))
    return Dataset.of(samples, GENERATOR_VERSION, "generator")


def grade_record(record: Record, sample: Sample) -> Score:
    return grade(
        record.text,
        record.finish_reason,
        sample,
        variant=record.prompt_variant,
    )


TASK = Task(
    name="arithmetic",
    version=VERSION,
    description="Arithmetic without a calculator: integer, decimal, mixed, fraction, big integer.",
    load=load,
    build_prompt=build_prompt,
    grade=grade_record,
    rules=RULES,
    tiers=TIERS,
)
