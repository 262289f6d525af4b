"""Whether a reply asserts what it mentions: the stance of a mention, in Chinese or English.

A checklist that only looks for a phrase counts "主管尚未批准退款" as "refund approved". Here a
mention (a span of the reply, found by phrase or number matching) gets one stance, decided by
the first rule that applies:

1. `quoted_question` — inside quotation marks (“…” 「…」 『…』 "…") whose content is a question
   or that follow a verb of asking: `张伟来信问：“退款已批准了吗？”`. `quoted` — inside
   quotation marks otherwise: reported speech is not the reply's own statement, and whether it
   counts is a judgement.
2. `question` — its clause ends in ? / ？ or 吗, its sentence is an English question (it begins with
   an auxiliary or a wh-word and ends in "?"), or a question word stands before it in its clause
   (whether, 是否, 有没有, "asked if", 问).
3. `conditional` — a condition stands before it in its clause (if, unless, in case, 如果, 若,
   假如, 一旦, 除非): a condition is not a statement that it happened.
4. `double_negation` / `negated` — two negations, or one, stand before it in its clause (不, 没,
   没有, 未, 尚未, 并非, 而非, not, n't, never, no, no longer, yet to, rather than, instead
   of…), or a denial follows it ("…is not true", "…不属实"), or — at clause reach — an undone
   completion follows it ("联调尚未完成", "the rollback was not completed"). Look-alikes are not
   negations (不仅, 不过, 不断, 不少, 不变, 非常, 未来, 无论, 除非, "not only", "no later than",
   "whether or not"), nor are bounds (不超过, 不到, "no more than"); a negation that closes a
   short 的-modifier ("未休完的年假可顺延") negates the modifier, not what follows it. How far
   back a negation reaches is the caller's `Reach`: the whole clause for a required point (or
   160 characters of it), a few words for a forbidden one ("not an attack", "不是毛利率上升").
5. `hedged` — a hedge stands in its clause, or alone at the start of its sentence (可能, 也许,
   或许, 大概, 似乎, 据说, 估计, may have, might, probably, perhaps, apparently, reportedly…).
   "may" is a hedge ("may rise", "may have approved") except before a verb of permission
   (`PERMISSION`: "may apply for an exception", "may keep the tent") and where it is the month
   ("in May the team", "May 5", "since May").
6. `asserted` — none of the above.

A clause ends at , ， ; ； : ： —, around brackets and before a contrast word
(`proctor.extract.sentences`), so a negation never reaches past "，而是" or ", but".

Which stances make a point is the caller's to say (`proctor.score.summary` compares them with
the stances the material gives the point); `NOT_ASSERTED` and `UNDECIDED` group them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from proctor.extract.sentences import CJK_CHAR, Clause, clause_at

Stance = Literal[
    "asserted",
    "negated",
    "double_negation",
    "question",
    "quoted_question",
    "conditional",
    "hedged",
    "quoted",
]

NOT_ASSERTED: frozenset[Stance] = frozenset(
    {"negated", "question", "quoted_question", "conditional"}
)
"""Stances under which a mention does not make its point (nor a forbidden one)."""
UNDECIDED: frozenset[Stance] = frozenset({"hedged", "quoted", "double_negation"})
"""Stances the rules cannot decide: whether they make the point is a judgement."""


@dataclass(frozen=True)
class Mention:
    """A span of a reply and its stance; `cue` is the word that decided it ("" when asserted),
    `clause` the clause it stands in."""

    start: int
    end: int
    stance: Stance
    cue: str
    clause: str


def _words(*items: str) -> str:
    return "|".join(sorted(items, key=len, reverse=True))


_EN_NEGATION = re.compile(
    r"\b(?:" + _words("not", "never", "no", "none", "nobody", "nothing", "neither", "nor",
                      "without", "cannot", "no longer", "yet to", "failed to", "fails to",
                      "fail to", "instead of", "rather than", "denied", "denies", "deny")
    + r")\b|n['’]t\b",
    re.IGNORECASE,
)  # fmt: skip
_EN_NOT_NEGATION = re.compile(
    r"\b(?:" + _words("not only", "not just", "not least", "no later than", "no sooner than",
                      "no doubt", "no matter", "or not", "not sure", "not clear", "not certain",
                      "no more than", "not more than", "no less than", "not less than",
                      "not exceeding", "nothing but", "not to mention") + r")\b"
    r"|\bno\.\s*\d",
    re.IGNORECASE,
)  # fmt: skip
_ZH_NEGATION = re.compile(
    _words("尚未", "并未", "从未", "未曾", "未", "没有", "没", "不是", "并非", "而非", "绝非", "非",
           "不会", "不再", "不曾", "不", "无", "别", "勿", "否认", "毫无", "拒不")
)  # fmt: skip
_ZH_NOT_NEGATION = re.compile(
    _words("不仅", "不但", "不过", "不断", "不少", "不久", "不错", "不同", "不管", "不论", "不得不",
           "不止", "不禁", "不好意思", "不一定", "不确定", "不超过", "不到", "不足", "差不多",
           "无论", "无疑", "毫无疑问", "非常", "非洲", "未来", "未必", "除非", "莫非", "没想到",
           "没准", "无误", "不变", "分别", "区别", "特别", "级别", "类别", "别的", "别人", "差别")
)  # fmt: skip
_DENIAL_AFTER = re.compile(
    r"\b(?:is|was|are|were)\s+(?:not true|untrue|false|incorrect|wrong)\b"
    r"|不属实|不实|是错误的|是谣言",
    re.IGNORECASE,
)
_UNDONE_AFTER = re.compile(
    r"\s*(?:已经|还|仍|仍然|都|也)?(?:尚未|并未|未|没有|没|不)(?:能|会)?"
    r"(?:完成|批准|通过|解决|修复|到账|发货|上线|实现|落实|确认|同意|达成|结束|办理)"
    r"|\s*(?:has|have|had|is|are|was|were)(?:\s+not|n['’]t)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:\w+ed|done|made|paid|sent|begun|run)\b",
    re.IGNORECASE,
)
PERMISSION = (
    "apply", "request", "ask", "choose", "contact", "use", "keep", "return", "submit", "opt",
    "claim", "bring", "take", "join", "leave", "cancel", "register", "call", "email", "visit",
    "change", "pay", "book", "send", "attend", "work", "come", "continue", "also", "not",
)  # fmt: skip
"""Verbs after which "may" grants permission ("may apply for an exception"), not possibility."""
_EN_HEDGE = re.compile(
    r"(?<!\bin )(?<!\bon )(?<!\bof )(?<!\bby )(?<!\bearly )(?<!\blate )(?<!\bmid-)"
    r"(?<!\bsince )(?<!\buntil )(?<!\bfrom )(?<!\blast )(?<!\bnext )(?<!\bthis )"
    r"\bmay\s+(?!\d)(?!(?:" + _words(*PERMISSION) + r")\b)\w+"
    r"|\b(?:" + _words("might", "could have", "could be", "possibly",
                      "probably", "perhaps", "maybe", "likely", "unlikely", "apparently",
                      "reportedly", "allegedly", "supposedly", "presumably", "seems", "seem",
                      "seemed", "appears to", "appear to", "appeared to", "unclear", "not sure",
                      "not clear", "not certain", "i think", "i believe", "i guess",
                      "rumoured", "rumored", "is said to", "are said to") + r")\b",
    re.IGNORECASE,
)  # fmt: skip
_ZH_HEDGE = re.compile(
    _words("可能", "也许", "或许", "大概", "似乎", "好像", "据说", "据称", "传闻", "疑似", "或将",
           "恐怕", "不确定", "不一定", "未必", "没准", "应该是", "应该已", "估计", "猜测", "推测")
)  # fmt: skip
_EN_CONDITION = re.compile(
    r"\b(?:" + _words("if", "unless", "in case", "provided that", "assuming", "suppose",
                      "supposing") + r")\b",
    re.IGNORECASE,
)  # fmt: skip
_ZH_CONDITION = re.compile(
    _words("如果", "假如", "假设", "要是", "倘若", "一旦", "除非", "只要", "若")
)
_ZH_NOT_CONDITION = re.compile(_words("若干", "只要求"))
_EN_QUESTION_CUE = re.compile(
    r"\bwhether\b|\b(?:ask|asks|asked|asking|wonder|wonders|wondered|inquire|inquired|enquired)"
    r"\b[^.?!]*?\bif\b",
    re.IGNORECASE,
)
_ZH_QUESTION_CUE = re.compile(
    _words("是否", "有没有", "是不是", "请问", "询问", "想知道", "打听", "问")
)
_ZH_NOT_QUESTION = re.compile(_words("问题", "顾问", "访问", "学问", "疑问", "问候"))
_ASKING = re.compile(
    r"(?:问|询问|请问|想知道|\bask(?:s|ed|ing)?\b|\bwonder(?:s|ed)?\b|\binquir(?:e|es|ed)\b)"
    r"[^“”\"「」『』]{0,12}\Z",
    re.IGNORECASE,
)
_EN_QUESTION_SENTENCE = re.compile(
    r"\A[\s\"“'‘(]*(?:" + _words("is", "are", "was", "were", "do", "does", "did", "has", "have",
                                 "had", "can", "could", "will", "would", "should", "shall",
                                 "may", "might", "who", "what", "when", "where", "why", "how",
                                 "which") + r")\b",
    re.IGNORECASE,
)  # fmt: skip
_QUOTES = {"“": "”", "「": "」", "『": "』"}
_LATIN_WORD = re.compile(r"[A-Za-z0-9$%]+")

_WINDOW = 160
"""How far around a mention its clause is read for cues: a negation or a hedge further away in
one long clause governs something else (and a bounded window keeps a reply of any length
linear to grade)."""

Reach = Literal["clause", "near"]
"""How far before a mention a negation governs it: anywhere in its clause (a required point:
counting more denials is the safe side), or at most three words or four CJK characters away (a
forbidden point: "not an attack", "不是毛利率上升"; a negation further back denies something
else, and taking it for this one would pass a forbidden claim)."""
_NEAR_WORDS, _NEAR_CJK = 3, 4
_MODIFIER = re.compile(r"[\u4e00-\u9fff]{0,4}的")
"""A negation that closes a short modifier ("未休完的年假", "没有发票的订单") negates that
modifier, not what follows the noun it modifies."""


@lru_cache(maxsize=32)
def _quote_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of the inside of each pair of quotation marks, in order."""
    spans: list[tuple[int, int]] = []
    for opener, closer in _QUOTES.items():
        i = text.find(opener)
        while i >= 0:
            j = text.find(closer, i + 1)
            if j < 0:
                break
            spans.append((i + 1, j))
            i = text.find(opener, j + 1)
    straight = [i for i, ch in enumerate(text) if ch in '"＂']
    spans += [(a + 1, b) for a, b in zip(straight[::2], straight[1::2], strict=False)]
    return tuple(sorted(spans))


