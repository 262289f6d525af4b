"""A team's own suite: extraction, summary, rewrite and refusal cases from a CSV or JSONL file.

dataset  the suite file given with `proctor run --suite FILE` (see
         `proctor.datasets.suites.loader`); there is no built-in paper
prompt   the case's own prompt, or its material and question; the suite config's system
         message, when it has one
extract  per kind: the reply's JSON object (extraction); the reply's text (the others)
score    dispatched on the case's kind; everything it needs is stored in `Sample.metadata`, so
         a stored run is re-graded without the suite file:
           extraction  JsonFieldsMatch   (valid JSON, same keys, values equal/contain, no conflict)
           summary     RequiredPoints    (required points stated as the material states them,
                                          forbidden ones not asserted; undecidable: unscored)
           rewrite     RewriteConstraints (sentence length, total length, required/forbidden words)
           refusal     RefusalCheck      (says the material lacks it; no number or name the
                                          material does not hold; a bare guess: unscored)
         replies the rules leave unscored go to the judge when the run has one
metrics  accuracy by kind (the category), consistency over repeated replies, judge scores
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

from proctor.datasets.suites.case import CaseSpec
from proctor.datasets.suites.loader import load_suite
from proctor.errors import ConfigError
from proctor.score import extraction, refusal, rewrite, summary
from proctor.score.extraction import JsonFieldsMatch, MatchMode
from proctor.score.refusal import REFUSAL_PHRASES, RefusalCheck
from proctor.score.rewrite import RewriteConstraints
from proctor.score.summary import RequiredPoints
from proctor.tasks.base import Benchmark, Dataset
from proctor.types import FinishReason, Message, Prompt, Record, Sample, Score

VERSION = "4"
"""2: summary points as claims, refusals against the material, the shared number reader; 3: the
reader knows the units of the one unit table (sq ft, cups, gallons, ounces, cents…) and reads
两个半 as 2.5; 4: a summary point's number counts only where it is said of the material's
metric, in the material's part of a change and direction (`proctor.extract.attachment`)."""
VARIANT = "suite"

Scorer = Callable[[str, FinishReason], Score]

RULES: dict[str, str] = {
    "call_failed": "The model call failed, so there is no answer to grade; it is never counted as"
    " wrong.",
    "bad_case": "The stored case cannot be read as a suite case, so the reply is not scored.",
    **extraction.RULES,
    **summary.RULES,
    **rewrite.RULES,
    **refusal.RULES,
}


DEFAULT_MAX_TOKENS = 256


def load(seed: int | None, n: int | None) -> Dataset:
    raise ConfigError("the suite task has no built-in cases: use proctor run --suite FILE")


def load_file(path: Path, seed: int | None) -> Dataset:
    """The cases of a suite file; the version names its content hash and git commit."""
    suite = load_suite(path)
    version = f"{suite.name} {suite.version.describe()}"
    return Dataset.of(suite.samples, version, str(path))


def build_prompt(sample: Sample, variant: str, lang: str) -> Prompt:
    system = sample.metadata.get("system", "")
    user = Message("user", sample.input)
    messages = (Message("system", system), user) if system else (user,)
    return Prompt(messages, VARIANT, sample.metadata.get("lang", lang))


def scorer_for(spec: CaseSpec) -> Scorer:
    """The scorer of one case, from its stored grading data."""
    if spec.kind == "extraction":
        return JsonFieldsMatch(
            expected=dict(spec.expected or {}),
            modes=cast(dict[str, MatchMode], dict(spec.match) or {"*": "exact"}),
            conflicts=dict(spec.conflicts),
            material=spec.material,
        )
    if spec.kind == "summary":
        return RequiredPoints(
            required=spec.points, forbidden=spec.forbidden, material=spec.material
        )
    if spec.kind == "rewrite":
        c = spec.constraints
        return RewriteConstraints(
            max_sentence=c.get("max_sentence"),
            max_length=c.get("max_length"),
            min_length=c.get("min_length"),
            required=tuple(c.get("required", ())),
            forbidden=tuple(w for point in spec.forbidden for w in point),
        )
    return RefusalCheck(
        question=spec.question,
        phrases=(*REFUSAL_PHRASES, *spec.phrases),
        invented=tuple(w for point in spec.forbidden for w in point),
        allowed=tuple(spec.allowed),
        material=spec.material,
    )


def grade(record: Record, sample: Sample) -> Score:
    try:
        spec = CaseSpec.from_metadata(sample.metadata)
    except (ValueError, TypeError, KeyError) as e:
        return Score("unscored", "bad_case", f"case {sample.id}: {e}")
    return scorer_for(spec)(record.text, record.finish_reason)


TASK = Benchmark(
    "suite",
    VERSION,
    "Your own suite (--suite FILE): extraction, summary, rewrite and refusal cases.",
    load,
    build_prompt,
    variants=(VARIANT,),
    max_tokens=DEFAULT_MAX_TOKENS,
    load_file=load_file,
).task(grade, RULES)
