"""The arithmetic scorer: one stored reply and its sample → one typed `Score`.

A failed call never reaches a scorer (the grading room grades it `call_failed`, never wrong).
Order: code or a tool is `violation`; a reply cut
off by max_tokens is `truncated` unless it had already given a final-answer line (then it is
graded on that line); an answer the reply takes back afterwards is `unscored` (`retracted`); no
answer found is `no_answer`; otherwise the answer is compared with the
target by the sample's answer type.

Rule names (`Score.rule`): an outcome rule alone ("call_failed", "violation", "truncated",
"no_answer", "bad_target"), or for a correct or wrong answer "<extraction rule>+<comparison rule>",
e.g. "final_answer_line+integer_equal", "last_number+fraction_equal", "bare_answer+format_only".
Every part is a key of `RULES`; `explain_rule` joins their sentences for a report.
"""

from __future__ import annotations

from dataclasses import dataclass

from proctor.extract import (
    EXTRACTION_RULES,
    extract_answer,
    find_violation,
    last_marker_is_cut,
    operand_values,
    parse_number,
    strip_reasoning,
)
from proctor.score.compare import (
    COMPARE_RULES,
    Verdict,
    comparison_equal,
    decimal_equal,
    fraction_equal,
    integer_equal,
    text_equal,
)
from proctor.score.failed import CALL_FAILED_RULE
from proctor.types import Extraction, FinishReason, Sample, Score

_OUTCOME_RULES: dict[str, str] = {
    "call_failed": CALL_FAILED_RULE,
    "violation": "The reply wrote code or claimed to use a calculator, code or a tool, which the"
    " task forbids.",
    "truncated": "The reply hit max_tokens before giving a final-answer line, or inside its last"
    " one.",
    "no_answer": "No answer could be found in the reply.",
    "bad_target": "The sample's target cannot be read as its answer type, so the reply is not"
    " scored.",
}

RULES: dict[str, str] = {**_OUTCOME_RULES, **EXTRACTION_RULES, **COMPARE_RULES}
"""Every rule name that can appear in `Score.rule` (split on "+"), with its one sentence."""


def explain_rule(rule: str) -> str:
    """The sentences of every part of a rule name such as "final_answer_line+integer_equal"."""
    return " ".join(RULES.get(part, part) for part in rule.split("+"))


@dataclass(frozen=True)
class ExactAnswerMatch:
    """The answer the reply gives must equal the sample's exact target, in the form it asks for."""

    variant: str = "B"

    def __call__(
        self,
        text: str,
        finish_reason: FinishReason,
        sample: Sample,
    ) -> Score:
        return grade(text, finish_reason, sample, variant=self.variant)


def _operands(sample: Sample) -> tuple[str, ...]:
    return tuple(sample.metadata.get("operands", "").split())


def _compare(extraction: Extraction, sample: Sample) -> Verdict | None:
    """None when the target cannot be read as the sample's answer type."""
    answer = extraction.value or ""
    if sample.answer_type == "text":
        return text_equal(answer, sample.target)
    if sample.answer_type == "comparison":
        target = sample.target.strip()
        if target not in ("<", ">", "="):
            return None
        operands = operand_values(_operands(sample), sample.input)
        return comparison_equal(answer, target, operands)
    target_number = parse_number(sample.target)
    answer_number = parse_number(answer)
    if target_number is None:
        return None
    if answer_number is None:
        return Verdict(False, f"{sample.answer_type}_equal", "not one plain number", None)
    compare = {"integer": integer_equal, "decimal": decimal_equal, "fraction": fraction_equal}
    return compare[sample.answer_type](answer_number, target_number)


def _explanation(verdict: Verdict, extraction: Extraction, target: str, correct: bool) -> str:
    given = repr(extraction.value)
    if verdict.normalized is not None and verdict.normalized != extraction.value:
        given += f" (read as {verdict.normalized})"
    if verdict.reason:
        said = f"{given} is {verdict.reason} (target {target})."
    elif correct:
        said = f"{given} equals the target {target}."
    else:
        said = f"{given} is not the target {target}."
    if extraction.note:
        said += f" Found by {extraction.rule}: {extraction.note}."
    return said


def grade(
    text: str,
    finish_reason: FinishReason,
    sample: Sample,
    *,
    variant: str,
) -> Score:
    """Grade one reply to one arithmetic sample (see the module docstring for the order)."""
    reason = find_violation(strip_reasoning(text))
    if reason is not None:
        return Score("violation", "violation", reason)
    extraction = extract_answer(
        text,
        variant=variant,
        question=sample.input,
        operands=_operands(sample),
        answer_type=sample.answer_type,
    )
    if finish_reason == "length" and (
        extraction.rule not in ("final_answer_line", "answer_line") or last_marker_is_cut(text)
    ):
        return Score("truncated", "truncated", RULES["truncated"], extracted=extraction.value)
    if extraction.rule == "retracted":
        return Score("unscored", "retracted", f"{RULES['retracted']} ({extraction.note})")
    if extraction.value is None:
        why = f" ({extraction.note})" if extraction.note else ""
        return Score("no_answer", "no_answer", RULES["no_answer"] + why)
    verdict = _compare(extraction, sample)
    if verdict is None:
        return Score(
            "unscored",
            "bad_target",
            f"{RULES['bad_target']} Target {sample.target!r} ({sample.answer_type}).",
            extracted=extraction.value,
            format_ok=extraction.format_ok,
        )
    return Score(
        "correct" if verdict.correct else "wrong",
        f"{extraction.rule}+{verdict.rule}",
        _explanation(verdict, extraction, sample.target, verdict.correct),
        extracted=extraction.value,
        normalized=verdict.normalized,
        format_ok=extraction.format_ok,
    )