def _cues(text: str, cue: re.Pattern[str], not_cue: re.Pattern[str]) -> list[re.Match[str]]:
    """Matches of `cue` in `text` that are not inside a match of `not_cue`."""
    blocked = [(m.start(), m.end()) for m in not_cue.finditer(text)]
    return [m for m in cue.finditer(text) if not any(a <= m.start() < b for a, b in blocked)]


def _within(gap: str, reach: Reach) -> bool:
    """Whether the text between a negation and a mention is short enough for the negation to
    govern the mention itself (see `Reach`)."""
    if reach == "clause":
        return True
    return len(_LATIN_WORD.findall(gap)) <= _NEAR_WORDS and len(CJK_CHAR.findall(gap)) <= _NEAR_CJK


def _negations(before: str, reach: Reach) -> list[str]:
    found = _cues(before, _EN_NEGATION, _EN_NOT_NEGATION)
    found += _cues(before, _ZH_NEGATION, _ZH_NOT_NEGATION)
    found = [
        m
        for m in found
        if _within(before[m.end() :], reach) and not _MODIFIER.match(before, m.end())
    ]
    return [m.group() for m in sorted(found, key=lambda m: m.start())]


def _last_char(text: str, start: int, end: int, skip: str = "") -> str:
    """The last character of text[start:end] that is not a space nor in `skip` ("" if none)."""
    i = end - 1
    while i >= start and (text[i].isspace() or text[i] in skip):
        i -= 1
    return text[i] if i >= start else ""


