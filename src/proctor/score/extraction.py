"""The extraction scorer: a reply that must be one JSON object with the expected fields.

Order: a reply cut off by max_tokens before its JSON is complete is `truncated`; a reply that is
not one JSON object is `wrong` (rule `json_invalid`, with the parser's message); otherwise every
problem of every field is listed, and the rule names every kind of problem found, e.g.
"key_set+conflicting_value". `format_ok` says whether the reply was valid JSON, apart from its
values — the "valid JSON" rate of a model.

Match modes, per case or per key: `exact` — the value equals the expected one after folding
(Unicode NFKC, case, spaces, a trailing full stop); `contains` — the value contains the expected
one as a phrase. In both modes a value that holds the expected answer and also a different one
fails as `conflicting_value`: "contains" is not a licence to list every candidate. Besides the
case's listed wrong values, a second number, date or time (read by the one reader of
quantities), a second option after a separator ("或", "/", "、", " or "), an alternative after a
marker ("not", "previously", "later", "原为", "而非", "改为") and another name the material gives
listed beside the expected one ("Anna Berg and Mark Olsen", "王丽和李强"; not the context in "BA
117 from London") are conflicts; the expected date written with its year
("2024年6月15日" for 6月15日) is the same value.

The value-type rule is a contract about JSON types: a field the case declares a number must be a
JSON number, so "299元" is a string here. It is not the rule for answers in words (the structured
task's `answer` string), which the quantity reader reads as 299 yuan (`score/structured.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from proctor.extract.json_reply import JsonReply, first_json_object, read_json_reply
from proctor.extract.names import names_in
from proctor.extract.normalize import parse_number
from proctor.extract.phrases import contains_phrase, find_phrase, fold, same_quantity, stated
from proctor.types import FinishReason, Score

MatchMode = Literal["exact", "contains"]
MATCH_MODES: tuple[MatchMode, ...] = ("exact", "contains")

RULES: dict[str, str] = {
    "truncated_json": "The reply hit max_tokens before its JSON object was complete.",
    "json_invalid": "The reply must be one JSON object, optionally inside one code fence; text"
    " before or after it, a second object or NaN makes it invalid, and the parser's message"
    " says where.",
    "key_set": "The reply's keys must be exactly the expected keys: none missing, none extra.",
    "value_type": "Each value must have the expected JSON type: a number where a number is"
    ' expected ("1200元" is a string, not the number 1200), a string where a string is.',
    "value_mismatch": "Each value must equal the expected one (exact mode, after folding case,"
    " width and spaces) or contain it (contains mode).",
    "conflicting_value": "A value that holds the expected answer and also a different one (a"
    " second number, an alternative, a listed wrong value, extra list items, a key written"
    " twice) fails.",
    "fields_match": "Every expected key is present with no extra key, and every value equals or"
    " contains the expected one without a conflicting value.",
}

_TRAILING = " 。.;；,，!！"
_CALENDAR = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
"""Capitalised words of dates: part of a date value, not a second name."""
_JOINER = re.compile(
    r"[\s,，、;；/&|()（）+]*(?:and|or|plus|和|与|及|以及|或|或者|还有|跟|同)?[\s,，、;；/&|()（）+]*",
    re.IGNORECASE,
)
_PLAIN_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_ALTERNATIVES = ("或者", "还是", "或", " or ", "/", "|", "；", ";", "、", " and/or ")
_ALTERNATIVE_MARKER = re.compile(
    r"(?P<marker>\b(?:or|not|previously|formerly|originally|earlier|before|instead of|rather than|"
    r"was|were|vs\.?|versus|replacing|replaced|changed from|moved from|old|later|then|now|"
    r"changed to|moved to|updated to|afterwards)\b"
    r"|原为|原定|原来|原先|原|曾为|曾经|曾|而非|而不是|不是|并非|之前|此前|以前|旧|改自|取代|"
    r"改为|改成|后改|后来|现为|现在|变更为)"
    r"(?P<what>[^()（）]*[^\W_][^()（）]*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Problem:
    rule: str
    message: str


def _fold_value(text: str) -> str:
    return fold(text).rstrip(_TRAILING)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _exact_fraction(value: float | int) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _without(got: str, expected: str) -> str:
    """`got` with every occurrence of `expected` replaced by a space, so that what is left is
    what it adds (cut in the original text: "55812 (not 58812)" leaves " (not 58812)")."""
    rest, last = [], 0
    for a, b in find_phrase(got, expected):
        rest.append(got[last:a])
        last = b
    rest.append(got[last:])
    return " ".join(rest)


def _other_quantities(got: str, expected: str) -> list[tuple[str, str]]:
    """(kind, text) of each number, range, date or time `got` states besides the expected value:
    one that overlaps where `got` holds the expected value is that value, written more fully
    ("2024年6月15日" for 6月15日), and one equal to a value of `expected` is no other value."""
    spans = find_phrase(got, expected)
    wanted = stated(expected)
    others: list[tuple[str, str]] = []
    for q in stated(got):
        if any(a < q.end and q.start < b for a, b in spans):
            continue
        if any(same_quantity(w, q) for w in wanted):
            continue
        others.append(("number" if q.kind in ("number", "range") else q.kind, q.text))
    return list(dict.fromkeys(others))


def _joined(got: str, expected: str, name: str) -> bool:
    """Whether `got` lists `name` beside `expected`, joined only by punctuation or a word such as
    "and", "or", "和", "或" ("Anna Berg and Mark Olsen", "王丽、李强"; not "BA 117 from London")."""
    if contains_phrase(name, expected):
        return False
    for a, b in find_phrase(got, expected):
        for c, d in find_phrase(got, name):
            between = got[b:c] if c >= b else got[d:a] if d <= a else None
            if between is not None and _JOINER.fullmatch(between):
                return True
    return False


def _string_conflicts(got: str, expected: str, listed: Sequence[str]) -> list[str]:
    """What else `got` holds besides `expected`, when it contains it: a listed wrong value, a
    second number, a second option after a separator, or an alternative after a marker such as
    "not", "previously", "原为" ("Lisbon (previously Madrid)", "杭州，而非上海")."""
    found = [
        f"the listed wrong value {_show(c)}"
        for c in listed
        if contains_phrase(got, c) and not contains_phrase(expected, c)
    ]
    rest = _without(got, expected)
    found += [f"the {kind} {text}" for kind, text in _other_quantities(got, expected)]
    folded, folded_expected = fold(got), fold(expected)
    separators = [s for s in _ALTERNATIVES if s not in folded_expected]
    if separators:
        pattern = "|".join(re.escape(s) for s in separators)
        parts = [p.strip(_TRAILING) for p in re.split(pattern, folded)]
        parts = [p for p in parts if p]
        if len(parts) > 1:
            others = [p for p in parts if not contains_phrase(p, expected)]
            found += [f"the alternative {_show(p)}" for p in others]
    if not any(f.startswith("the alternative") for f in found):
        marked = _ALTERNATIVE_MARKER.search(rest)
        if marked is not None and marked.group("what").strip(_TRAILING + "()（）"):
            what = marked.group("what").strip(_TRAILING + "()（） ")
            found.append(f"the alternative {_show(what)} ({marked.group('marker').strip()!r})")
    return found


def check_value(
    path: str, expected: Any, got: Any, mode: MatchMode, listed: Sequence[str] = ()
) -> list[Problem]:
    """Problems of one value (and, for objects and arrays, of everything inside it)."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return [Problem("value_type", f"{path}: expected an object, got {_show(got)}")]
        return check_object(expected, got, mode, {}, prefix=f"{path}.")
    if isinstance(expected, list):
        return _check_list(path, expected, got, mode)
    if isinstance(got, list) and not isinstance(expected, list):
        hits = [g for g in got if not check_value(path, expected, g, mode, listed)]
        if hits and len(got) > 1:
            others = [g for g in got if check_value(path, expected, g, mode, listed)]
            return [
                Problem(
                    "conflicting_value",
                    f"{path}: holds the expected {_show(expected)} and also "
                    + ", ".join(_show(o) for o in others),
                )
            ]
        return [
            Problem("value_type", f"{path}: expected {_show(expected)}, got a list {_show(got)}")
        ]
    if isinstance(expected, bool) or expected is None:
        if got is expected:
            return []
        return [Problem("value_mismatch", f"{path}: expected {_show(expected)}, got {_show(got)}")]
    if _is_number(expected):
        return _check_number(path, expected, got)
    return _check_string(path, str(expected), got, mode, listed)


