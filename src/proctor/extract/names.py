"""Names a reply gives that its sources do not: the "invented fact" of a refusal.

Decisions, stated once:
- English: a run of capitalised words ("Lars Nilsen", "Erik Berg", "April") is a name, unless
  every word of it is in the sources (material, question, allowed — compared case-folded) or in
  `COMMON_WORDS` (words that are capitalised because they start a sentence or are ours: "The",
  "Unfortunately", "Material"…). A single capitalised word at the start of a sentence counts
  only when a verb that names a role follows it ("Priya heads it", "Kari is the head").
- Chinese: a person's name after 是/为/由/叫/名叫/名为 or after a role (客服, 主管, 收件人…) — a
  common surname and one or two more characters ("店长是陈静", "客服李强已登记") — and an
  institution ending in 大学/学院/公司/集团/银行/医院/研究院
  ("浙江大学"; its name starts after the last particle or verb before it, so "哪所大学" and
  "加入公司" are no names), unless the sources hold it.
- An answer (`answers`): a clause that says what a who/what question asks about is — English
  "the head is the Y" for "Who is the head…?", Chinese "店长是Y" for "店长是谁？" — with a word
  the sources do not hold: "the head is the Nordic sales director" invents a role.
- A guess (`guesses`): a clause that speculates — 可能/估计/大概/也许/或许/应该/一般/通常/推测 or
  probably/likely/might/perhaps/possibly/presumably/typically/usually/I'd guess — outside the
  clause that refuses, unless the clause gives advice (咨询, 联系, 建议, ask, contact, check
  with…: "可能需要咨询经销商" invents nothing). "可能是X" names X as a guessed answer unless X is
  a reason (因为/由于…).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from proctor.extract.sentences import clauses, sentence_spans

_COMMON = """
    the a an this that these those it its it's i i'm i'd i'll we you they he she there here
    not no none nothing nobody neither unfortunately sorry however based according as per in on
    at for from to of and but or so yes also only just note please thank thanks answer question
    material materials text document passage source sources information info data context
    details report article paragraph above below given provided therefore hence thus while
    although though since because if when where who whom whose what which why how can cannot
    could would should will may might must do does did is are was were be been has have had
    unknown n/a na none ok okay sure well hi hello dear regards best my our your their his her
    there's that's there're let let's see
    hr ceo cto cfo coo it pr legal finance sales support team department office staff manager
    section chapter page table appendix figure part annex item q&a faq
    room flight order invoice ticket seat gate floor building level platform terminal booking
    ref number id code version update tracking estimated delivery
    """
COMMON_WORDS = frozenset(_COMMON.split())
"""Capitalised words that are not names (compared case-folded): sentence starters, words about
the material itself, roles and departments ("ask HR", "the CEO"), parts of a document."""

_ROLE_VERBS = re.compile(
    r"\s+(?:is|was|heads|headed|leads|led|runs|ran|manages|managed|owns|oversees|directs|"
    r"chairs|founded|will|has|had)\b"
)
_NAME_RUN = re.compile(
    r"\b[A-Z][A-Za-z]*(?:['’-][A-Za-z]+)?(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?[A-Z][A-Za-z]*"
    r"(?:['’-][A-Za-z]+)?)*\b"
)
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武"
    "戴莫孔向汤"
)
_HAN = r"\u4e00-\u9fff"
"""Han characters only: Chinese names and institutions are written in them."""
_ZH_PERSON = re.compile(
    rf"(?:是|为|由|叫|名叫|名为|姓)([{_SURNAMES}][{_HAN}]{{1,2}}?)(?=[^{_HAN}]|$|女士|先生|老师|经理|负责|担任|，)"
)
_ZH_ROLE_PERSON = re.compile(
    rf"(?:客服|客户|主管|经理|总监|主任|收件人|寄件人|联系人|负责人|员工|同事|老师|顾客|用户|专员|"
    rf"店长|组长|工程师|律师|医生|代表)([{_SURNAMES}][{_HAN}]{{1,2}}?)"
    rf"(?=[^{_HAN}]|$|女士|先生|老师|已|来|说|表示|接待|处理|负责|称|在|于|和|与|及|的|，)"
)
_ZH_INSTITUTION = re.compile(rf"([{_HAN}]{{1,8}})(大学|学院|公司|集团|银行|医院|研究院|研究所)")
_ZH_NAME_STOP = re.compile(r".*[的于在是了所哪某这那家从到和与及年入为由去回读业自能该许概计]")
_GUESS = re.compile(
    r"可能|估计|大概|也许|或许|应该|一般|通常|推测|猜测|多半|恐怕|"
    r"\b(?:probably|likely|might|perhaps|possibly|presumably|typically|usually|generally|"
    r"normally|may be|could be|i'd guess|i guess|i would guess|my guess|i think|i believe|"
    r"chances are)\b",
    re.IGNORECASE,
)
_ADVICE = re.compile(
    r"咨询|联系|询问|建议|查阅|查看|参考|参阅|核实|确认|为准|看.{0,6}规定|请"
    r"|\b(?:ask|contact|check with|consult|refer to|call|reach out|verify|confirm)\b",
    re.IGNORECASE,
)
_ZH_GUESSED = re.compile(
    rf"(?:可能|估计|大概|也许|或许|应该|多半|推测|猜测)(?:会)?(?:是|为|在)([{_HAN}A-Za-z0-9·]{{2,12}})"
)
_REASON = ("因为", "由于", "出于", "需要", "要", "会", "没有", "未", "不")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True)
class Found:
    """A name or a guess found in a reply: the text as written and where."""

    text: str
    start: int


def _known(words: str, sources: str) -> bool:
    return all(w in COMMON_WORDS or w in sources for w in _fold(words).split())


def _sentence_starts(text: str) -> set[int]:
    starts = {a for a, _ in sentence_spans(text)}
    starts |= {
        c.start + len(text[c.start : c.end]) - len(text[c.start : c.end].lstrip())
        for c in clauses(text)
    }
    return starts


def english_names(text: str, sources: str) -> list[Found]:
    """Runs of capitalised words in `text` that `sources` does not hold (see the docstring)."""
    folded_sources = _fold(sources)
    starts = _sentence_starts(text)
    found: list[Found] = []
    for m in _NAME_RUN.finditer(text):
        words = m.group().split()
        if m.start() in starts and len(words) == 1 and not _ROLE_VERBS.match(text, m.end()):
            continue
        while words and words[0].casefold() in COMMON_WORDS:
            words.pop(0)
        while words and words[-1].casefold() in COMMON_WORDS:
            words.pop()
        name = " ".join(words)
        if name and not _known(name, folded_sources):
            found.append(Found(name, m.end() - len(m.group()) + m.group().find(words[0])))
    return found


def chinese_names(text: str, sources: str) -> list[Found]:
    """Chinese person names and institutions in `text` that `sources` does not hold."""
    folded_sources = _fold(sources)
    found: list[Found] = []
    for pattern in (_ZH_PERSON, _ZH_ROLE_PERSON):
        for m in pattern.finditer(text):
            if _fold(m.group(1)) not in folded_sources:
                found.append(Found(m.group(1), m.start(1)))
    for m in _ZH_INSTITUTION.finditer(text):
        prefix = _ZH_NAME_STOP.sub("", m.group(1))
        name = prefix + m.group(2)
        if len(prefix) >= 2 and _fold(name) not in folded_sources:
            found.append(Found(name, m.end() - len(name)))
    return found


def names_in(text: str) -> list[Found]:
    """Every name `text` gives (English or Chinese), in order: the entities of a material."""
    return invented_names(text, ())


def invented_names(text: str, sources: Iterable[str]) -> list[Found]:
    """Names (English or Chinese) in `text` that none of `sources` holds, in order."""
    joined = "\n".join(sources)
    found = english_names(text, joined) + chinese_names(text, joined)
    unique = {f.text: f for f in sorted(found, key=lambda f: f.start)}
    return sorted(unique.values(), key=lambda f: f.start)


def guesses(text: str, refusal: tuple[int, int] | None) -> list[tuple[Found, str]]:
    """Clauses of `text` that speculate, outside the clause holding `refusal` (a span): each as
    (the guess word, the guessed answer after "可能是" when there is one, else "")."""
    found: list[tuple[Found, str]] = []
    for clause in clauses(text):
        if refusal is not None and clause.start <= refusal[0] < clause.end:
            continue
        words = text[clause.start : clause.end]
        m = _GUESS.search(words)
        if m is None or _ADVICE.search(words):
            continue
        answer = ""
        g = _ZH_GUESSED.search(words)
        if g is not None and not g.group(1).startswith(_REASON):
            answer = g.group(1)
        found.append((Found(m.group(), clause.start + m.start()), answer))
    return found


_EN_ANSWER = re.compile(
    r"\b(?P<subject>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,3})\s+(?:is|was|are|were|will be)\s+"
    r"(?:probably\s+|likely\s+|most likely\s+|presumably\s+|actually\s+)?"
    r"(?P<answer>(?:the|a|an|our|their|its)\s+[^,;.!?]{2,60})",
    re.IGNORECASE,
)
_ZH_ANSWER = re.compile(
    rf"(?P<subject>[{_HAN}]{{2,8}})(?:应该|可能|大概)?(?:是|为)(?P<answer>[{_HAN}]{{2,12}})"
)
_EN_TARGET = re.compile(
    r"\b(?:who|what|which)\s+(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+)?([a-z][\w-]*)",
    re.IGNORECASE,
)
_ZH_TARGET = re.compile(rf"([{_HAN}]{{2}})(?:是谁|是什么|是哪|叫什么)")


def _target(question: str) -> str:
    """The word a who/what question asks about ("head" in "Who is the head of…?", "店长" in
    "新门店的店长是谁？"), or "" when it has none."""
    m = _EN_TARGET.search(question) or _ZH_TARGET.search(question)
    return m.group(1).casefold() if m else ""


def answers(text: str, question: str, sources: str, refusal: tuple[int, int] | None) -> list[Found]:
    """Answers `text` gives to `question` outside the clause holding `refusal`: a clause that
    says what the question asks about is ("the head is the Nordic sales director", "店长是销售
    总监") in words that `sources` does not hold."""
    target = _target(question)
    if not target:
        return []
    known = _fold(sources)
    found: list[Found] = []
    for clause in clauses(text):
        if refusal is not None and clause.start <= refusal[0] < clause.end:
            continue
        words = text[clause.start : clause.end]
        for m in (*_EN_ANSWER.finditer(words), *_ZH_ANSWER.finditer(words)):
            subject = m.group("subject").casefold()
            if not (subject.endswith(target) or target in subject.split()):
                continue
            answer = m.group("answer").strip()
            if not _known(answer, known) and _fold(answer) not in known:
                found.append(Found(answer, clause.start + m.start("answer")))
    return found
