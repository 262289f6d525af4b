"""What a number in a text is said of: its metric, its part in a change, the change's direction.

"毛利率同比增长 18% 至 38%" states 18% and 38%, but of the gross margin, as a rise by 18% to
38%; a material that says revenue grew 18% and the margin fell from 41% to 38% states neither.
`attachment(text, span, value)` reads, for the number `value` stated in text[span]:

- `metric` — the metric word it is said of (`proctor.extract.metric_terms`): one right after
  it ("38% gross margin", "a 12% rise in revenue", "38%的毛利率"), else the nearest before it in
  its sentence ("营收 1.2 亿元，同比增长 18%" → 营收), with the words joined to it ("营收和利润
  均增长 18%" is said of both). A sentence with "respectively" / "分别"
  pairs numbers with metrics by order, which this reader does not follow: `ambiguous` says so.
- `role` — `from` ("from 5%", "由 3%", "从 41%", a former value: "原 10 天", "previously
  44%", "was $10 and is now $8"), `to` ("to 3%", "降至 3%", "变为 5%", "缩短为 2 小时"), `by`
  (right after a change or signed: "grew 18%", "rose by 3%", "同比增长 18%", "增幅 18%", "+18%",
  "15% more than", "a 12% rise in revenue"), `range` ("between 12% and 15%") or `level`
  (anything else: "churn stayed at 3%"). A range right after a change is a change: "增长 18% 至
  38%" is by 18% to 38%.
- `direction` — `up`, `down` or `flat` from the nearest change word before it and after the
  number before it in its clause (rose, fell, cut, narrowed, 增长, 降至, 缩短, stayed, 不变…);
  a `to` number joined to the one before ("grew 12% to $4.5 million") takes that one's; a
  `from` number the word after it; else the values of "from X to Y" / "由 X 变为 Y"; "" when
  nothing says.

`conflict(expected, found)` says why a number read in a reply is not the number the material
states (another metric, another role, another direction), or "" when nothing contradicts:
what a reply leaves unsaid (no metric word, no direction) is not held against it. Roles agree
when equal, and a `to` value with a plain one (the new value stated as it is now).
`placement(text, span, phrase, material)` does it all for one point's phrase: the material's
readings of the phrase's number against the reply's; a day of a date ("30 June") is not placed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from proctor.extract.metric_terms import Term, metric_terms, same_metric
from proctor.extract.phrases import find_point, stated
from proctor.extract.quantities import Quantity
from proctor.extract.sentences import CJK_CHAR, Clause, clause_at

Role = Literal["level", "from", "to", "by", "range"]
Direction = Literal["up", "down", "flat", ""]


def _alt(*words: str) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UP_EN = _alt("rose", "rise", "rises", "risen", "rising", "grew", "grow", "grows", "grown",
              "growing", "increase", "increased", "increases", "increasing", "climbed", "climb",
              "climbs", "jumped", "jump", "jumps", "gained", "gain", "gains", "went up", "goes up",
              "go up", "up", "higher", "lifted", "lift", "lifts", "raised", "raise", "raises",
              "boosted", "extended", "lengthened", "growth", "doubled", "widened",
              "expanded")  # fmt: skip
_DOWN_EN = _alt("fell", "fall", "falls", "fallen", "falling", "dropped", "drop", "drops",
                "dropping", "decrease", "decreased", "decreases", "decreasing", "declined",
                "decline", "declines", "declining", "slipped", "slip", "slips", "went down",
                "goes down", "go down", "down", "lower", "cut", "cuts", "reduced", "reduce",
                "reduces", "reduction", "shrank", "shrunk", "shrinks", "shortened",
                "halved", "narrowed", "contracted", "compressed")  # fmt: skip
_FLAT_EN = _alt("stayed", "stay", "stays", "remained", "remain", "remains", "unchanged", "held",
                "holds", "flat", "steady")  # fmt: skip
_UP_ZH = _alt("增长", "增加", "上升", "上涨", "提高", "提升", "升高", "延长", "扩大", "翻番",
              "增幅", "涨幅", "增速", "上调", "调高", "增", "涨", "升")  # fmt: skip
_DOWN_ZH = _alt("下降", "降低", "减少", "下跌", "下滑", "回落", "缩短", "缩小", "降幅", "下调",
                "调低", "降", "减", "跌")  # fmt: skip
_FLAT_ZH = _alt("不变", "持平", "保持", "维持")
_CHANGE = re.compile(
    rf"(?i)(?P<up>\b(?:{_UP_EN})\b|{_UP_ZH})|(?P<down>\b(?:{_DOWN_EN})\b|{_DOWN_ZH})"
    rf"|(?P<flat>\b(?:{_FLAT_EN})\b|{_FLAT_ZH})"
)
_NOT_CHANGE = re.compile(
    r"(?i)新增|增值|增设|升级|\bup\s+to\b|\b(?:set|sign|follow|make|made|pick|back)\s+up\b"
    r"|\bdown\s+payment\b|\blower\s+(?:than|bound|limit)\b|\bdown\s+for\b"
    r"|\b(?:is|was|were|are|be|been|being)\s+down\b"
)
"""Look-alikes of change words: "新增用户" is new users, "up to 5%" a bound, "set up" a verb."""
_TO_VERBS_ZH = _alt("增长", "增加", "上升", "上涨", "提高", "提升", "升高", "延长", "扩大", "下降",
                   "上调", "下调", "调高", "调低",
                   "降低", "减少", "下跌", "下滑", "回落", "缩短", "缩小", "增", "升", "涨", "降",
                   "减", "跌")  # fmt: skip
_FROM_TAIL = re.compile(
    r"(?i)(?:\bfrom|从|由)\s*(?:每[月年天周人位]|about|around|roughly|approximately|约|大约)?\s*\Z"
)
_TO_TAIL = re.compile(
    r"(?i)(?<!\bup )(?<!\bclose )(?<!\bequal )(?<!\bdue )\bto\s*\Z"
    r"|(?<!截)(?<!直)(?:到|至)\s*\Z|(?:变|改|调整|" + _TO_VERBS_ZH + r")(?:为|成)\s*\Z"
)
_FORMER_TAIL = re.compile(
    r"(?i)(?:\b(?:previously|formerly|down from|up from)"
    r"|原为|原来是|原来|原|此前为|此前|曾为|以前是)\s*\Z"
)
_PAST_TAIL = re.compile(r"(?i)\b(?:was|were|used to be)\s*\Z")
_NOW = re.compile(r"(?i)\bnow\b|现在|现为|目前|如今")
"""A former value ("原 10 天", "previously $8") is where a change started; so is one that "was"
when the sentence says what it is now: "was $10 and is now $8" is a fall from $10."""
_BY_TAIL = re.compile(
    rf"(?i)(?:\b(?:{_UP_EN}|{_DOWN_EN})|{_UP_ZH}|{_DOWN_ZH})\s*了?\s*"
    r"(?:\bby\b|\bof\b|为|达|达到|是|:|：)?\s*(?:about|around|roughly|nearly|almost|约|大约|近)?\s*\Z"
)
_BY_AFTER = re.compile(
    r"(?i)\s*(?:(?P<up>more|higher|up)|(?P<down>less|lower|fewer|down))\b"
    r"|\s*(?:(?!(?:and|but|despite|after|before|with|as|while|in|on|at|for|of|to|from|a|an|the)"
    r"\b)[a-z-]+\s+){0,2}?(?:(?P<rise>rise|increase|growth|gain|jump)"
    r"|(?P<fall>drop|decline|fall|decrease|cut|reduction))\b"
    r"|\s*的?(?:(?P<zh_up>增长|增幅|涨幅|增加|上升)|(?P<zh_down>下降|降幅|减少|下跌))"
)
_METRIC_AFTER = re.compile(
    r"(?i)\s*(?:(?:year-on-year|yoy|annual|quarterly|monthly)\s+)?"
    r"(?:(?:rise|increase|growth|gain|jump|drop|decline|fall|decrease|cut|reduction)\s+in\s+)?"
    r"(?:the\s+|its\s+|our\s+|their\s+)?的?"
)
_TAIL = 48
"""How far before a number its role is read ("from", "降至", "rose by"): the words right there."""
_AND = re.compile(r"(?i)\s*(?:和|与|及|以及|、|,|，|&|\band\b|\bas well as\b|\bplus\b)\s*")
_RESPECTIVELY = re.compile(r"(?i)\brespectively\b|分别|依次")
_NO_SUBJECT = re.compile(
    r"(?i)同比|环比|比上月|较上月|比去年|较去年|较上年|比上年|\byear[- ]on[- ]year\b"
    r"|\byear[- ]over[- ]year\b|\byoy\b|\ban?\b|\bby\b|\band\b|\bthen\b|了|约|并|且|又|再|达|"
    r"\b(?:previously|formerly|from)\b|原为|原来|原|此前|"
    r"[\s\W]"
)
"""What may stand between a clause's start and its number when the clause has no subject of
its own ("营收 1.2 亿元，同比增长 18%": the 18% is the revenue's)."""
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DATE_AROUND = re.compile(rf"(?i)\b(?:{_MONTHS})\.?\s*\Z|\A\s*(?:(?:{_MONTHS})\b|[月日号])")
"""A day next to a month ("30 June", "June 30", "5 日") is a date, not a number to place."""


@dataclass(frozen=True)
class Attachment:
    """How a number stands in its text (see the module docstring)."""

    number: str
    metric: Term | None
    role: Role
    direction: Direction
    ambiguous: str = ""
    joint: tuple[Term, ...] = ()
    """Metric words joined to `metric` ("营收和利润"): the number is said of each."""


def _masked(text: str) -> str:
    """`text` with its look-alikes of change words blanked (same length)."""
    return _NOT_CHANGE.sub(lambda m: " " * len(m.group()), text)


def _changes(text: str) -> list[tuple[int, Direction]]:
    """(position, direction) of every change word of `text`, look-alikes left out."""
    found: list[tuple[int, Direction]] = []
    for m in _CHANGE.finditer(_masked(text)):
        kind: Direction = "up" if m.group("up") else "down" if m.group("down") else "flat"
        found.append((m.start(), kind))
    return found


@lru_cache(maxsize=8)
def _quantities(text: str) -> tuple[Quantity, ...]:
    """The numbers and ranges `text` states (a reply is read once, whatever asks)."""
    return tuple(q for q in stated(text) if q.is_quantity)


def _clause(text: str, at: int) -> Clause:
    return clause_at(text, at) or Clause(0, len(text), 0, len(text))


def _joint(text: str, metric: Term | None) -> tuple[Term, ...]:
    """The metric words joined to `metric` before it ("营收和利润均增长 18%", "revenue and profit
    both rose 12%"): the number is said of each of them."""
    if metric is None:
        return ()
    terms = metric_terms(text)
    i = terms.index(metric)
    joined: list[Term] = []
    while i > 0 and _AND.fullmatch(text, terms[i - 1].end, terms[i].start):
        i -= 1
        joined.append(terms[i])
    return tuple(joined)


def _metric(text: str, clause: Clause, start: int, end: int) -> tuple[Term | None, str]:
    sentence = text[clause.sentence_start : clause.sentence_end]
    if m := _RESPECTIVELY.search(sentence):
        return None, f"its sentence pairs numbers and metrics by order ({m.group()!r})"
    terms = metric_terms(text)
    lead = _METRIC_AFTER.match(text, end, clause.end)
    at = lead.end() if lead else end
    after = next((t for t in terms if t.start == at and t.end <= clause.end), None)
    if after is not None:
        return after, ""
    own = [t for t in terms if clause.start <= t.start and t.end <= start]
    if own:
        return own[-1], ""
    if _NO_SUBJECT.sub("", _CHANGE.sub("", text[clause.start : start])):
        return None, ""
    before = [t for t in terms if clause.sentence_start <= t.start and t.end <= start]
    return (before[-1] if before else None), ""


def _numbers(text: str, clause: Clause) -> list[Quantity]:
    found = _quantities(text)
    i = bisect_right([q.start for q in found], clause.start - 1)
    out: list[Quantity] = []
    for q in found[i:]:
        if q.start >= clause.end:
            break
        out.append(q)
    return out


def _by_values(low: Fraction, high: Fraction) -> Direction:
    return "up" if high > low else "down" if high < low else "flat"


def _direction(
    text: str, clause: Clause, start: int, end: int, role: Role, q: Quantity
) -> Direction:
    earlier = [r for r in _numbers(text, clause) if r.end <= start]
    since = earlier[-1].end if earlier else clause.start
    before = [d for at, d in _changes(text[since:start])]
    if before:
        return before[-1]
    if role == "to" and earlier and _joined(text, since, start):
        # "增长 18% 至 38%", "rose from $8 to $10": the change word stands before the first
        back = earlier[-2].end if len(earlier) > 1 else clause.start
        before = [d for at, d in _changes(text[back : earlier[-1].start])]
        if before:
            return before[-1]
    if role == "from":
        after = [d for at, d in _changes(text[end : clause.end])]
        if after:
            return after[0]
        later = [r for r in _numbers(text, clause) if r.start >= end]
        if later and later[0].unit == q.unit:
            return _by_values(q.value, later[0].value)
    if role == "to" and earlier and _FROM_TAIL.search(text, clause.start, earlier[-1].start):
        return _by_values(earlier[-1].value, q.value)
    return ""


def _joined(text: str, start: int, end: int) -> bool:
    """Whether text[start:end], between two numbers, only joins them ("to", " 至 ", "year on
    year to"): no metric word and a few words at most."""
    gap = text[start:end]
    if any(start <= t.start < end for t in metric_terms(text)):
        return False
    return len(gap.split()) <= 5 and len(CJK_CHAR.findall(gap)) <= 4


def _role(text: str, clause: Clause, start: int, end: int) -> tuple[Role, Direction]:
    """The role of the number text[start:end], and a direction the words after it give."""
    head = _masked(text[max(clause.start, start - _TAIL) : start])
    if _FROM_TAIL.search(head):
        return "from", ""
    if _FORMER_TAIL.search(head) or (
        _PAST_TAIL.search(head) and _NOW.search(text, end, clause.sentence_end)
    ):
        return "from", ""
    if _TO_TAIL.search(head):
        return "to", ""
    if _BY_TAIL.search(head):
        return "by", ""
    sign = text[max(clause.start, start - 1) : start + 1]
    if "+" in sign or "↑" in text[end : end + 1]:
        return "by", "up"
    if "↓" in text[end : end + 1]:
        return "by", "down"
    if m := _BY_AFTER.match(text, end, clause.end):
        return "by", "up" if m.group("up") or m.group("rise") or m.group("zh_up") else "down"
    return "level", ""


def _end_of_range(found: Quantity, value: Quantity) -> str:
    if found.kind != "range":
        return ""
    v = value.in_base()
    if found.in_base(found.top) == v and found.in_base(found.value) != v:
        return "high"
    return "low"


def attachment(text: str, start: int, end: int, value: Quantity) -> Attachment | None:
    """How the number `value` stated in text[start:end] stands (None: no number there)."""
    inside = [q for q in _quantities(text) if q.start < end and start < q.end]
    if not inside:
        return None
    q = next((r for r in inside if r.kind == "number" and r.value == value.value), inside[0])
    clause = _clause(text, q.start)
    metric, ambiguous = _metric(text, clause, q.start, q.end)
    role, said = _role(text, clause, q.start, q.end)
    end_of = _end_of_range(q, value)
    if end_of:
        if role in ("level", "range"):
            role = "range"
        elif role in ("by", "from"):
            role = ("by" if role == "by" else "from") if end_of == "low" else "to"
    direction = said or _direction(text, clause, q.start, q.end, role, q)
    if end_of and not said and role in ("from", "to") and direction == "":
        direction = _by_values(q.value, q.top)
    return Attachment(q.text, metric, role, direction, ambiguous, _joint(text, metric))


_ROLE_WORDS: dict[Role, str] = {
    "level": "a plain value",
    "from": "the value it changed from",
    "to": "the value it changed to",
    "by": "the size of a change",
    "range": "one end of a range",
}
_AGREE: frozenset[frozenset[Role]] = frozenset(
    {frozenset({"level", "to"}), frozenset({"to"}), frozenset({"level"}), frozenset({"from"}),
     frozenset({"by"}), frozenset({"range"})}
)  # fmt: skip
_DIRECTION_WORDS: dict[Direction, str] = {"up": "a rise", "down": "a fall", "flat": "no change"}


def conflict(expected: Attachment, found: Attachment) -> str:
    """Why `found` (a reply's number) is not the number `expected` (the material's), or ""."""
    e, f = expected.metric, found.metric
    if (
        e is not None
        and f is not None
        and not any(same_metric(a, b) for a in (e, *expected.joint) for b in (f, *found.joint))
    ):
        return f"{found.number!r} is said of {f.word!r}, where the material says it of {e.word!r}"
    if frozenset({expected.role, found.role}) not in _AGREE:
        return (
            f"{found.number!r} is {_ROLE_WORDS[found.role]}, where the material has it as"
            f" {_ROLE_WORDS[expected.role]}"
        )
    if expected.direction and found.direction and expected.direction != found.direction:
        return (
            f"{found.number!r} comes with {_DIRECTION_WORDS[found.direction]}, where the"
            f" material has {_DIRECTION_WORDS[expected.direction]}"
        )
    return ""


Placement = Literal["attached", "misplaced", "unclear"]


@lru_cache(maxsize=256)
def _number_of(phrase: str) -> Quantity | None:
    """The one number of a point's phrase, or None (none, several, or a day of a date)."""
    numbers = stated(phrase)
    if len(numbers) != 1 or not numbers[0].is_quantity:
        return None
    (q,) = numbers
    if _DATE_AROUND.search(phrase[: q.start]) or _DATE_AROUND.match(phrase[q.end :]):
        return None
    return q


@lru_cache(maxsize=256)
def _expected(source: str, phrase: str, q: Quantity) -> tuple[Attachment, ...]:
    """How the material states the phrase's number, at each place it does."""
    spans = find_point(source, phrase)
    return tuple(e for a, b in spans if (e := attachment(source, a, b, q)) is not None)


def placement(text: str, start: int, end: int, phrase: str, source: str) -> tuple[Placement, str]:
    """Whether the number of `phrase` stated in text[start:end] stands as `source` (the
    material) states it: "attached" (or nothing to check: `phrase` states no single number, or
    `source` does not state it), "misplaced" with the conflict, or "unclear" with why the
    metric cannot be told."""
    q = _number_of(phrase)
    if q is None or not source:
        return "attached", ""
    expected = _expected(source, phrase, q)
    if not expected:
        return "attached", ""
    found = attachment(text, start, end, q)
    if found is None:
        return "attached", ""
    reasons = [conflict(e, found) for e in expected]
    if "" not in reasons:
        return "misplaced", reasons[0]
    if found.ambiguous and any(e.metric is not None for e in expected):
        return "unclear", f"{found.number!r}: {found.ambiguous}"
    return "attached", ""
