"""What a number is said of (metric, role in a change, direction), and when a reply's number is
not the material's: `proctor.extract.attachment` and `proctor.extract.metric_terms`."""

from __future__ import annotations

import pytest

from proctor.extract.attachment import attachment, conflict, placement
from proctor.extract.metric_terms import metric_terms, same_metric
from proctor.extract.phrases import stated

# text, the number, its metric word ("" none), role, direction
READINGS = [
    ("营收 1.2 亿元，同比增长 18%，增长主要来自续约。", "18%", "营收", "by", "up"),
    ("毛利率从 41% 降到 38%，原因是服务器成本上涨。", "38%", "毛利率", "to", "down"),
    ("毛利率从 41% 降到 38%。", "41%", "毛利率", "from", "down"),
    ("毛利率同比增长 18% 至 38%。", "18%", "毛利率", "by", "up"),
    ("毛利率同比增长 18% 至 38%。", "38%", "毛利率", "to", "up"),
    ("毛利率因服务器成本上涨降到 38%。", "38%", "毛利率", "to", "down"),
    ("退货率由 3% 变为 5%。", "3%", "退货率", "from", "up"),
    ("退货率由 3% 变为 5%。", "5%", "退货率", "to", "up"),
    ("新增注册用户 8.6 万，环比增长 12%；付费转化率为 4.2%。", "12%", "注册用户", "by", "up"),
    ("新增注册用户 8.6 万，环比增长 12%；付费转化率为 4.2%。", "4.2%", "转化率", "level", ""),
    ("三月退货率降到 3%，客服平均 2 小时内响应。", "2 小时", "", "level", ""),
    ("Revenue grew 12% year on year to $4.5 million.", "12%", "revenue", "by", "up"),
    ("Revenue grew 12% year on year to $4.5 million.", "$4.5 million", "revenue", "to", "up"),
    ("A 12% rise in revenue took sales to $4.5 million.", "12%", "revenue", "by", "up"),
    ("12% revenue growth this quarter.", "12%", "revenue", "by", "up"),
    ("The team closed 1,240 tickets in May, 15% more than in April.", "15%", "tickets", "by", "up"),
    ("The return rate went from 3% to 5% in March.", "3%", "return rate", "from", "up"),
    ("Customer churn stayed at 3%.", "3%", "churn", "level", "flat"),
    ("The Basic plan will cost $10 a month (up from $8).", "$10", "Basic plan", "level", ""),
    ("The Basic plan will cost $10 a month (up from $8).", "$8", "Basic plan", "from", "up"),
    ("The plan will cost $15 per user.", "$15", "", "level", ""),
    ("The Basic plan costs ten dollars a month.", "ten dollars", "Basic plan", "level", ""),
    ("企业版套餐由每月 99 元上调至 129 元。", "99 元", "企业版", "from", "up"),
    ("企业版套餐由每月 99 元上调至 129 元。", "129 元", "企业版", "to", "up"),
    ("Checkout was down 47 minutes after a config change.", "47 minutes", "", "level", ""),
    ("Revenue rose 12% and gross margin 41%.", "41%", "gross margin", "level", ""),
    # signs, 为 after a change verb, a past value with a present one, a gap that names a metric
    ("营收 1.2 亿元（同比 +18%）。", "+18%", "营收", "by", "up"),
    ("Q3 revenue: $4.5 million (+12% YoY).", "+12%", "revenue", "by", "up"),
    ("响应时间缩短为2小时。", "2小时", "响应时间", "to", "down"),
    ("增幅为18%。", "18%", "", "by", "up"),
    ("Basic was $10 and is now $8.", "$10", "", "from", "down"),
    ("2025年起年假为15天（原10天）。", "10天", "", "from", ""),
    ("2025年起年假为15天（原10天）。", "15天", "", "level", ""),
    ("Churn was 3% in March.", "3%", "churn", "level", ""),
    (
        "Revenue grew 12% to $4.5 million while margins narrowed to 41%.",
        "41%",
        "margins",
        "to",
        "down",
    ),
    ("Revenue grew 12% to $4.5 million while margins eroded to 41%.", "41%", "margins", "to", ""),
    ("Gross margin was 41%, previously 44%.", "44%", "gross margin", "from", ""),
    ("Churn held at 3% despite a rise in prices.", "3%", "churn", "level", "flat"),
    ("a 12% year-on-year increase in revenue", "12%", "revenue", "by", "up"),
]


@pytest.mark.parametrize(("text", "number", "metric", "role", "direction"), READINGS)
def test_how_a_number_stands(
    text: str, number: str, metric: str, role: str, direction: str
) -> None:
    (q,) = stated(number)
    start = text.index(number)
    got = attachment(text, start, start + len(number), q)
    assert got is not None
    assert (got.metric.word if got.metric else "", got.role, got.direction) == (
        metric.casefold(),
        role,
        direction,
    )


