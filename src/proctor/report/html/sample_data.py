"""A run's graded answers (all, or its first samples: `first_samples`) as one compact JSON
document for the page's sample browser.

Columnar and de-duplicated so that 50 models × 1,000 items stays a few megabytes: each sample
(question, target, prompt) is written once however many models answered it, and short strings
that repeat (rules, their statements, finish reasons, errors) are written once in a string table.

The document is embedded in `<script type="application/json">`. `script_json` makes any JSON text
safe there: no `<`, `>` or `&` is left (so no `</script>` or `<!--` can end or bend the element),
and U+2028/U+2029 are escaped too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from proctor.report.samples_csv import rule_explanation
from proctor.stats.model_parts import Items
from proctor.stats.reviews import HumanGrade
from proctor.types import OUTCOMES, GradedItem, Sample

SCHEMA = "proctor.samples/1"

SAMPLE_FIELDS: tuple[str, ...] = ("id", "input", "target", "category", "difficulty", "prompt")
"""One entry of `samples`: categories are indexes into `categories`."""

ROW_FIELDS: tuple[str, ...] = (
    "model",
    "sample",
    "epoch",
    "outcome",
    "text",
    "extracted",
    "normalized",
    "rule",
    "rule_text",
    "explanation",
    "finish",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "attempts",
    "error",
    "format_ok",
    "human",
)
"""One entry of `rows`: model, sample and outcome are indexes into their lists; rule, rule_text,
explanation, finish, error and human (people's verdict that counts, in words; "" for none) are
indexes into `strings`; text, extracted and normalized are
written out (extracted and normalized may be null)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Shown:
    """How much of a run a page's sample browser carries: all of it, or every model's answers
    to the first `samples` samples of the paper."""

    answers: int
    total_answers: int
    samples: int
    total_samples: int

    @property
    def complete(self) -> bool:
        return self.answers == self.total_answers


def first_samples(items: Items, limit: int | None) -> tuple[list[GradedItem], Shown]:
    """The items of the first samples of the paper (in the order they first occur), every
    model's and every epoch's answer to each, as many samples as fit in `limit` answers (at
    least one sample); all of them when `limit` is None or they fit."""
    per_sample: dict[str, int] = {}
    for item in items:
        sid = item.sample.id
        per_sample[sid] = per_sample.get(sid, 0) + 1
    if limit is None or len(items) <= limit:
        kept, n = list(items), len(per_sample)
    else:
        chosen: set[str] = set()
        room = limit
        for sid, count in per_sample.items():
            if chosen and count > room:
                break
            chosen.add(sid)
            room -= count
        kept, n = [i for i in items if i.sample.id in chosen], len(chosen)
    return kept, Shown(len(kept), len(items), n, len(per_sample))


def browser_document(
    items: Sequence[GradedItem],
    rules: Mapping[str, str],
    models: Sequence[str],
    prompts: Callable[[Sample], str | None] | None = None,
    human: Mapping[tuple[str, str, int], HumanGrade] | None = None,
) -> dict[str, Any]:
    """The sample browser's data: rows in the order of `models`, then of first appearance;
    `human`: people's verdict that counts on each reviewed reply, shown beside the rules'."""
    order = {name: i for i, name in enumerate(models)}
    for item in items:
        order.setdefault(item.record.model, len(order))
    outcome_index = {outcome: i for i, outcome in enumerate(OUTCOMES)}
    strings: dict[str, int] = {}
    categories: dict[str, int] = {}
    sample_index: dict[str, int] = {}
    samples: list[list[Any]] = []
    rows: list[list[Any]] = []
    explained: dict[str, str] = {}

    def intern(text: str) -> int:
        found = strings.get(text)
        if found is None:
            found = strings[text] = len(strings)
        return found

    for item in sorted(items, key=lambda item: order[item.record.model]):
        sample, record, score = item.sample, item.record, item.score
        si = sample_index.get(sample.id)
        if si is None:
            si = sample_index[sample.id] = len(samples)
            ci = categories.setdefault(sample.category, len(categories))
            prompt = None if prompts is None else prompts(sample)
            samples.append([sample.id, sample.input, sample.target, ci, sample.difficulty, prompt])
        # What the rule says depends on the rule alone, unless no part of it is known; then
        # `rule_explanation` falls back to the score's own explanation.
        statement = explained.get(score.rule)
        if statement is None:
            statement = explained[score.rule] = rule_explanation(
                replace(score, explanation=""), rules
            )
        statement = statement or score.explanation
        rows.append(
            [
                order[record.model],
                si,
                record.epoch,
                outcome_index[score.outcome],
                record.text,
                score.extracted,
                score.normalized,
                intern(score.rule),
                intern(statement),
                intern(score.explanation),
                intern(record.finish_reason),
                round(record.latency_s, 3),
                record.usage.prompt_tokens,
                record.usage.completion_tokens,
                record.attempts,
                intern(record.error),
                1 if score.format_ok else 0,
                intern(_words(human, record.model, sample.id, record.epoch)),
            ]
        )
    return {
        "schema": SCHEMA,
        "models": sorted(order, key=order.__getitem__),
        "outcomes": list(OUTCOMES),
        "categories": list(categories),
        "strings": list(strings),
        "sample_fields": list(SAMPLE_FIELDS),
        "row_fields": list(ROW_FIELDS),
        "samples": samples,
        "rows": rows,
    }


def _words(
    human: Mapping[tuple[str, str, int], HumanGrade] | None, model: str, sample: str, epoch: int
) -> str:
    grade = None if human is None else human.get((model, sample, epoch))
    return "" if grade is None else grade.words


def script_json(value: Any) -> str:
    """Compact JSON that may sit between `<script type="application/json">` and `</script>`.

    `<`, `>` and `&` only ever occur inside JSON strings, where `\\u003c` etc. mean the same to
    `JSON.parse`; lone surrogates (which UTF-8 cannot carry) are kept as `\\udxxx` escapes.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return escape_surrogates(text)


def escape_surrogates(text: str) -> str:
    """Lone surrogates as `\\udxxx` (only valid inside JSON strings); other text unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text
