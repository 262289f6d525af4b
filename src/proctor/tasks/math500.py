"""MATH-500: competition maths (the PRM800K test split of MATH).

dataset  500 problems (shipped: builtin/math500); category = subject, difficulty = level 1-5
prompt   zero-shot (reason, answer in \\boxed{}) or few-shot (the 4 Minerva examples as earlier
         chat turns, "Final Answer: The final answer is $X$"); 1024 tokens
extract  the last of \\boxed{} / "final answer is" / "the answer is" / "Answer:" / "####"; a
         reply that is one expression is its own answer; else Math-Verify's own extraction (a
         flagged fallback); reasoning traces removed first
score    ambiguous forms unscored; scale words and units respected; same text after
         normalisation; exact number; then math-verify (sympy) in a helper process with a 10 s
         deadline (decimals exact): a timeout is unscored
metrics  accuracy by subject and level
version  4, shared by the maths tasks (its history: `proctor.tasks.maths_version`)
"""

from __future__ import annotations

from proctor.datasets import benchmarks
from proctor.prompts.maths import FEW_SHOT, ZERO_SHOT, boxed_prompt
from proctor.score.maths import RULES, grade_maths
from proctor.tasks.base import Benchmark, Dataset
from proctor.tasks.maths_version import VERSION
from proctor.types import Record, Sample, Score

SOURCE = "builtin/math500/test.jsonl (openai/prm800k test split)"


def load(seed: int | None, n: int | None) -> Dataset:
    samples = benchmarks.math500()[:n]
    return Dataset.of(samples, "math500", SOURCE)


def grade_record(record: Record, sample: Sample) -> Score:
    asked = ("boxed",) if record.prompt_variant == ZERO_SHOT else ("boxed", "final_answer")
    return grade_maths(
        record.text,
        record.finish_reason,
        sample,
        asked=asked,
        numeric=False,
    )


TASK = Benchmark(
    "math500",
    VERSION,
    "MATH-500 (500 competition problems); symbolic equivalence via math-verify.",
    load,
    boxed_prompt,
    variants=(ZERO_SHOT, FEW_SHOT),
    max_tokens=1024,
).task(grade_record, RULES)