def test_no_number_in_the_span_is_no_reading() -> None:
    (q,) = stated("18%")
    assert attachment("营收增长", 0, 4, q) is None


def test_respectively_leaves_the_metric_open() -> None:
    text = "Revenue and gross margin reached $4.5 million and 41% respectively."
    (q,) = stated("41%")
    got = attachment(text, text.index("41%"), text.index("41%") + 3, q)
    assert got is not None and got.metric is None and "respectively" in got.ambiguous


MATERIAL = "2024 年第二季度，公司营收 1.2 亿元，同比增长 18%。毛利率从 41% 降到 38%。"


@pytest.mark.parametrize(
    ("reply", "phrase", "placed", "says"),
    [
        # must not stand as the material's number
        ("毛利率同比增长 18%。", "18%", "misplaced", "said of '毛利率'"),
        ("净利润增长 18%。", "18%", "misplaced", "said of '净利润'"),
        ("营收下降 18%。", "18%", "misplaced", "a fall, where the material has a rise"),
        ("毛利率升至 38%。", "38%", "misplaced", "a rise, where the material has a fall"),
        ("毛利率由 38% 升到 41%。", "38%", "misplaced", "the value it changed from"),
        ("毛利率下降 38%。", "38%", "misplaced", "the size of a change"),
        ("毛利率和净利润均增长 18%。", "18%", "misplaced", "said of '净利润'"),
        ("营收和毛利率分别为 1.2 亿元和 38%。", "38%", "unclear", "分别"),
        # stands as there, or the reply leaves it unsaid
        ("收入同比增长 18%。", "18%", "attached", ""),
        ("营收 1.2 亿元，增长 18%。", "18%", "attached", ""),
        ("增长 18%。", "18%", "attached", ""),
        ("毛利率为 38%。", "38%", "attached", ""),
        ("毛利率由 41% 降至 38%。", "38%", "attached", ""),
        ("营收和利润均同比增长 18%。", "18%", "attached", ""),
        ("收入、利润和用户数都增长了 18%。", "18%", "attached", ""),
        ("营收增长 18%，毛利率降到 38%。", "38%", "attached", ""),
        # nothing to check: a phrase without one number, a date, a number the material lacks
        ("毛利率下降。", "下降", "attached", ""),
        ("营收增长 25%。", "25%", "attached", ""),
    ],
)
def test_placement_against_the_material(reply: str, phrase: str, placed: str, says: str) -> None:
    spans = [(reply.index(n.text), reply.index(n.text) + len(n.text)) for n in stated(phrase)]
    start, end = spans[0] if spans else (0, len(reply))
    kind, why = placement(reply, start, end, phrase, MATERIAL)
    assert kind == placed, why
    assert says in why


def test_a_date_is_not_placed() -> None:
    material = "The Basic plan rises to $10. Customers keep the old price until 30 June."
    reply = "Existing customers pay the old price until 30 June."
    at = reply.index("30")
    assert placement(reply, at, at + 7, "30 June", material) == ("attached", "")


def test_without_material_nothing_is_placed() -> None:
    assert placement("毛利率下降 18%。", 6, 9, "18%", "") == ("attached", "")


def test_conflict_names_metric_before_role_and_direction() -> None:
    (q,) = stated("18%")
    a = attachment("营收同比增长 18%", 7, 10, q)
    b = attachment("毛利率同比下降 18%", 7, 10, q)
    assert a is not None and b is not None
    assert "said of '毛利率'" in conflict(a, b)
    assert conflict(a, a) == ""


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("营收", "收入", True),
        ("营收", "revenue", True),
        ("revenue", "sales", True),
        ("margin", "gross margin", True),
        ("用户", "注册用户", True),
        ("利润", "净利润", True),
        ("returns", "return rate", True),
        ("毛利", "毛利率", False),
        ("毛利率", "净利率", False),
        ("gross margin", "net margin", False),
        ("营收", "毛利率", False),
        ("tickets", "customer satisfaction", False),
        ("the Basic plan", "Basic plan", True),
        ("the Basic plan", "the Pro plan", False),
        ("企业版", "个人版", False),
        ("而企业版", "企业版", True),
        ("退货率", "退款率", False),
    ],
)
def test_same_metric(a: str, b: str, same: bool) -> None:
    (x,) = metric_terms(a)
    (y,) = metric_terms(b)
    assert same_metric(x, y) is same


def test_metric_look_alikes_are_no_metric() -> None:
    assert [t.word for t in metric_terms("The plan will cost $10 in order to grow.")] == []
    assert [t.word for t in metric_terms("$15 per user, $2 a ticket, 每用户 5 元")] == []
    assert [t.word for t in metric_terms("4.0 版本上线，新版本")] == []
    assert [t.word for t in metric_terms("毛利率因服务器成本上涨降到 38%")] == ["毛利率"]