def _check_number(path: str, expected: float | int, got: Any) -> list[Problem]:
    if _is_number(got):
        if _exact_fraction(got) == _exact_fraction(expected):
            return []
        return [Problem("value_mismatch", f"{path}: expected {_show(expected)}, got {_show(got)}")]
    if isinstance(got, str):
        want = _exact_fraction(expected)
        token = parse_number(got) if _PLAIN_NUMBER.fullmatch(got.strip()) else None
        if token is not None and token.value == want:
            why = "a number written as a string"
        elif any(q.kind == "number" and q.value == want for q in stated(got)):
            why = "a number with a unit or words is a string, not a number"
        else:
            why = "a string"
        return [
            Problem(
                "value_type",
                f"{path}: expected the number {_show(expected)}, got {_show(got)} ({why})",
            )
        ]
    return [
        Problem("value_type", f"{path}: expected the number {_show(expected)}, got {_show(got)}")
    ]


def _check_string(
    path: str, expected: str, got: Any, mode: MatchMode, listed: Sequence[str]
) -> list[Problem]:
    if not isinstance(got, str):
        return [
            Problem(
                "value_type", f"{path}: expected the string {_show(expected)}, got {_show(got)}"
            )
        ]
    if _fold_value(got) == _fold_value(expected):
        return []
    if not contains_phrase(got, expected):
        return [Problem("value_mismatch", f"{path}: expected {_show(expected)}, got {_show(got)}")]
    conflicts = _string_conflicts(got, expected, listed)
    if conflicts:
        return [
            Problem(
                "conflicting_value",
                f"{path}: {_show(got)} holds the expected {_show(expected)} but also "
                + ", ".join(conflicts),
            )
        ]
    if mode == "exact":
        return [
            Problem(
                "value_mismatch",
                f"{path}: expected exactly {_show(expected)}, got {_show(got)} (contains it;"
                " the case asks for exact)",
            )
        ]
    return []


