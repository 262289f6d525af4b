"""Pure: a dialogue tree file (JSON, or YAML where PyYAML is installed) → a checked `DialogueTree`.

A tree is a few stages (at most `MAX_STAGES`). Each stage asks one self-contained question (no
"as above", "continue", "上文": the loader refuses words that lean on earlier turns), may fill
`{{entity.attribute}}` placeholders from facts the model gave earlier, and says where to go next:
a stage id, or branch rules evaluated on the fact graph, first match wins:

    "next": [{"if": {"fact": "acme.margin_gap", "is": "number"}, "goto": "precise"},
             {"if": {"fact": "acme.margin_gap", "is": "range"}, "goto": "ask_again"},
             {"if": {"fact": "acme.risk", "says": ["supply chain", "供应链"]}, "goto": "supply"},
             {"goto": "open"}]

`is` is one of number (one value, hedged or not) / range / present / absent / unreadable;
`above`, `below` and `between` compare a number (a range must lie wholly on that side);
`says` matches words of a text fact. A rule without `if` always matches.

Facts (top-level `facts`) say how facts are read from every reply: an entity and an attribute,
the `label` the value follows ("Receivable days", "产量"; a list for several spellings, matched
case-insensitively with an optional colon, full-width or not) or a `pattern` (a regex whose
first group, or group `value`, holds the value), the kind (number or text), the `unit` its
numbers are in (a reply in another unit of the same dimension is converted; one without a unit
is read in this one) and the relative `tolerance` under which two values are the same. Top-level
`entities` name each entity as replies write it, so that "Industry median, Receivable days: 85"
is a fact of the industry, not of ACME. A stage may `expect` facts with values (`equals`) or
with a formula over values the model gave before (`formula`, e.g.
"121.7 * {{acme.margin_gap}} / 100"): the expected answer of a follow-up is computed from the
value that was put into its question. Its score is the share of expectations met.

Errors name the file and (roughly) the line of the stage or field at fault.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from proctor.datasets.turn_spec import TurnSpec, invalid_spec, read_json
from proctor.errors import DatasetError

MAX_STAGES = 6
"""About five stages; one spare for a branch's alternative."""

BACK_REFERENCES = re.compile(
    r"\b(?:as (?:above|before|mentioned|discussed|stated)|see above|(?:the )?previous "
    r"(?:answer|turn|question|stage|reply)|continue|earlier (?:answer|reply)|you said)\b"
    r"|上文|如上|前面|上一轮|上一个问题|第一轮|继续|刚才",
    re.IGNORECASE,
)
PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]+)\s*\}\}")


class FactRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    entity: str = Field(min_length=1)
    attribute: str = Field(min_length=1)
    label: str | list[str] | None = None
    """The words a value follows; a list for several spellings."""
    pattern: str | None = None
    """A regex whose first group (or group `value`) is the value (instead of `label`)."""
    kind: Literal["number", "text"] = "number"
    unit: str | None = None
    """The unit the fact's numbers are in ("day", "t", "USD", "percent", "pp"…)."""
    scale: float = Field(default=1.0, gt=0.0)
    """The fact's numbers count this many `unit`s (1000000: millions of USD); a value written
    with a scale word or another unit is converted, one written bare is taken as it is."""
    tolerance: float | None = Field(default=None, ge=0.0)
    """Relative difference under which two values are the same (default: the tree's)."""

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str | None) -> str | None:
        if v is None:
            return v
        try:
            compiled = re.compile(v)
        except re.error as e:
            raise ValueError(f"bad regex: {e}") from None
        if compiled.groups < 1:
            raise ValueError("the regex needs a group that captures the value")
        return v

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, v: str | None) -> str | None:
        from proctor.extract.quantity_match import parse_unit

        if v is not None:
            parse_unit(v)  # its ValueError names the unit the table does not know
        return v

    @model_validator(mode="after")
    def _one_way(self) -> FactRule:
        if (self.label is None) == (self.pattern is None):
            raise ValueError(f"fact {self.key!r}: give a label or a pattern (one of them)")
        if self.label is not None and not [x for x in self.labels if x.strip()]:
            raise ValueError(f"fact {self.key!r}: the label is empty")
        return self

    @property
    def labels(self) -> tuple[str, ...]:
        if self.label is None:
            return ()
        return (self.label,) if isinstance(self.label, str) else tuple(self.label)

    @property
    def key(self) -> str:
        return f"{self.entity}.{self.attribute}"


class Condition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    fact: str = Field(min_length=3)
    is_: Literal["number", "range", "present", "absent", "unreadable"] | None = Field(
        default=None, alias="is"
    )
    above: float | None = None
    below: float | None = None
    between: tuple[float, float] | None = None
    says: list[str] | None = None

    @model_validator(mode="after")
    def _one_test(self) -> Condition:
        tests = [self.is_, self.above, self.below, self.between, self.says]
        if sum(t is not None for t in tests) != 1:
            raise ValueError(
                f"condition on {self.fact!r}: give exactly one of is, above, below, between, says"
            )
        if self.between is not None and self.between[0] > self.between[1]:
            raise ValueError(f"condition on {self.fact!r}: between needs [low, high]")
        return self

    def describe(self) -> str:
        if self.is_ is not None:
            return f"{self.fact} is {self.is_}"
        if self.says is not None:
            return f"{self.fact} says {' / '.join(self.says)}"
        if self.between is not None:
            return f"{self.fact} between {self.between[0]:g} and {self.between[1]:g}"
        side, bound = ("above", self.above) if self.above is not None else ("below", self.below)
        return f"{self.fact} {side} {bound:g}"


