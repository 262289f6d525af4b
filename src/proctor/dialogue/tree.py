"""Pure: a dialogue tree file (JSON, or YAML where PyYAML is installed) → a checked `DialogueTree`.

A tree is a few stages (at most `MAX_STAGES`). Each stage asks one self-contained question (no
"as above", "continue", "上文": the loader refuses words that lean on earlier turns), may fill
`{{entity.attribute}}` placeholders from facts the model gave earlier, and says where to go next:
a stage id, or branch rules evaluated on the fact graph, first match wins:

    "next": [{"if": {"fact": "acme.margin_gap", "is": "number"}, "goto": "precise"},
             {"goto": "open"}]

`is` is one of number / present / absent; a rule without `if` always matches. Fact rules
(top-level `facts`) say how facts are read from every reply: an entity, an attribute, a regex
whose first group (or group `value`) is the value, and the kind (number or text). A stage may
`expect` facts with values; its score is the share of expectations met.

Errors name the file and (roughly) the line of the stage or field at fault.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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
    pattern: str = Field(min_length=1)
    kind: Literal["number", "text"] = "number"

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            compiled = re.compile(v)
        except re.error as e:
            raise ValueError(f"bad regex: {e}") from None
        if compiled.groups < 1:
            raise ValueError("the regex needs a group that captures the value")
        return v

    @property
    def key(self) -> str:
        return f"{self.entity}.{self.attribute}"


class Condition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fact: str = Field(min_length=3)
    is_: Literal["number", "present", "absent"] = Field(alias="is")


class Branch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    if_: Condition | None = Field(default=None, alias="if")
    goto: str = Field(min_length=1)


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fact: str = Field(min_length=3)
    equals: int | float | str
    tolerance: float = Field(default=0.0, ge=0.0)
    """For numbers: the largest relative difference still counted as equal."""


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


class DialogueTree(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"] = "en"
    description: str = ""
    system: str = ""
    facts: list[FactRule] = Field(default_factory=list)
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
            for ref in refs:
                if ref not in known:
                    raise ValueError(f"stage {s.id!r}: {ref!r} is not a declared fact")
        return self

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
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise DatasetError(source, e.lineno, None, f"not JSON: {e.msg}") from None
    try:
        return DialogueTree.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in loc) or None
        msg = err["msg"].removeprefix("Value error, ")
        line = _line_of(text, loc, data)
        named = re.match(r"stage '([^']+)'", msg)
        if line is None and named:
            i = text.find(f'"{named.group(1)}"')
            line = text.count("\n", 0, i) + 1 if i >= 0 else line
        raise DatasetError(source, line, where, msg) from None


def load_tree(path: Path) -> DialogueTree:
    return parse_tree(path.read_text(encoding="utf-8"), str(path))
