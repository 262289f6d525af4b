"""GSM8K: grade-school maths word problems.

dataset  the 1,319-problem test set (shipped: builtin/gsm8k), target the number after "####"
prompt   zero-shot (reason, then "The answer is N.") or few-shot (the 8 chain-of-thought examples
         of Wei et al. as earlier chat turns, lm-eval's gsm8k_cot); 512 tokens
extract  ours: \\boxed{} → "The answer is" / "Final answer:" / "Answer:" → "####" → last number
         (a flagged fallback); reasoning traces and invented next questions removed first
score    exact number (big integers compared exactly), symbolic only for an expression answer
metrics  accuracy by our extraction; beside it, on the same raw replies, accuracy under
         lm-evaluation-harness's strict-match and flexible-extract filters (`lmeval_metrics`,
         and each score's explanation says what those filters took)
version  4, shared by the maths tasks (its history: `proctor.tasks.maths_version`)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.datasets import benchmarks
from proctor.extract.lmeval import lmeval_exact_match, lmeval_filters
from proctor.prompts.maths import FEW_SHOT, ZERO_SHOT, gsm8k_prompt
from proctor.score.maths import RULES as MATHS_RULES
from proctor.score.maths import grade_maths
from proctor.tasks.base import Benchmark, Dataset
from proctor.tasks.maths_version import VERSION
from proctor.types import GradedItem, Record, Sample, Score

SOURCE = "builtin/gsm8k/test.jsonl (openai/grade-school-math@3101c7d)"

RULES: dict[str, str] = {
    **MATHS_RULES,
    "lmeval": "lm-eval's filters on the raw reply: strict-match takes the first \"The answer is"
    ' N", flexible-extract the last number; shown for comparison, they do not decide the grade.',
}


def load(seed: int | None, n: int | None) -> Dataset:
    samples = benchmarks.gsm8k()[:n]
    return Dataset.of(samples, "gsm8k-test", SOURCE)


def _lmeval_note(text: str, target: str) -> str:
    f = lmeval_filters(text, cot=True)
    strict = "right" if lmeval_exact_match(f.strict_match, target) else "wrong"
    flexible = "right" if lmeval_exact_match(f.flexible_extract, target) else "wrong"
    return (
        f" [lm-eval strict-match: {f.strict_match!r} ({strict});"
        f" flexible-extract: {f.flexible_extract!r} ({flexible})]"
    )


def grade_record(record: Record, sample: Sample) -> Score:
    score = grade_maths(
        record.text,
        record.finish_reason,
        sample,
        asked=("final_answer",),
        numeric=True,
    )
    return Score(
        score.outcome,
        score.rule,
        score.explanation + _lmeval_note(record.text, sample.target),
        score.extracted,
        score.normalized,
        score.format_ok,
    )


def lmeval_metrics(items: Sequence[GradedItem]) -> Mapping[str, Mapping[str, float]]:
    """Per model, over replies that were graded (failed calls and unscored items left out):
    accuracy by our extraction and under lm-eval's two filters, on the same raw replies."""
    tallies: dict[str, list[int]] = {}
    for item in items:
        if item.score.outcome in ("call_failed", "unscored"):
            continue
        f = lmeval_filters(item.record.text, cot=True)
        t = tallies.setdefault(item.record.model, [0, 0, 0, 0])
        t[0] += 1
        t[1] += item.score.outcome == "correct"
        t[2] += lmeval_exact_match(f.strict_match, item.sample.target)
        t[3] += lmeval_exact_match(f.flexible_extract, item.sample.target)
    return {
        model: {
            "accuracy (proctor extraction)": t[1] / t[0],
            "accuracy (lm-eval strict-match)": t[2] / t[0],
            "accuracy (lm-eval flexible-extract)": t[3] / t[0],
        }
        for model, t in tallies.items()
    }


TASK = Benchmark(
    "gsm8k",
    VERSION,
    "GSM8K test (1,319 word problems); exact number; lm-eval filters shown beside.",
    load,
    gsm8k_prompt,
    variants=(ZERO_SHOT, FEW_SHOT),
    max_tokens=512,
).task(grade_record, RULES, metrics=lmeval_metrics)