class Branch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    if_: Condition | None = Field(default=None, alias="if")
    goto: str = Field(min_length=1)


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fact: str = Field(min_length=3)
    equals: int | float | str | None = None
    formula: str | None = None
    """Arithmetic over `{{entity.attribute}}` values the model gave earlier (+ - * / and
    parentheses, exact): the expected number is computed from the value in the question."""
    tolerance: float = Field(default=0.0, ge=0.0)
    """For numbers: the largest relative difference still counted as equal."""

    @model_validator(mode="after")
    def _one_answer(self) -> Expectation:
        if (self.equals is None) == (self.formula is None):
            raise ValueError(f"expectation of {self.fact!r}: give equals or formula (one)")
        return self


class Stage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    ask: str = Field(min_length=1)
    expect: list[Expectation] = Field(default_factory=list)
    next: str | list[Branch] | None = None
    """None: the next stage in file order (or the end, for the last stage)."""

    @field_validator("ask")
    @classmethod
    def _self_contained(cls, v: str) -> str:
        m = BACK_REFERENCES.search(v)
        if m:
            raise ValueError(
                f"a turn must be self-contained, but it leans on an earlier one: {m.group()!r}"
            )
        return v


class DialogueTree(TurnSpec):
    facts: list[FactRule] = Field(default_factory=list)
    entities: dict[str, list[str]] = Field(default_factory=dict)
    """How replies name each entity ("acme": ["ACME", "ACME Corp"]); a fact read after a name
    belongs to that entity, one read with no name before it to its rule's entity."""
    stages: list[Stage] = Field(min_length=1, max_length=MAX_STAGES)
    consistency_tolerance: float = Field(default=0.0, ge=0.0)
    """Relative difference under which two numbers for one fact are not a contradiction."""

    @model_validator(mode="after")
    def _links(self) -> DialogueTree:
        ids = [s.id for s in self.stages]
        if len(ids) != len(set(ids)):
            raise ValueError(f"stage ids must be unique: {ids}")
        known = {f.key for f in self.facts}
        for s in self.stages:
            targets = [s.next] if isinstance(s.next, str) else [b.goto for b in s.next or []]
            for t in targets:
                if t not in ids and t != "end":
                    raise ValueError(f"stage {s.id!r}: goto {t!r} is not a stage (or 'end')")
            refs = [b.if_.fact for b in s.next or [] if isinstance(b, Branch) and b.if_]
            refs += [e.fact for e in s.expect] + PLACEHOLDER.findall(s.ask)
            refs += [r for e in s.expect for r in PLACEHOLDER.findall(e.formula or "")]
            for ref in refs:
                if ref not in known:
                    raise ValueError(f"stage {s.id!r}: {ref!r} is not a declared fact")
            for e in s.expect:
                if e.formula is not None:
                    _check_formula(s, e.formula)
        return self

    def rule(self, key: str) -> FactRule:
        return next(f for f in self.facts if f.key == key)

    def tolerance(self, key: str) -> float:
        rule = next((f for f in self.facts if f.key == key), None)
        if rule is not None and rule.tolerance is not None:
            return rule.tolerance
        return self.consistency_tolerance

    def stage(self, stage_id: str) -> Stage:
        for s in self.stages:
            if s.id == stage_id:
                return s
        raise KeyError(stage_id)

    def following(self, stage_id: str) -> str | None:
        """The stage after `stage_id` in file order, or None after the last."""
        ids = [s.id for s in self.stages]
        i = ids.index(stage_id)
        return ids[i + 1] if i + 1 < len(ids) else None


def _check_formula(stage: Stage, formula: str) -> None:
    """A formula is computed from the values in its stage's question, so it may use only those,
    and must be arithmetic."""
    from proctor.datasets.exact_eval import evaluate

    asked = set(PLACEHOLDER.findall(stage.ask))
    for ref in PLACEHOLDER.findall(formula):
        if ref not in asked:
            raise ValueError(
                f"stage {stage.id!r}: the formula uses {{{{{ref}}}}}, which its question does not "
                "ask with (the expected answer is computed from the values in the question)"
            )
    try:
        evaluate(PLACEHOLDER.sub("(1)", formula))
    except ZeroDivisionError:
        pass
    except ValueError as e:
        raise ValueError(f"stage {stage.id!r}: bad formula {formula!r}: {e}") from None


@dataclass(frozen=True)
class LoadedTree:
    tree: DialogueTree
    source: str


def _line_of(text: str, loc: tuple[Any, ...], data: Any) -> int | None:
    """The line of the innermost named thing on `loc` (a stage's id or a field name)."""
    at = -1
    node = data
    for part in loc:
        needle: str | None = None
        if isinstance(node, dict) and part in node:
            node = node[part]
            needle = f'"{part}"' if text.lstrip().startswith("{") else str(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                needle = node["id"]
        else:
            break
        if needle is not None:
            found = text.find(needle, at + 1)
            at = found if found >= 0 else at
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def parse_tree(text: str, source: str) -> DialogueTree:
    """Read a tree from its text; `source` names it in errors (its suffix picks YAML or JSON)."""
    data: Any
    if source.endswith((".yaml", ".yml")):
        try:
            yaml = importlib.import_module("yaml")
        except ImportError:
            need = "YAML needs PyYAML (pip install pyyaml), or write the tree as JSON"
            raise DatasetError(source, None, None, need) from None
        try:
            data = yaml.safe_load(text)
        except Exception as e:  # PyYAML's errors carry the line in their text
            raise DatasetError(source, None, None, f"not YAML: {e}") from None
    else:
        data = read_json(text, source)
    try:
        return DialogueTree.model_validate(data)
    except ValidationError as e:
        stage = r"^stage '([^']+)'"
        raise invalid_spec(e, text, source, stage, lambda loc: _line_of(text, loc, data)) from None


def load_tree(path: Path) -> DialogueTree:
    return parse_tree(path.read_text(encoding="utf-8"), str(path))
