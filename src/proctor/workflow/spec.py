"""Pure: a workflow file → a checked `Workflow`; the budget meter.

A workflow is a few steps run in order, each a model call or a tool call, each writing one named
output that later steps may use as `{{name}}`. Hard limits (total tokens, wall time, tool calls)
are checked before every step: a step that would exceed a limit is not run, and the workflow
ends `incomplete` naming the limit; the wall-time limit is one deadline for the whole workflow
(see the executor). Completion is all-or-nothing: every required output must exist and pass its
check (`workflow.checks`: json with keys and a JSON Schema, headings, contains, nonempty).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proctor.datasets.turn_spec import TurnSpec, invalid_spec, read_json
from proctor.workflow.checks import (
    check_contains,
    check_headings,
    check_json,
    check_nonempty,
    schema_problem,
)

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
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    output: str
    check: Literal["json", "headings", "contains", "nonempty"]
    keys: list[str] = Field(default_factory=list)
    """json: keys the object must have (a shorthand for the schema's `required`)."""
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    """json: a JSON Schema (draft 2020-12) the object must satisfy."""
    headings: list[str] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _fits_its_check(self) -> Required:
        if self.schema_ is not None:
            if self.check != "json":
                raise ValueError(f"output {self.output!r}: a schema needs check 'json'")
            problem = schema_problem(self.schema_)
            if problem:
                raise ValueError(f"output {self.output!r}: {problem}")
        if self.check == "headings" and not self.headings:
            raise ValueError(f"output {self.output!r}: check 'headings' needs headings")
        if self.check == "contains" and not self.texts:
            raise ValueError(f"output {self.output!r}: check 'contains' needs texts")
        return self


class Workflow(TurnSpec):
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
    data = read_json(text, source)
    try:
        return Workflow.model_validate(data)
    except ValidationError as e:
        raise invalid_spec(e, text, source, r"(?:step|output) '([^']+)'") from None


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


def check_output(req: Required, text: str | None) -> list[str]:
    """Why the output fails its check ([] when it passes)."""
    if text is None:
        return [f"{req.output}: never produced"]
    if req.check == "nonempty":
        return check_nonempty(req.output, text)
    if req.check == "json":
        return check_json(req.output, text, req.keys, req.schema_)
    if req.check == "headings":
        return check_headings(req.output, text, req.headings)
    return check_contains(req.output, text, req.texts)
