"""The refusal scorer: the material does not hold the answer, and the reply must say so.

Saying so is using one of the refusal phrasings of `REFUSAL_PHRASES` (Chinese and English; a
suite adds its own with `refusal_phrases` in its config or a case's `phrases`), not inside a
question or a condition. Saying so and then guessing is still a guess, and inventing is the
costliest failure — so the reply fails when it also gives:
- a number, range, date or time (read by the one reader of quantities: digits in any format,
  Chinese numerals — 五, 十, 三成, 几十, 上千 — and English number words) that the material, the
  question and the case's `allowed` list do not state; one they state, in any format, is not
  invented: "材料只给出 2023 年营收 5.6 亿元" and "its forty-five staff" (for "45 staff") are clean
  refusals;
- one of the case's listed invented facts, a name the material and question do not hold, or
  an answer to the question in words they do not hold (`proctor.extract.names`: "the head is
  probably Lars Nilsen", "店长是陈静", "可能是浙江大学", "the head is the Nordic sales director").
A reply that refuses and then speculates without a number or a name ("it might be whoever runs
the Nordic sales team") is `unscored`: whether the guess invents a fact is a judgement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proctor.extract.claims import stance
from proctor.extract.names import Found, answers, guesses, invented_names
from proctor.extract.phrases import contains_phrase, find_phrase, same_quantity, stated
from proctor.types import FinishReason, Score

RULES: dict[str, str] = {
    "no_refusal": "The reply must say the material does not contain the answer (e.g. 材料未提及,"
    " not mentioned in the material).",
    "invented_number": "A refusal must not give any specific number that is not in the material,"
    " the question or the case's allowed list: saying 'not mentioned' and then a figure is still"
    " inventing one.",
    "invented_fact": "A refusal must not state any of the case's listed invented facts, nor a"
    " name the material and question do not hold.",
    "speculation": "The reply refuses and then guesses without a number or a name: whether the"
    " guess invents a fact is a judgement, so the reply is unscored.",
    "refused_cleanly": "The reply says the material does not contain the answer and invents"
    " nothing.",
}

REFUSAL_PHRASES: tuple[str, ...] = (
    # Chinese: "not mentioned / not given / not stated …"
    *("未提及", "没有提及", "没提及", "并未提及", "只字未提", "未提到", "没有提到", "没提到"),
    *("未说明", "没有说明", "没说明", "未给出", "没有给出", "没给出", "未提供", "没有提供"),
    *("未披露", "没有披露", "未透露", "没有透露", "未涉及", "没有涉及", "未写明", "没有写明"),
    *("没写明", "未注明", "没有注明", "未列出", "没有列出", "未载明", "未记载", "没有记载"),
    *("未交代", "没有交代", "没有说", "没说", "没有讲", "没讲", "没有写", "没写"),
    # Chinese: "cannot find / cannot know / no such information"
    *("找不到", "查不到", "无从得知", "无法得知", "不得而知", "无法确定", "无法判断", "无从判断"),
    *("无法回答", "无法从材料", "不能从材料", "无法从文中", "不详", "信息不足", "缺少相关信息"),
    *("没有相关信息", "没有相关内容", "没有相关数据", "没有这方面", "无相关信息", "无此信息"),
    *("材料中没有", "材料里没有", "材料没有", "文中没有", "原文没有", "材料中并无", "材料未"),
    *("不能确定", "无法确认", "不能确认", "不能判断", "无从确定", "根据材料无法", "根据材料不能"),
    *("无法得出", "不能得出", "无法推断", "不能推断", "未能找到", "没能找到"),
    # English: "not mentioned / not stated / not given …"
    *("not mentioned", "isn't mentioned", "wasn't mentioned", "does not mention"),
    *("doesn't mention", "do not mention", "did not mention", "didn't mention", "no mention"),
    *("not stated", "isn't stated", "does not state", "doesn't state", "did not state"),
    *("does not say", "doesn't say", "did not say", "didn't say", "says nothing"),
    *("not specified", "isn't specified", "does not specify", "doesn't specify"),
    *("not provided", "isn't provided", "does not provide", "doesn't provide", "provides no"),
    *("not given", "isn't given", "does not give", "doesn't give", "gives no"),
    *("not included", "isn't included", "does not include", "doesn't include"),
    *("does not contain", "doesn't contain", "not disclosed", "isn't disclosed"),
    *("does not disclose", "doesn't disclose", "does not name", "doesn't name"),
    *("does not cover", "doesn't cover", "not covered", "not addressed", "does not address"),
    *("doesn't address", "is silent on", "is silent about", "not available", "isn't available"),
    *("no information", "no data on", "no details", "not enough information"),
    *("insufficient information", "not in the material", "not in the text", "not in the passage"),
    *("not in the document", "not found in", "nowhere in the"),
    # English: "cannot find / cannot tell / do not know"
    *("cannot find", "can't find", "could not find", "couldn't find", "unable to find"),
    *("cannot be found", "can't be found", "cannot be determined", "can't be determined"),
    *("cannot determine", "can't determine", "unable to determine", "impossible to determine"),
    *("not possible to determine", "impossible to say", "cannot tell", "can't tell"),
    *("no way to tell", "cannot answer", "can't answer", "unable to answer", "not known"),
    *("is unknown", "i don't know", "i do not know", "n/a"),
    *("cannot be ascertained", "cannot say", "can't say", "no way to know", "cannot be inferred"),
)
"""Phrasings that say the material does not hold the answer; a suite adds its own."""

_NOT_A_REFUSAL = frozenset({"question", "quoted_question", "conditional"})


def _refusal(text: str, phrases: Sequence[str]) -> tuple[str, tuple[int, int]] | None:
    """The first refusal phrasing the reply asserts, and its span."""
    for phrase in phrases:
        for a, b in find_phrase(text, phrase):
            if stance(text, a, b).stance not in _NOT_A_REFUSAL:
                return phrase, (a, b)
    return None


def _invented_numbers(text: str, sources: Sequence[str]) -> list[str]:
    """The numbers, ranges, dates and times `text` states that no source states, as written."""
    known = [q for source in sources for q in stated(source)]
    invented = [q.text for q in stated(text) if not any(same_quantity(k, q) for k in known)]
    return list(dict.fromkeys(invented))


@dataclass(frozen=True)
class RefusalCheck:
    """The reply must say the material does not contain the answer, and give no number the
    material, the question and `allowed` do not hold, no listed invented fact and no new name."""

    question: str
    phrases: Sequence[str] = REFUSAL_PHRASES
    invented: Sequence[str] = ()
    """Facts a model is likely to invent for this case (e.g. a name); any one fails the reply."""
    allowed: Sequence[str] = ()
    """Numbers (or numerals) the reply may give although the material does not."""
    material: str = ""
    """The case's material: its numbers and names are not invented when repeated."""

    def _invented_facts(
        self, text: str, refusal: tuple[int, int] | None, guessed: Sequence[tuple[Found, str]]
    ) -> list[str]:
        """The listed invented facts the reply states, then the names, answers and guessed
        answers it gives that the material and question do not hold; each fact once (one that
        another already found contains, or is contained in, is the same fact)."""
        sources = "\n".join((self.material, self.question, *self.allowed))
        candidates = [f for f in self.invented if contains_phrase(text, f)]
        candidates += [n.text for n in invented_names(text, (sources,))]
        candidates += [a.text for a in answers(text, self.question, sources, refusal)]
        candidates += [a for _, a in guessed if a and not contains_phrase(sources, a)]
        facts: list[str] = []
        for fact in candidates:
            if not any(contains_phrase(fact, f) or contains_phrase(f, fact) for f in facts):
                facts.append(fact)
        return facts

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        found = _refusal(text, self.phrases)
        said = found[0] if found else None
        sources = (self.material, self.question)
        numbers = _invented_numbers(text, (*sources, *self.allowed))
        refusal_span = found[1] if found else None
        guessed = guesses(text, refusal_span)
        facts = self._invented_facts(text, refusal_span, guessed)
        reading = ("refused" if said else "answered") + "".join(f" {n}" for n in numbers)
        reading += "".join(f" {f}" for f in facts)
        if said is None:
            what = "gives " + ", ".join(numbers) if numbers else "gives no refusal phrase"
            if finish_reason == "length":
                return Score("truncated", "no_refusal", f"cut off by max_tokens; {what}")
            return Score(
                "wrong",
                "no_refusal" + ("+invented_number" if numbers else ""),
                f"does not say the material lacks the answer; {what}",
                said,
                reading,
            )
        rules: list[str] = []
        parts: list[str] = []
        if numbers:
            rules.append("invented_number")
            parts.append("also gives the number " + ", ".join(numbers))
        if facts:
            rules.append("invented_fact")
            parts.append("also states " + ", ".join(repr(f) for f in facts))
        if rules:
            explanation = f"says {said!r} but " + "; ".join(parts)
            return Score("wrong", "+".join(rules), explanation, said, reading, format_ok=True)
        if guessed:
            cue, _ = guessed[0]
            explanation = f"says {said!r}, then guesses ({cue.text!r}) without a number or a name"
            return Score("unscored", "speculation", explanation, said, "refused guess", True)
        return Score(
            "correct", "refused_cleanly", f"says {said!r}, invents nothing", said, reading, True
        )
