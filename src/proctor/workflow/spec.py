"""Pure: a workflow file → a checked `Workflow`; the budget meter; the checks of required outputs.

A workflow is a few steps run in order, each a model call or a tool call, each writing one named
output that later steps may use as `{{name}}`. Hard limits (total tokens, wall time, tool calls)
are checked before every step: a step that would exceed a limit is not run, and the workflow
ends `incomplete` naming the limit. Completion is all-or-nothing: every required output must
exist and pass its check (json: parses as one object, with the listed keys; headings: each
listed Markdown heading is present; contains: each listed text is present).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proctor.errors import DatasetError
from proctor.extract.json_reply import read_json_reply

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")
Limit = Literal["tokens", "wall_time", "tool_calls"]


class Budget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    max_tokens: int = Field(gt=0)
    max_wall_s: float = Field(gt=0)
    max_tool_calls: int = Field(ge=0)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    kind: Literal["model", "tool"]
    output: str = Field(pattern=r"^[A-Za-z0-9_]+$")
    prompt: str = ""
    """model steps: the user message; `{{name}}` is an earlier output."""
    max_tokens: int = Field(default=256, gt=0)
    tool: str = ""
    args: dict[str, Any] = Field(default_factory=dict)
    """tool steps: the arguments; string values may use `{{name}}`."""

    @model_validator(mode="after")
    def _kind(self) -> Step:
        if self.kind == "model" and not self.prompt.strip():
            raise ValueError(f"model step {self.id!r} needs a prompt")
        if self.kind == "tool" and not self.tool:
            raise ValueError(f"tool step {self.id!r} needs a tool")
        return self


class Required(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    output: str
    check: Literal["json", "headings", "contains", "nonempty"]
    keys: list[str] = Field(default_factory=list)
    headings: list[str] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)


class Workflow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"] = "en"
    description: str = ""
    system: str = ""
    budget: Budget
    documents: dict[str, str] = Field(default_factory=dict)
    """A small corpus for the `doc_search` tool, by document id."""
    steps: list[Step] = Field(min_length=1, max_length=12)
    required: list[Required] = Field(min_length=1)

    @model_validator(mode="after")
    def _links(self) -> Workflow:
        made: set[str] = set()
        for s in self.steps:
            texts = [s.prompt, *(v for v in s.args.values() if isinstance(v, str))]
            for t in texts:
                for ref in PLACEHOLDER.findall(t):
                    if ref not in made:
                        raise ValueError(
                            f"step {s.id!r} uses {{{{{ref}}}}} before any step makes it"
                        )
            made.add(s.output)
        for r in self.required:
            if r.output not in made:
                raise ValueError(f"required output {r.output!r} is made by no step")
        return self


def parse_workflow(text: str, source: str) -> Workflow:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DatasetError(source, e.lineno, None, f"not JSON: {e.msg}") from None
    try:
        return Workflow.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or None
        msg = err["msg"].removeprefix("Value error, ")
        line = None
        named = re.search(r"step '([^']+)'", msg)
        if named:
            i = text.find(f'"{named.group(1)}"')
            line = text.count("\n", 0, i) + 1 if i >= 0 else None
        raise DatasetError(source, line, where, msg) from None


def render(template: str, outputs: Mapping[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: outputs[m.group(1)], template)


def render_args(args: Mapping[str, Any], outputs: Mapping[str, str]) -> dict[str, Any]:
    return {k: render(v, outputs) if isinstance(v, str) else v for k, v in args.items()}


@dataclass
class BudgetMeter:
    """Counts what a workflow has spent and says, before a step, whether it may run."""

    budget: Budget
    clock: Callable[[], float]
    started: float = 0.0
    tokens: int = 0
    tool_calls: int = 0
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def remaining_s(self) -> float:
        return self.budget.max_wall_s - self.elapsed_s()

    def before_model(self, prompt_tokens: int, max_tokens: int) -> tuple[Limit, str] | None:
        """The limit a model step would break (prompt estimate + its max_tokens), or None."""
        if self.remaining_s() <= 0:
            return "wall_time", self._wall()
        projected = self.tokens + prompt_tokens + max_tokens
        if projected > self.budget.max_tokens:
            return "tokens", (
                f"{self.tokens} tokens used + about {prompt_tokens} prompt + up to {max_tokens} "
                f"reply = {projected} > the limit {self.budget.max_tokens}"
            )
        return None

    def before_tool(self) -> tuple[Limit, str] | None:
        if self.remaining_s() <= 0:
            return "wall_time", self._wall()
        if self.tool_calls + 1 > self.budget.max_tool_calls:
            return "tool_calls", (
                f"{self.tool_calls} tool calls made; one more exceeds the limit "
                f"{self.budget.max_tool_calls}"
            )
        return None

    def after_model(self, used: int) -> tuple[Limit, str] | None:
        self.tokens += used
        if self.tokens > self.budget.max_tokens:
            return "tokens", f"{self.tokens} tokens used > the limit {self.budget.max_tokens}"
        return None

    def _wall(self) -> str:
        return f"{self.elapsed_s():.2f} s elapsed ≥ the limit {self.budget.max_wall_s:g} s"


def check_output(req: Required, text: str | None) -> str:
    """ "" when the output passes its check, else why it does not."""
    if text is None:
        return f"{req.output}: never produced"
    if req.check == "nonempty":
        return "" if text.strip() else f"{req.output}: empty"
    if req.check == "json":
        reply = read_json_reply(text)
        if reply.value is None:
            return f"{req.output}: {reply.error}"
        missing = [k for k in req.keys if k not in reply.value]
        return f"{req.output}: JSON lacks {', '.join(missing)}" if missing else ""
    if req.check == "headings":
        present = {
            re.sub(r"^#+\s*", "", line.strip()).strip().lower()
            for line in text.splitlines()
            if line.strip().startswith("#")
        }
        missing = [h for h in req.headings if h.strip().lower() not in present]
        return f"{req.output}: missing headings {', '.join(missing)}" if missing else ""
    missing = [t for t in req.texts if t not in text]
    return f"{req.output}: lacks {', '.join(repr(t) for t in missing)}" if missing else ""