def _question(text: str, clause: Clause, before: str) -> str:
    """The cue that makes the clause's mention a question, or ""."""
    tail = _last_char(text, clause.start, clause.end)
    if tail in ("?", "？"):
        return tail
    if _last_char(text, clause.start, clause.end, skip="。，,；;！!…") == "吗":
        return "吗"
    head = text[clause.sentence_start : clause.sentence_start + 40]
    last = _last_char(text, clause.sentence_start, clause.sentence_end)
    if last == "?" and _EN_QUESTION_SENTENCE.match(head):
        return "?"
    cue = _EN_QUESTION_CUE.search(before)
    if cue:
        return cue.group()
    zh = _cues(before, _ZH_QUESTION_CUE, _ZH_NOT_QUESTION)
    return zh[0].group() if zh else ""


def _hedge(text: str, clause: Clause, start: int, end: int) -> str:
    words = text[max(clause.start, start - _WINDOW) : min(clause.end, end + _WINDOW)]
    m = _EN_HEDGE.search(words) or _ZH_HEDGE.search(words)
    if m:
        return m.group()
    first = clause_at(text, clause.sentence_start)
    if first is not None and first is not clause:
        lead = text[first.start : first.end].strip(" ，,:：;；")
        m = _EN_HEDGE.fullmatch(lead) or _ZH_HEDGE.fullmatch(lead)
        if m:
            return m.group()
    return ""


