"""The metric a number is said of ("营收", "gross margin", "退货率"), in Chinese or English.

A summary that puts the right number on the wrong metric ("毛利率同比增长 18%" where the
material's 18% is revenue growth) has not made the point. This module knows the metric words
(`GROUPS`: each group's words name one metric, so "营收", "收入", "revenue" and "sales" are the
same) and any Chinese word ending in 率 or English word before "rate" ("退货率", "return rate").
Two metric words are the same metric when they share a group or the longer ends with the shorter
("margin" and "gross margin", "用户" and "注册用户", "利润" and "净利润", but not "毛利" and
"毛利率"); otherwise they are different. A named subject is a metric word of its own: a
capitalised name before plan, tier, edition, product, model, region, store or line ("the Basic
plan", "Pro tier"), or a Chinese word before 版 or 套餐 ("企业版", "个人版"); so "the Pro plan
rises to $10" is not the Basic plan's rise. Not metric words: "cost" right before an amount (a
verb: "will cost $10", "costs ten dollars"), "order" in "in order to", a word after "per" or
"a" ("$15 per user"), and one right after a cause ("因服务器成本上涨"). A word this module does
not know names no metric: a number said of it is not checked (the lenient side).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

GROUPS: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "sales", "turnover", "top line", "net sales", "营收",
                "收入", "营业收入", "销售收入", "总收入", "销售额", "营业额"),
    "gross margin": ("gross margin", "毛利率"),
    "net margin": ("net margin", "profit margin", "净利率", "净利润率"),
    "operating margin": ("operating margin", "营业利润率", "经营利润率"),
    "profit": ("profit", "net profit", "net income", "earnings", "利润", "净利润", "净利",
               "盈利"),
    "gross profit": ("gross profit", "毛利", "毛利润"),
    "cost": ("cost", "expense", "spending", "成本", "费用", "支出", "开支"),
    "price": ("price", "价格", "售价", "单价"),
    "users": ("user", "registered user", "active user", "用户", "注册用户", "活跃用户",
              "新用户"),
    "customers": ("customer", "client", "客户"),
    "orders": ("order", "订单"),
    "tickets": ("ticket", "工单"),
    "churn": ("churn", "churn rate", "流失率"),
    "conversion": ("conversion", "conversion rate", "转化率"),
    "retention": ("retention", "retention rate", "留存率"),
    "returns": ("return rate", "returns", "退货率"),
    "refunds": ("refund rate", "退款率"),
    "satisfaction": ("satisfaction", "customer satisfaction", "csat", "满意度"),
    "response time": ("response time", "first response time", "响应时间", "响应时长"),
    "resolution time": ("resolution time", "解决时间", "处理时长"),
    "headcount": ("headcount", "employee", "staff", "员工", "员工数", "人数"),
    "market share": ("market share", "市场份额", "份额"),
    "traffic": ("traffic", "visit", "visitor", "访问量", "流量"),
    "downloads": ("download", "下载量"),
    "units": ("units sold", "shipment", "销量", "出货量"),
    "inventory": ("inventory", "库存"),
    "defects": ("defect", "bug", "缺陷"),
    "budget": ("budget", "预算"),
    "margin": ("margin",),
}  # fmt: skip
"""Words that name one metric, English in the singular (a plural "s" is read too)."""

_KEY = {word: key for key, words in GROUPS.items() for word in words}
_LATIN = sorted((w for w in _KEY if w.isascii()), key=len, reverse=True)
_CJK = sorted((w for w in _KEY if not w.isascii()), key=len, reverse=True)
_TERM = re.compile(
    r"(?i)\b(?P<en>" + "|".join(re.escape(w) for w in _LATIN) + r")s?\b"
    r"|\b(?P<rate>[a-z]+ rate)s?\b"
    r"|(?P<zh>" + "|".join(_CJK) + r"|[\u4e00-\u9fff]{2}率)"
)
_CAUSE = re.compile(r"(?i)(?:因为|因|由于|受|随着|\bdue to|\bbecause of|\bdriven by)\s*\S{0,8}\Z")
"""A metric word right after a cause ("毛利率因服务器成本上涨降到 38%") is the cause, not what
the number is said of."""

_NOT_METRIC = re.compile(
    r"(?i)costs?\s*(?:[$€£¥]|\d|(?:about|around|only|just|nearly|roughly|over|under|less|more"
    r"|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|hundred)\b)|order\s+to\b"
)
_PER = re.compile(r"(?i)(?:\bper|\ba|\ban|\beach|\bevery|/|每)\s*\Z")
"""A metric word after "per" or "a" ("$15 per user", "$2 a ticket", "每用户") is a unit of the
amount before it, not what the amount is said of."""
_NAMED = re.compile(
    r"\b(?!(?:The|This|That|These|Those|Our|Your|Their|Its|His|Her|Each|Every|A|An|Any|No|New"
    r"|Old|Current|Existing|Same|Other|Both|All)\b)[A-Z][\w-]*\s+"
    r"(?:plan|tier|edition|package|subscription|product|model|region|store|line)\b"
    r"|[\u4e00-\u9fff]{2,4}?(?:版|套餐)(?!本)"
)
"""A named subject ("the Basic plan", "Pro tier", "West region"): what a number is said of when
the text names several of them; a lowercase or bare name ("the plan", "Basic") names none."""


@dataclass(frozen=True)
class Term:
    """A metric word of a text: where it stands and its metric (`key`)."""

    start: int
    end: int
    word: str
    key: str


@lru_cache(maxsize=32)
def metric_terms(text: str) -> tuple[Term, ...]:
    """Every metric word of `text`, left to right, those right after a cause left out."""
    named = [Term(m.start(), m.end(), m.group().casefold(), m.group().casefold())
             for m in _NAMED.finditer(text)]  # fmt: skip
    found: list[Term] = list(named)
    for m in _TERM.finditer(text):
        if any(n.start <= m.start() < n.end for n in named):
            continue
        word = m.group().casefold()
        bare = m.group("en") or m.group("rate") or m.group("zh")
        key = _KEY.get(bare.casefold(), bare.casefold())
        lead = text[max(0, m.start() - 12) : m.start()]
        if _CAUSE.search(lead) or _PER.search(lead) or _NOT_METRIC.match(text, m.start()):
            continue
        found.append(Term(m.start(), m.end(), word, key))
    return tuple(sorted(found, key=lambda t: t.start))


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and word.isascii() else word


def _ends_with(longer: str, shorter: str) -> bool:
    if not longer.endswith(shorter):
        return False
    rest = longer[: len(longer) - len(shorter)]
    return not shorter.isascii() or not rest or rest.endswith(" ")


def same_metric(a: Term, b: Term) -> bool:
    """Whether `a` and `b` name one metric (see the module docstring)."""
    if a.key == b.key:
        return True
    x, y = _stem(a.word), _stem(b.word)
    return _ends_with(x, y) or _ends_with(y, x)
