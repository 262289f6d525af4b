"""Run a workflow's steps in order under its hard budget, through a `ModelCaller` and a `ToolBox`.

Before each step the budget meter is asked whether the step may run; the first step that would
break a limit is not run and the workflow ends `incomplete`, naming the limit (circuit breaker).
A model call may not outlive the wall-time budget: its timeout is the time left. A failed call
or a failed tool ends the workflow `incomplete` with its reason. When every step ran, each
required output is checked; all must pass for `complete`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from proctor.calling.caller import CallFailure, ModelCaller
from proctor.calling.rate_limit import estimate_tokens
from proctor.types import GenerationParams, Message, Prompt
from proctor.workflow.spec import (
    BudgetMeter,
    Limit,
    Workflow,
    check_output,
    render,
    render_args,
)
from proctor.workflow.tools import ToolBox, ToolFailed

WorkflowStatus = Literal["complete", "incomplete"]


@dataclass(frozen=True)
class StepResult:
    step: str
    kind: str
    output: str
    tokens: int = 0
    tool_args: dict[str, Any] | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class WorkflowResult:
    workflow: str
    model: str
    status: WorkflowStatus
    stopped_by: Limit | None
    reason: str
    steps: tuple[StepResult, ...]
    steps_total: int
    outputs: dict[str, str]
    failed_checks: tuple[str, ...]
    tokens: int
    tool_calls: int
    wall_s: float

    @property
    def score(self) -> float:
        """All-or-nothing: 1.0 when complete, else 0.0."""
        return 1.0 if self.status == "complete" else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "score": self.score}


async def run_workflow(
    flow: Workflow,
    caller: ModelCaller,
    tools: ToolBox,
    params: GenerationParams,
    clock: Callable[[], float] = time.monotonic,
) -> WorkflowResult:
    meter = BudgetMeter(flow.budget, clock)
    outputs: dict[str, str] = {}
    done: list[StepResult] = []
    stopped_by: Limit | None = None
    reason = ""

    def finish(failed: tuple[str, ...]) -> WorkflowResult:
        complete = stopped_by is None and not reason and not failed
        return WorkflowResult(
            workflow=flow.id,
            model=caller.provider.name,
            status="complete" if complete else "incomplete",
            stopped_by=stopped_by,
            reason=reason,
            steps=tuple(done),
            steps_total=len(flow.steps),
            outputs=dict(outputs),
            failed_checks=failed,
            tokens=meter.tokens,
            tool_calls=meter.tool_calls,
            wall_s=meter.elapsed_s(),
        )

    for step in flow.steps:
        start = clock()
        if step.kind == "tool":
            trip = meter.before_tool()
            if trip:
                stopped_by, why = trip
                reason = f"step {step.id!r} not run: {stopped_by} limit: {why}"
                return finish(())
            args = render_args(step.args, outputs)
            meter.tool_calls += 1
            try:
                answer = await tools.call(step.tool, args)
            except ToolFailed as e:
                reason = f"step {step.id!r}: tool failed: {e}"
                return finish(())
            outputs[step.output] = answer
            done.append(StepResult(step.id, "tool", answer, 0, args, clock() - start))
            continue
        text = render(step.prompt, outputs)
        messages = (
            (Message("system", flow.system), Message("user", text))
            if flow.system
            else (Message("user", text),)
        )
        prompt_tokens = sum(estimate_tokens(m.content) for m in messages)
        trip = meter.before_model(prompt_tokens, step.max_tokens)
        if trip:
            stopped_by, why = trip
            reason = f"step {step.id!r} not run: {stopped_by} limit: {why}"
            return finish(())
        step_params = replace(
            params,
            max_tokens=step.max_tokens,
            timeout_s=max(0.001, min(params.timeout_s, meter.remaining_s())),
        )
        result = await caller.call(Prompt(messages, "workflow", flow.lang), step_params)
        if isinstance(result, CallFailure):
            if meter.remaining_s() <= 0:
                stopped_by = "wall_time"
            reason = f"step {step.id!r}: call failed: {result.error_type}: {result.error}"
            return finish(())
        used = result.completion.usage.total_tokens
        outputs[step.output] = result.completion.text
        done.append(StepResult(step.id, "model", result.completion.text, used, None,
                               clock() - start))  # fmt: skip
        over = meter.after_model(used)
        if over:
            stopped_by, why = over
            reason = f"step {step.id!r} went over the budget: {stopped_by} limit: {why}"
            return finish(())
    failed = tuple(
        problem for req in flow.required if (problem := check_output(req, outputs.get(req.output)))
    )
    return finish(failed)