def _in_quote(text: str, start: int, end: int) -> Mention | None:
    spans = _quote_spans(text)
    i = bisect_right(spans, (start, len(text) + 1))
    for a, b in spans[max(0, i - 3) : i]:
        if a <= start and end <= b:
            inside = text[a:b]
            asked = (
                inside.rstrip().endswith(("?", "？", "吗", "呢")) or "？" in inside or "?" in inside
            )
            if asked or _ASKING.search(text[max(0, a - 16) : a - 1]):
                return Mention(start, end, "quoted_question", text[a - 1 : b + 1], inside)
            return Mention(start, end, "quoted", text[a - 1 : b + 1], inside)
    return None


def stance(text: str, start: int, end: int, *, reach: Reach = "clause") -> Mention:
    """The stance of the mention text[start:end] (see the module docstring)."""
    quoted = _in_quote(text, start, end)
    if quoted is not None:
        return quoted
    clause = clause_at(text, start)
    if clause is None:
        return Mention(start, end, "asserted", "", text[start:end])
    words = text[max(clause.start, start - _WINDOW) : min(clause.end, end + _WINDOW)].strip()
    before = text[max(clause.start, start - _WINDOW) : start]
    cue = _question(text, clause, before)
    if cue:
        return Mention(start, end, "question", cue, words)
    condition = _cues(before, _EN_CONDITION, _EN_NOT_NEGATION) + _cues(
        before, _ZH_CONDITION, _ZH_NOT_CONDITION
    )
    if condition:
        return Mention(start, end, "conditional", condition[0].group(), words)
    negations = _negations(before, reach)
    if not negations:
        after = text[end : min(clause.end, end + _WINDOW)]
        undone = _UNDONE_AFTER.match(after) if reach == "clause" else None
        denial = _DENIAL_AFTER.search(after) or undone
        negations = [denial.group().strip()] if denial else []
    if len(negations) >= 2:
        return Mention(start, end, "double_negation", " … ".join(negations), words)
    if negations:
        return Mention(start, end, "negated", negations[0], words)
    hedge = _hedge(text, clause, start, end)
    if hedge:
        return Mention(start, end, "hedged", hedge, words)
    return Mention(start, end, "asserted", "", words)
