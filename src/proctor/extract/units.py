"""The table of units and scale words the number readers know (the free-text reader and the maths
graders): canonical units, their dimension and their exact factor to the
dimension's base unit, every spelling (English, Chinese, LaTeX) that names them, and the scale
words that multiply a number. There is no other table of units or scale words in proctor.

Decisions, stated once:
- Units convert only within a dimension and only by an exact factor (t = 1000 kg, 1 week = 7 days,
  1 inch = 2.54 cm, 1 US gallon = 231 cubic inches, 1 mL = 1 cm³; 万 is a scale, not a unit).
  Dimensions with no fixed factor between them never convert: days ↔ months (a month has no
  fixed length), °C ↔ °F (not a factor), currencies (no rate).
- Area and volume: "square X", "sq X", "X²", "X^2", "平方X" of every length unit X is its square
  ("sq ft", "\\mbox{ inches}^2", "cm^2", "平方米"), and "cubic X", "cu X", "X³", "X^3", "立方X" its
  cube; litres are volumes (1 L = 1000 cm³), so "12 cm³" and "12 mL" are one quantity.
- Gallons, quarts, pints, cups, fluid ounces, tablespoons and teaspoons are US customary (the
  measures of GSM8K and MATH); an imperial gallon must say "imperial".
- Money: "$" and "dollars" are US dollars unless another country's mark is written (C$, A$,
  HK$, S$, NT$); "sterling" alone is no currency (sterling silver: "pounds sterling" is);
  "¥"/"￥", "元", "块钱" and "人民币" are Chinese yuan (a Japanese amount must write
  円, 日元, JPY or yen); "cents" and "¢" are US cents (1/100 dollar, the same currency).
- Ambiguous spellings carry every meaning (`readings`): "ton(s)" (short 907.18474 kg, long
  1016.0469088 kg, or a loose metric tonne), "pound(s)" (lb or GBP), "oz"/"ounce(s)" (mass or
  fluid ounce), "度"/"degrees"/"°"/"^\\circ" (°C, °F or an angle), "块" (yuan or pieces).
  "metric ton(s)" and "tonne(s)" are the metric tonne, "fl oz" the fluid ounce, "lb" the pound
  of mass, "°C"/"^\\circ C" Celsius. A reader compares an ambiguous unit by the reading the other
  side names ("pounds" against "lb" is lb), by none when no reading fits, and calls it
  ambiguous when its readings there disagree ("tons" against "tonnes": `same_unit` is None).
- Two spellings are one unit when their dimension and factor agree ("mL" and "cm³"); count
  nouns are units but not units of measure (`measures`), so an unknown word beside them
  ("students" against "people") is no conflict.
- Letters that are words of prose are units only where the text marks them as one (`unit_named`:
  an item's unit, a maths answer's `\\text{in}` or "5 s"), never in running text: "in" (inch),
  "s" (second), "l" (litre), "pt" (pint). "m" after a number is metres, except glued to a money
  amount ("$5m": million, see the scales below); "min" after a number is minutes (the readers
  look for a unit only after a number, so "min(a, b)" is never one).
- Percent (%, percent, 百分之…) is a ratio of factor 1/100 and converts to a plain ratio;
  percentage points (pp, 个百分点) and basis points (1/100 pp) are a difference of percentages,
  their own dimension: "5 %" is not "5 percentage points".
- Count nouns (people, 人, cases, 例, vehicles, 辆…) are units of their own dimension
  ("count:people"), so "412,300 people" is a count of people, never of households.
- Symbols are matched case-sensitively (t, kg, Mt, m), words case-insensitively and only as
  whole words ("t" in "tonnes" is the word tonnes).
- Scale words (their table is `extract.scales`) multiply the number they follow (`SCALE_WORDS`,
  `CN_SCALES`…): hundred, thousand,
  million, billion, trillion, dozen; bn/mn/tn; "k" glued to digits; "m"/"b"/"T" glued to a money
  amount; 十百千万亿 and their compounds (十万, 万亿). "兆" alone is ambiguous (10⁶, the metric
  prefix of 兆瓦 and 兆字节, or 10¹², 万亿 in Taiwan and older usage): never read as either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

_F = Fraction


@dataclass(frozen=True)
class Unit:
    """A canonical unit: `key` is its one spelling ("t", "CNY", "percent"), `name` is for
    reasons, `factor` converts a value in this unit to the base unit of `dimension`."""

    key: str
    name: str
    dimension: str
    factor: Fraction = Fraction(1)
    readings: tuple[Unit, ...] = ()
    """The meanings of an ambiguous spelling ("tons", "pounds", "度"); empty for a plain unit."""

    @property
    def ambiguous(self) -> bool:
        return bool(self.readings)


def _u(key: str, name: str, dimension: str, factor: Fraction | int = 1) -> Unit:
    return Unit(key, name, dimension, _F(factor))


def _money(code: str, name: str) -> Unit:
    """A currency: its ISO code is its key and names its dimension (money of one currency is
    never converted to another's)."""
    return _u(code, name, f"money:{code}")


# --- canonical units ------------------------------------------------------------------------
KG = _u("kg", "kilogram", "mass")
TONNE = _u("t", "tonne", "mass", 1000)
SHORT_TON = _u("short ton", "short ton", "mass", _F(90718474, 10**5))
LONG_TON = _u("long ton", "long ton", "mass", _F(10160469088, 10**7))
POUND_MASS = _u("lb", "pound (mass)", "mass", _F(45359237, 10**8))
METRE = _u("m", "metre", "length")
INCH = _u("in", "inch", "length", _F(254, 10000))
SECOND = _u("s", "second", "time")
LITRE = _u("L", "litre", "volume", _F(1, 1000))
_US_GALLON = _F(231) * _F(254, 10000) ** 3  # 231 cubic inches, in cubic metres
PINT = _u("pt", "US pint", "volume", _US_GALLON / 8)
OUNCE_MASS = _u("oz", "ounce (mass)", "mass", _F(45359237, 10**8) / 16)
FLUID_OUNCE = _u("fl oz", "US fluid ounce", "volume", _US_GALLON / 128)
DEG_C = _u("degC", "degree Celsius", "temperature:C")
DEG_F = _u("degF", "degree Fahrenheit", "temperature:F")
DEG_ANGLE = _u("deg", "degree (angle)", "angle")
PERCENT = _u("percent", "percent", "ratio", _F(1, 100))
PERMILLE = _u("permille", "per mille", "ratio", _F(1, 1000))
POINT = _u("pp", "percentage point", "percentage points")
USD = _money("USD", "US dollar")
CNY = _money("CNY", "yuan")
EUR = _money("EUR", "euro")
GBP = _money("GBP", "pound sterling")
JPY = _money("JPY", "yen")
HKD = _money("HKD", "Hong Kong dollar")
CAD = _money("CAD", "Canadian dollar")
AUD = _money("AUD", "Australian dollar")
SGD = _money("SGD", "Singapore dollar")
TWD = _money("TWD", "New Taiwan dollar")
PIECES = _u("pieces", "pieces", "count:pieces")
MONTH = _u("month", "month", "calendar")

TONS = Unit("tons", "ton (short, long or metric)", "mass", _F(1), (SHORT_TON, LONG_TON, TONNE))
POUNDS = Unit("pounds", "pound (lb or GBP)", "mass", _F(1), (POUND_MASS, GBP))
DEGREES = Unit("degrees", "degree (°C, °F or angle)", "degree", _F(1), (DEG_C, DEG_F, DEG_ANGLE))
KUAI = Unit("kuai", "块 (yuan or pieces)", "money:CNY", _F(1), (CNY, PIECES))
OUNCES = Unit("ounces", "ounce (mass or fluid)", "mass", _F(1), (OUNCE_MASS, FLUID_OUNCE))

_DAY = 86400
_MARKED_ONLY: dict[str, Unit] = {"in": INCH, "s": SECOND, "l": LITRE, "pt": PINT}
"""Letters that are words of prose, units only where the text marks them as one (`unit_named`);
their squares and cubes ("sq in", "in²") are units everywhere."""
_CJK = re.compile(r"[\u3400-\u9fff]")


def is_cjk(ch: str) -> bool:
    return bool(_CJK.match(ch))


# (unit, symbols matched case-sensitively, words matched case-insensitively)
_Entry = tuple[Unit, tuple[str, ...], tuple[str, ...]]
_BASE_TABLE: tuple[_Entry, ...] = (
    # mass
    (
        TONNE,
        ("t", "公吨", "吨"),
        ("tonne", "tonnes", "metric ton", "metric tons", "metric tonne", "metric tonnes"),
    ),
    (_u("kt", "kilotonne", "mass", 10**6), ("kt",), ("kilotonne", "kilotonnes")),
    (_u("Mt", "megatonne", "mass", 10**9), ("Mt",), ("megatonne", "megatonnes")),
    (
        KG,
        ("kg", "kgs", "千克", "公斤"),
        ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
    ),
    (_u("g", "gram", "mass", _F(1, 1000)), ("g", "克"), ("gram", "grams", "gramme", "grammes")),
    (_u("mg", "milligram", "mass", _F(1, 10**6)), ("mg", "毫克"), ("milligram", "milligrams")),
    (_u("jin", "jin (500 g)", "mass", _F(1, 2)), ("斤",), ()),
    (POUND_MASS, ("lb", "lbs"), ()),
    (SHORT_TON, (), ("short ton", "short tons")),
    (LONG_TON, (), ("long ton", "long tons")),
    (TONS, (), ("ton", "tons")),
    (POUNDS, (), ("pound", "pounds")),
    (OUNCES, ("oz", "盎司"), ("ounce", "ounces")),
    # length
    (
        _u("km", "kilometre", "length", 1000),
        ("km", "公里", "千米"),
        ("kilometre", "kilometres", "kilometer", "kilometers"),
    ),
    (METRE, ("m", "米"), ("metre", "metres", "meter", "meters")),
    (
        _u("cm", "centimetre", "length", _F(1, 100)),
        ("cm", "厘米"),
        ("centimetre", "centimetres", "centimeter", "centimeters"),
    ),
    (
        _u("mm", "millimetre", "length", _F(1, 1000)),
        ("mm", "毫米"),
        ("millimetre", "millimetres", "millimeter", "millimeters"),
    ),
    (_u("mi", "mile", "length", _F(1609344, 1000)), ("mi", "英里"), ("mile", "miles")),
    (_u("yd", "yard", "length", _F(9144, 10000)), ("yd", "yds"), ("yard", "yards")),
    (_u("ft", "foot", "length", _F(3048, 10000)), ("ft", "英尺"), ("foot", "feet")),
    (INCH, ("英寸",), ("inch", "inches")),
    # area (the squares of the lengths are made below), volume (and the cubes)
    (_u("ha", "hectare", "area", 10**4), ("ha", "公顷"), ("hectare", "hectares")),
    (_u("acre", "acre", "area", _F(40468564224, 10**7)), ("英亩",), ("acre", "acres")),
    (
        LITRE,
        ("L", "公升"),
        ("litre", "litres", "liter", "liters"),
    ),
    (
        _u("mL", "millilitre", "volume", _F(1, 10**6)),
        ("mL", "ml", "毫升"),
        ("millilitre", "millilitres", "milliliter", "milliliters"),
    ),
    (_u("gal", "US gallon", "volume", _US_GALLON), ("gal", "加仑"), ("gallon", "gallons")),
    (
        _u("imp gal", "imperial gallon", "volume", _F(454609, 10**8)),
        (),
        ("imperial gallon", "imperial gallons"),
    ),
    (_u("qt", "US quart", "volume", _US_GALLON / 4), ("qt", "qts"), ("quart", "quarts")),
    (PINT, (), ("pint", "pints")),
    (_u("cup", "US cup", "volume", _US_GALLON / 16), (), ("cup", "cups")),
    (FLUID_OUNCE, ("fl oz", "fl. oz."), ("fluid ounce", "fluid ounces")),
    (
        _u("tbsp", "tablespoon", "volume", _US_GALLON / 256),
        ("tbsp", "Tbsp"),
        ("tablespoon", "tablespoons"),
    ),
    (
        _u("tsp", "teaspoon", "volume", _US_GALLON / 768),
        ("tsp",),
        ("teaspoon", "teaspoons"),
    ),
    # speed
    (
        _u("km/s", "kilometre per second", "speed", 1000),
        ("km/s", "公里/秒", "千米/秒", "公里每秒", "千米每秒"),
        ("kilometres per second", "kilometers per second"),
    ),
    (
        _u("m/s", "metre per second", "speed"),
        ("m/s", "米/秒", "米每秒"),
        ("metres per second", "meters per second"),
    ),
    (
        _u("km/h", "kilometre per hour", "speed", _F(5, 18)),
        ("km/h", "kph", "公里/小时", "千米/小时", "公里每小时"),
        ("kilometres per hour", "kilometers per hour"),
    ),
    (_u("mph", "mile per hour", "speed", _F(1609344, 3600000)), ("mph",), ("miles per hour",)),
    # time (exact factors) and calendar (months and years: no fixed length in days)
    (SECOND, ("sec", "secs", "秒", "秒钟"), ("second", "seconds")),
    (_u("min", "minute", "time", 60), ("min", "mins", "分钟"), ("minute", "minutes")),
    (
        _u("h", "hour", "time", 3600),
        ("h", "hr", "hrs", "小时", "个小时", "钟头", "个钟头"),
        ("hour", "hours"),
    ),
    (_u("day", "day", "time", _DAY), ("天",), ("day", "days")),
    (
        _u("week", "week", "time", 7 * _DAY),
        ("周", "星期", "个星期", "个礼拜", "礼拜"),
        ("week", "weeks"),
    ),
    (MONTH, ("个月",), ("month", "months")),
    (_u("quarter", "quarter (3 months)", "calendar", 3), ("个季度",), ()),
    (_u("year", "year", "calendar", 12), ("yr", "yrs", "年"), ("year", "years")),
    (
        _u("workday", "working day", "working days"),
        ("工作日", "个工作日"),
        ("working day", "working days", "business day", "business days"),
    ),
    (
        _u("tradingday", "trading day", "trading days"),
        ("交易日", "个交易日"),
        ("trading day", "trading days"),
    ),
    # temperature, angle
    (
        DEG_C,
        (
            "°C",
            "° C",
            "℃",
            "摄氏度",
            "^\\circ C",
            "^\\circ\\text{C}",
            "^{\\circ}C",
            "^{\\circ}\\text{C}",
        ),
        ("degrees celsius", "degree celsius", "degrees c", "celsius"),
    ),
    (
        DEG_F,
        (
            "°F",
            "° F",
            "℉",
            "华氏度",
            "^\\circ F",
            "^\\circ\\text{F}",
            "^{\\circ}F",
            "^{\\circ}\\text{F}",
        ),
        ("degrees fahrenheit", "degree fahrenheit", "degrees f", "fahrenheit"),
    ),
    (_u("K", "kelvin", "temperature:K"), (), ("kelvin", "kelvins")),
    (DEGREES, ("°", "度", "^\\circ", "^{\\circ}", "\\degree"), ("degree", "degrees")),
    # pressure, power, energy
    (_u("Pa", "pascal", "pressure"), ("Pa", "帕"), ("pascal", "pascals")),
    (_u("hPa", "hectopascal", "pressure", 100), ("hPa",), ()),
    (_u("kPa", "kilopascal", "pressure", 1000), ("kPa", "千帕"), ("kilopascal", "kilopascals")),
    (_u("MPa", "megapascal", "pressure", 10**6), ("MPa", "兆帕"), ("megapascal", "megapascals")),
    (_u("atm", "atmosphere", "pressure", 101325), ("atm",), ()),
    (_u("W", "watt", "power"), ("W", "瓦"), ("watt", "watts")),
    (_u("kW", "kilowatt", "power", 1000), ("kW", "千瓦"), ("kilowatt", "kilowatts")),
    (_u("MW", "megawatt", "power", 10**6), ("MW", "兆瓦"), ("megawatt", "megawatts")),
    (_u("GW", "gigawatt", "power", 10**9), ("GW", "吉瓦"), ("gigawatt", "gigawatts")),
    (
        _u("kWh", "kilowatt-hour", "energy", 1000),
        ("kWh", "千瓦时"),
        ("kilowatt-hour", "kilowatt-hours", "kilowatt hours"),
    ),
    (_u("MWh", "megawatt-hour", "energy", 10**6), ("MWh",), ()),
    (_u("GWh", "gigawatt-hour", "energy", 10**9), ("GWh",), ()),
    (_u("TWh", "terawatt-hour", "energy", 10**12), ("TWh",), ()),
    # ratios
    (PERCENT, ("%", "pct", "\\%"), ("percent", "per cent", "percentage")),
    (PERMILLE, ("‰",), ("per mille", "per mil")),
    (POINT, ("pp", "p.p.", "个百分点", "百分点"), ("percentage point", "percentage points")),
    (
        _u("bp", "basis point", "percentage points", _F(1, 100)),
        ("bp", "bps", "个基点", "基点"),
        ("basis point", "basis points"),
    ),
    (_u("x", "times", "multiple"), ("倍", "x", "×"), ()),
    # money (never converted between currencies)
    (
        USD,
        ("USD", "US$", "美元", "美金"),
        ("dollar", "dollars", "us dollar", "us dollars", "u.s. dollars"),
    ),
    (_u("cent", "US cent", "money:USD", _F(1, 100)), ("¢",), ("cent", "cents")),
    (CNY, ("CNY", "RMB", "¥", "元", "块钱", "人民币", "元人民币"), ("yuan", "renminbi")),
    (_u("jiao", "jiao (0.1 yuan)", "money:CNY", _F(1, 10)), ("角", "毛钱"), ()),
    (KUAI, ("块",), ()),
    (EUR, ("EUR", "€", "欧元"), ("euro", "euros")),
    (GBP, ("GBP", "£", "英镑"), ("pounds sterling", "pound sterling")),
    (JPY, ("JPY", "円", "日元"), ("yen",)),
    (_u("KRW", "won", "money:KRW"), ("KRW", "₩", "원"), ()),
    (HKD, ("HKD", "HK$", "港元", "港币"), ("hong kong dollars",)),
    (CAD, ("CAD", "C$"), ("canadian dollars",)),
    (AUD, ("AUD", "A$"), ("australian dollars",)),
    (SGD, ("SGD", "S$"), ()),
    (TWD, ("TWD", "NT$"), ()),
    # counts
    (
        _u("people", "people", "count:people"),
        ("人", "名", "位"),
        ("people", "person", "persons", "residents", "inhabitants"),
    ),
    (_u("person-times", "person-times", "count:person-times"), ("人次",), ()),
    (_u("cases", "cases", "count:cases"), ("例",), ("cases", "case")),
    (_u("households", "households", "count:households"), ("户",), ("households", "household")),
    (_u("vehicles", "vehicles", "count:vehicles"), ("辆",), ("vehicles", "vehicle", "cars")),
    (_u("units", "units", "count:units"), ("台",), ("units",)),
    (_u("companies", "companies", "count:companies"), ("家",), ("companies", "firms")),
    (_u("times", "times (occurrences)", "count:times"), ("次",), ()),
)


def _powers(base: _Entry) -> tuple[_Entry, _Entry]:
    """The square and the cube of a length unit, with every spelling of both: "sq ft", "ft²",
    "ft^2", "square feet", "平方米"; "cu ft", "ft³", "ft^3", "cubic feet", "立方米"."""
    unit, symbols, words = base
    out: list[_Entry] = []
    forms = ((2, "area", "square", "sq", "²", "平方"), (3, "volume", "cubic", "cu", "³", "立方"))
    for power, dim, word, short, sup, cn in forms:
        latin = [s for s in symbols if not is_cjk(s[0])]
        latin += [s for s, marked in _MARKED_ONLY.items() if marked is unit]
        out.append((
            _u(f"{unit.key}{power}", f"{word} {unit.name}", dim, unit.factor**power),
            tuple(f"{s}{sup}" for s in latin) + tuple(f"{s}^{power}" for s in latin)
            + tuple(f"{short} {s}" for s in latin) + tuple(f"{short}. {s}" for s in latin)
            + tuple(cn + s for s in symbols if is_cjk(s[0])),
            tuple(f"{word} {w}" for w in words) + tuple(f"{short} {w}" for w in words),
        ))  # fmt: skip
    return out[0], out[1]


_LENGTHS = frozenset({"km", "m", "cm", "mm", "mi", "yd", "ft", "in"})
_TABLE: tuple[_Entry, ...] = _BASE_TABLE + tuple(
    entry for base in _BASE_TABLE if base[0].key in _LENGTHS for entry in _powers(base)
)

CURRENCY_PREFIXES: tuple[tuple[str, Unit], ...] = (
    ("US$", USD), ("HK$", HKD), ("NT$", TWD), ("C$", CAD), ("A$", AUD), ("S$", SGD),
    ("$", USD), ("¥", CNY), ("€", EUR),
    ("£", GBP), ("USD", USD), ("RMB", CNY), ("CNY", CNY), ("EUR", EUR), ("GBP", GBP),
    ("JPY", JPY), ("HKD", HKD), ("人民币", CNY),
)  # fmt: skip
"""Marks written before an amount ("$12.4", "US$5", "RMB 1299", "人民币1299元"), longest first."""

CURRENCY_CODES = frozenset(p for p, _ in CURRENCY_PREFIXES if p.isalpha() and p.isascii())


def _boundary(spelling: str) -> str:
    """A spelling ending in a Latin letter must not run on into a longer word ("t" ≠ "tonnes")."""
    body = re.escape(spelling).replace(r"\ ", r"\s+")
    return body + (r"(?![A-Za-z])" if re.search(r"[A-Za-z.]$", spelling) else "")


@cache
def _unit_pattern() -> tuple[re.Pattern[str], dict[str, Unit]]:
    by_spelling: dict[str, Unit] = {}
    alternatives: list[tuple[int, str]] = []
    for unit, symbols, words in _TABLE:
        for s in symbols:
            by_spelling[s] = unit
            alternatives.append((len(s), _boundary(s)))
        for w in words:
            by_spelling[w.casefold()] = unit
            alternatives.append((len(w), "(?i:" + _boundary(w) + ")"))
    alternatives.sort(key=lambda a: -a[0])  # longest first: "kg" before "k", "个百分点" before "个"
    return re.compile("|".join(a for _, a in alternatives)), by_spelling


def unit_at(text: str, pos: int, end: int | None = None) -> tuple[Unit, int] | None:
    """The unit spelled at `pos` of normalised text (before `end`) and where its spelling ends,
    else None."""
    pattern, by_spelling = _unit_pattern()
    m = pattern.match(text, pos) if end is None else pattern.match(text, pos, end)
    if m is None:
        return None
    written = " ".join(m.group().split())
    unit = by_spelling.get(written) or by_spelling.get(written.casefold())
    return (unit, m.end()) if unit is not None else None


_POWER_SUFFIX = re.compile(r"\s*(?:\^\s*\{?\s*([23])\s*\}?|([²³]))$")


@cache
def _powered() -> dict[tuple[str, int], Unit]:
    return {
        (base[0].key, power): entry[0]
        for base in _BASE_TABLE
        if base[0].key in _LENGTHS
        for power, entry in zip((2, 3), _powers(base), strict=True)
    }


def unit_named(text: str) -> Unit | None:
    """The unit that `text` spells as a whole, where the text marks it as a unit (an item's
    unit, a maths answer's \\text{…}): "tonnes", "in" (inch), "inches^2", "sq ft"; else None
    ("亿元" has a scale: see the reader)."""
    s = " ".join(text.split())
    if s in _MARKED_ONLY:
        return _MARKED_ONLY[s]
    found = unit_at(s, 0)
    if found is not None and found[1] == len(s):
        return found[0]
    power = _POWER_SUFFIX.search(s)
    base = unit_named(s[: power.start()]) if power is not None and power.start() else None
    if power is None or base is None:
        return None
    exponent = int(power.group(1)) if power.group(1) else {"²": 2, "³": 3}[power.group(2)]
    return _powered().get((base.key, exponent))


def same_unit(a: Unit, b: Unit) -> bool | None:
    """Whether `a` and `b` are one unit: the same dimension and factor ("mL" and "cm³" are), an
    ambiguous spelling read by its meanings in the other's dimension ("pounds" against "lb" is
    lb); None when those meanings disagree ("tons" against "tonnes": a short ton is no tonne)."""
    if a.key == b.key:
        return True
    verdicts = {
        x.factor == y.factor
        for x in (a.readings or (a,))
        for y in (b.readings or (b,))
        if x.dimension == y.dimension
    }
    if verdicts == {True}:
        return True
    return None if len(verdicts) == 2 else False


def measures(unit: Unit) -> bool:
    """Whether `unit` is a unit of measure or money, not a count noun ("people", "cases")."""
    return not unit.dimension.startswith("count:")


_CALENDAR_DAYS: dict[str, tuple[int, int]] = {
    "month": (28, 31),
    "quarter": (89, 92),
    "year": (365, 366),
}


def calendar_span(value: Fraction, unit: Unit, to: Unit) -> tuple[Fraction, Fraction] | None:
    """The interval that `value` `unit` covers in `to` when one is a calendar unit (month,
    quarter, year) and the other a time unit (day, week, hour…): a month is 28–31 days, a
    quarter 89–92, a year 365–366 (so "about three months" is 84–93 days, never 120); None
    when the pair is not calendar and time. Not a conversion: a span to compare against."""
    if unit.dimension == "calendar" and to.dimension == "time":
        days = _CALENDAR_DAYS.get(unit.key)
        if days is None:
            return None
        ends = [value * d * _DAY / to.factor for d in days]
    elif unit.dimension == "time" and to.dimension == "calendar":
        days = _CALENDAR_DAYS.get(to.key)
        if days is None:
            return None
        ends = [value * unit.factor / _DAY / d for d in days]
    else:
        return None
    return min(ends), max(ends)
