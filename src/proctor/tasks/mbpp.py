"""MBPP: short Python programs from a one-line description and three asserts.

dataset  the test split, task_ids 11-510 (shipped: builtin/mbpp, 974 problems in all); target =
         the reference code; metadata holds test_list (JSON) and test_setup_code
prompt   zero-shot (description + the asserts, code in a ```python block) or few-shot (the MBPP
         paper's 3-shot prompt, tasks 2, 3, 4, as earlier chat turns with [BEGIN]…[DONE]); 512
         tokens
extract  the last ```python block defining the asserted function → [BEGIN]…[DONE] → the whole
         reply when it reads as Python
score    code, then test_setup_code and each assert (set-up AFTER the solution: tasks 367
         and 927 need it) among the code's names, in the sandbox, every function the asserts
         call checked to return plain data; correct when every assert passes; a violation as
         for HumanEval; a sandbox that could not start is unscored; 3 s per problem (the
         reference solutions pass 973/974: task 123 takes longer)
metrics  pass@1; pass@k for k ≤ N with --samples N at temperature > 0 (in the report)
version  2 (1: one program, 20 s)
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from proctor.datasets import benchmarks
from proctor.datasets.loaders import load_samples
from proctor.prompts.code import MbppExample, mbpp_prompt
from proctor.prompts.maths import FEW_SHOT, ZERO_SHOT
from proctor.sandbox import REFERENCE, Job
from proctor.score.code import mbpp_program
from proctor.tasks.base import Benchmark, Dataset
from proctor.tasks.code import sandboxed_task
from proctor.types import Prompt, Sample

VERSION = "2"
SOURCE = "builtin/mbpp/mbpp.jsonl (google-research mbpp via FormulaMonks/llm-benchmarker-suite)"
LIMITS = REFERENCE
FEW_SHOT_IDS = ("mbpp-2", "mbpp-3", "mbpp-4")


def with_entry_point(sample: Sample) -> Sample:
    """The function the asserts call, so code extraction can prefer the block defining it."""
    tests = json.loads(sample.metadata["test_list"])
    called = re.search(
        r"assert\s+(?:not\s+)?\(?\s*(?:set\()?\s*(\w+)\s*\(", tests[0] if tests else ""
    )
    if not called:
        return sample
    return Sample(
        sample.id,
        sample.input,
        sample.target,
        sample.category,
        sample.difficulty,
        sample.answer_type,
        sample.decimals,
        {**sample.metadata, "entry_point": called.group(1)},
    )


def load(seed: int | None, n: int | None) -> Dataset:
    samples = tuple(with_entry_point(s) for s in benchmarks.mbpp("test")[:n])
    return Dataset.of(samples, "mbpp-test", SOURCE)


def load_file(path: Path, seed: int | None) -> Dataset:
    """Your own MBPP-style file (JSONL/CSV with test_list, as JSON, in its metadata)."""
    samples = tuple(with_entry_point(s) for s in load_samples(path))
    return Dataset.of(samples, "file", str(path))


@functools.cache
def few_shot_examples() -> tuple[MbppExample, ...]:
    by_id = {s.id: s for s in benchmarks.mbpp("prompt")}
    return tuple(
        MbppExample(
            by_id[i].input, tuple(json.loads(by_id[i].metadata["test_list"])), by_id[i].target
        )
        for i in FEW_SHOT_IDS
    )


def build_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    tests = json.loads(sample.metadata["test_list"])
    return mbpp_prompt(sample, variant, lang, tests=tests, examples=few_shot_examples())


def program(code: str, sample: Sample) -> Job:
    return mbpp_program(
        code,
        sample.metadata.get("test_setup_code", ""),
        json.loads(sample.metadata["test_list"]),
        sample.metadata.get("entry_point", ""),
    )


TASK = sandboxed_task(
    Benchmark(
        "mbpp",
        VERSION,
        "MBPP test split (500 Python tasks, ids 11-510); asserts run in the sandbox.",
        load,
        build_prompt,
        variants=(ZERO_SHOT, FEW_SHOT),
        max_tokens=512,
        load_file=load_file,
    ),
    program,
    LIMITS,
)