def _check_list(path: str, expected: list[Any], got: Any, mode: MatchMode) -> list[Problem]:
    if not isinstance(got, list):
        return [Problem("value_type", f"{path}: expected a list, got {_show(got)}")]
    unused = list(range(len(got)))
    problems: list[Problem] = []
    for want in expected:
        match = next((i for i in unused if not check_value(path, want, got[i], mode)), None)
        if match is None:
            problems.append(Problem("value_mismatch", f"{path}: missing the item {_show(want)}"))
        else:
            unused.remove(match)
    if unused:
        extra = ", ".join(_show(got[i]) for i in unused)
        problems.append(Problem("conflicting_value", f"{path}: also lists {extra}"))
    return problems


def check_object(
    expected: Mapping[str, Any],
    got: Mapping[str, Any],
    modes: Mapping[str, MatchMode] | MatchMode,
    conflicts: Mapping[str, Sequence[str]],
    *,
    prefix: str = "",
) -> list[Problem]:
    """Problems of a whole object: its key set, then each expected key's value."""
    problems: list[Problem] = []
    missing = [k for k in expected if k not in got]
    extra = [k for k in got if k not in expected]
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(_show(prefix + k) for k in missing))
        if extra:
            parts.append("extra " + ", ".join(_show(prefix + k) for k in extra))
        problems.append(Problem("key_set", "keys: " + "; ".join(parts)))
    for key, want in expected.items():
        if key not in got:
            continue
        mode = modes if isinstance(modes, str) else modes.get(key, modes.get("*", "exact"))
        problems += check_value(prefix + key, want, got[key], mode, conflicts.get(key, ()))
    return problems


