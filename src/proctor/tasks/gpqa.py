"""GPQA: graduate-level multiple-choice science questions (4 choices).

dataset  NOT shipped (its authors ask that its examples not appear in plain text online): the
         user's CSV with the official column names (`proctor run gpqa --dataset
         gpqa_diamond.csv`), or the gated Hugging Face dataset for users with access
         (`--dataset hf:gpqa_diamond`, needs the `datasets` package); or PROCTOR_GPQA set to
         either. The four choices are shuffled per question by a generator seeded from
         (--seed, default 0; the question's Record ID): same seed, same paper
prompt   zero-shot: think step by step, end with "Answer: X"; 1024 tokens
extract  the letter after the last "Answer:" / "the answer is" → \\boxed{X} → a reply that is
         one letter; reasoning traces removed first
score    the letter must be the correct choice's letter after the shuffle
metrics  accuracy by high-level domain
version  1
"""

from __future__ import annotations

import os
from pathlib import Path

from proctor.datasets import benchmarks
from proctor.errors import ConfigError
from proctor.prompts.choice import choice_prompt
from proctor.prompts.maths import ZERO_SHOT
from proctor.score.choice import RULES, grade_choice
from proctor.tasks.base import Benchmark, Dataset
from proctor.types import Record, Sample, Score

VERSION = "1"
DEFAULT_SEED = 0
HF_PREFIX = "hf:"


def load_file(path: Path | str, seed: int | None) -> Dataset:
    """GPQA from a CSV path, or "hf:<config>" (gpqa_diamond, gpqa_main, gpqa_extended)."""
    s = DEFAULT_SEED if seed is None else seed
    where = str(path)
    if where.startswith(HF_PREFIX):
        samples = benchmarks.gpqa_hf(where[len(HF_PREFIX) :] or "gpqa_diamond", seed=s)
    else:
        samples = benchmarks.gpqa_csv(path, seed=s)
    return Dataset.of(samples, f"gpqa-shuffle-seed-{s}", where)


def load(seed: int | None, n: int | None) -> Dataset:
    where = os.environ.get("PROCTOR_GPQA", "").strip()
    if not where:
        raise ConfigError(
            "GPQA is not shipped (its authors ask that it not be posted in plain text): name your"
            " copy with --dataset gpqa_diamond.csv (official columns) or --dataset hf:gpqa_diamond"
            " (gated; needs access and the datasets package), or set PROCTOR_GPQA"
        )
    data = load_file(where, seed)
    samples = data.samples[:n]
    return Dataset.of(samples, data.generator_version, data.source)


def grade_record(record: Record, sample: Sample) -> Score:
    return grade_choice(
        record.text,
        record.finish_reason,
        sample,
    )


TASK = Benchmark(
    "gpqa",
    VERSION,
    "GPQA (your copy: CSV or gated HF dataset); 4 choices shuffled by seed.",
    load,
    choice_prompt,
    variants=(ZERO_SHOT,),
    max_tokens=1024,
    load_file=load_file,
).task(grade_record, RULES)
