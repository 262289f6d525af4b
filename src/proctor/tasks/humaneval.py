"""HumanEval: write a Python function from its signature and docstring.

dataset  164 problems (shipped: builtin/humaneval); target = the canonical solution; metadata
         holds the entry point and the official test
prompt   zero-shot (its convention): complete the function, in a ```python block; 512 tokens
extract  the last ```python block defining the entry point → [BEGIN]…[DONE] → the whole reply
         when it reads as Python; reasoning traces removed first
score    prompt + code run in the sandbox (see proctor.sandbox), then the official test and
         check(entry_point) among the prompt's own names: correct when the tests run to the
         end; an object that compares equal to anything, a changed module or a refused door is
         a violation; a sandbox that could not start is unscored; limits human-eval's (3 s per
         problem, no output cap) unless --sandbox-limits strict; every explanation names the
         isolation and limits in force
metrics  pass@1; pass@k for k ≤ N with --samples N at temperature > 0 (in the report)
version  2 (1: tests in the same program as the code, 15 s)
"""

from __future__ import annotations

from proctor.datasets import benchmarks
from proctor.prompts.code import humaneval_prompt
from proctor.prompts.maths import ZERO_SHOT
from proctor.sandbox import REFERENCE, Job
from proctor.score.code import humaneval_program
from proctor.tasks.base import Benchmark, Dataset
from proctor.tasks.code import sandboxed_task
from proctor.types import Sample

VERSION = "2"
SOURCE = "builtin/humaneval/HumanEval.jsonl.gz (openai/human-eval@6d43fb9)"
LIMITS = REFERENCE


def load(seed: int | None, n: int | None) -> Dataset:
    samples = benchmarks.humaneval()[:n]
    return Dataset.of(samples, "humaneval", SOURCE)


def program(code: str, sample: Sample) -> Job:
    return humaneval_program(
        sample.input, code, sample.metadata["test"], sample.metadata["entry_point"]
    )


TASK = sandboxed_task(
    Benchmark(
        "humaneval",
        VERSION,
        "HumanEval (164 Python functions); tests run in the sandbox.",
        load,
        humaneval_prompt,
        variants=(ZERO_SHOT,),
        max_tokens=512,
    ),
    program,
    LIMITS,
)