def _duplicate_problems(reply: JsonReply) -> list[Problem]:
    return [
        Problem(
            "conflicting_value",
            f"{key}: written {len(values)} times with different values "
            + ", ".join(_show(v) for v in values),
        )
        for key, values in reply.duplicates
        if len({_show(v) for v in values}) > 1
    ]


def _rule(problems: Sequence[Problem]) -> str:
    return "+".join(dict.fromkeys(p.rule for p in problems))


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class JsonFieldsMatch:
    """The reply must be one valid JSON object whose key set equals the expected one, each value
    equal to or containing the expected one per the match mode, with no conflicting value."""

    expected: Mapping[str, Any]
    modes: Mapping[str, MatchMode] = field(default_factory=lambda: {"*": "exact"})
    """Key → match mode; "*" is the default for keys not named."""
    conflicts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Key → known wrong values (e.g. other names in the material) that must not appear."""
    material: str = ""
    """The case's material: a value that holds, besides the expected one, another name the
    material gives ("Anna Berg and Mark Olsen", "王丽和李强") holds a conflicting value."""

    def _name_conflicts(
        self, value: Mapping[str, Any], problems: Sequence[Problem]
    ) -> list[Problem]:
        names = [n.text for n in names_in(self.material) if n.text.casefold() not in _CALENDAR]
        if not names:
            return []
        found: list[Problem] = []
        for key, want in self.expected.items():
            got = value.get(key)
            if not (isinstance(want, str) and isinstance(got, str)) or not contains_phrase(
                got, want
            ):
                continue
            if any(p.message.startswith(f"{key}:") for p in problems):
                continue
            others = [n for n in names if _joined(got, want, n) and not contains_phrase(want, n)]
            if others:
                found.append(
                    Problem(
                        "conflicting_value",
                        f"{key}: {_show(got)} holds the expected {_show(want)} but also "
                        + ", ".join(f"the name {_show(n)} (from the material)" for n in others),
                    )
                )
        return found

    def __call__(self, text: str, finish_reason: FinishReason) -> Score:
        reply = read_json_reply(text)
        if reply.value is None:
            if finish_reason == "length":
                return Score("truncated", "truncated_json", f"cut off by max_tokens: {reply.error}")
            return Score("wrong", "json_invalid", reply.error + self._lenient_note(text))
        problems = check_object(self.expected, reply.value, self.modes, self.conflicts)
        problems += self._name_conflicts(reply.value, problems)
        duplicates = _duplicate_problems(reply)
        if duplicates:
            # A key written twice is one conflict, not also a mismatch of whichever value the
            # parser happened to keep.
            twice = {p.message.split(":", 1)[0] for p in duplicates}
            problems = [p for p in problems if p.message.split(":", 1)[0] not in twice]
        problems += duplicates
        shown = canonical_json(reply.value)
        if problems:
            explanation = "; ".join(p.message for p in problems)
            return Score("wrong", _rule(problems), explanation, shown, shown, format_ok=True)
        how = " (inside a code fence)" if reply.fenced else ""
        return Score(
            "correct",
            "fields_match",
            f"all {len(self.expected)} fields match{how}",
            shown,
            shown,
            format_ok=True,
        )

    def _lenient_note(self, text: str) -> str:
        found = first_json_object(text)
        if found is None:
            return ""
        problems = check_object(self.expected, found, self.modes, self.conflicts)
        if not problems:
            return "; the JSON object inside it would have matched every field"
        return f"; the JSON object inside it would also fail ({_rule(problems)})"
