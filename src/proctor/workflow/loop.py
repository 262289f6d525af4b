"""Run a workflow's steps in order under its hard budget, through a `ModelCaller` and a `ToolBox`,
keeping each step in a `TurnLog` as it ends (so a killed workflow resumes at its first step
with no stored answer, and asks no finished step again).

The limits are hard:
- Wall time is one deadline for the whole workflow (the time of stored steps counts on a
  resume). Each model call's request timeout is the time left, and the step in flight, with
  its retries and backoff waits or its tool call, is cancelled at the deadline, not after it
  returns.
- Tokens: before a model step, its prompt (estimated) plus its `max_tokens` must fit what is
  left; after it, what it used is counted. A reply whose server reported no usage is counted by
  proctor's estimate (`calling.rate_limit.estimate_tokens`, ~4 characters a token, one per CJK
  character), and the result says so; with `require_usage`, such a reply ends the workflow
  `call_failed`.
- Tool calls: a tool step that would exceed the limit is not run.

Outcomes, one each (exit codes in `runs.turns.TURN_KINDS`):
- `complete`: every step ran within the budget and every required output passed its check;
- `call_failed`: a model call failed after its last attempt, or a tool failed (harness side;
  not a wrong answer: score None);
- `incomplete`: a hard limit stopped it (`stopped_by` names it; score 0);
- `invalid_output`: every step ran but a required output failed its check (score 0).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, get_args

from proctor.calling.caller import CallFailure, CallSuccess, ModelCaller
from proctor.calling.rate_limit import estimate_tokens
from proctor.store.turn_log import MemoryTurns, TurnLog, answered_prefix
from proctor.store.turns import Turn
from proctor.tools.toolbox import ToolBox, ToolFailed
from proctor.types import GenerationParams, Message, Prompt, Usage
from proctor.workflow.spec import (
    BudgetMeter,
    Limit,
    Step,
    Workflow,
    check_output,
    render,
    render_args,
)

WorkflowOutcome = Literal["complete", "call_failed", "incomplete", "invalid_output"]
WORKFLOW_OUTCOMES: tuple[WorkflowOutcome, ...] = get_args(WorkflowOutcome)
DEADLINE_SLACK_S = 0.25
NO_USAGE = "the server reported no token usage, and --require-usage refuses an estimate"
ESTIMATE_NOTE = "estimated by proctor (~4 characters a token, one per CJK character)"


@dataclass(frozen=True)
class StepResult:
    step: str
    kind: str
    output: str
    tokens: int = 0
    tool_args: dict[str, Any] | None = None
    seconds: float = 0.0
    tokens_estimated: bool = False
    """The server reported no usage: `tokens` is proctor's estimate."""
    resumed: bool = False
    """Taken from the store (asked by an earlier, interrupted session)."""


@dataclass(frozen=True)
class WorkflowResult:
    workflow: str
    model: str
    outcome: WorkflowOutcome
    stopped_by: Limit | None
    reason: str
    steps: tuple[StepResult, ...]
    steps_total: int
    outputs: dict[str, str]
    failed_checks: tuple[str, ...]
    tokens: int
    tool_calls: int
    wall_s: float
    tokens_estimated: int = 0
    """How many of `tokens` are proctor's estimate (servers that reported no usage)."""

    @property
    def score(self) -> float | None:
        """All-or-nothing: 1.0 when complete, 0.0 when stopped by its budget or its output is
        invalid, None (not graded) when a call failed."""
        if self.outcome == "call_failed":
            return None
        return 1.0 if self.outcome == "complete" else 0.0

    def to_json(self) -> dict[str, Any]:
        data = {**asdict(self), "score": self.score}
        if self.tokens_estimated:
            data["tokens_note"] = f"{self.tokens_estimated} of {self.tokens} tokens {ESTIMATE_NOTE}"
        return data


def _messages(flow: Workflow, text: str) -> tuple[Message, ...]:
    if flow.system:
        return (Message("system", flow.system), Message("user", text))
    return (Message("user", text),)


def _counted(usage: Usage, messages: Sequence[Message], reply: str) -> tuple[Usage, bool]:
    """The tokens to count for a reply, and whether the server reported them: an unknown count,
    or 0 for a non-empty prompt or reply, is taken as not reported and replaced by the
    estimate."""
    prompt, completion = usage.prompt_tokens, usage.completion_tokens
    reported = True
    if prompt is None or prompt <= 0:
        prompt, reported = sum(estimate_tokens(m.content) for m in messages), False
    if completion is None or (completion <= 0 and reply):
        completion, reported = (estimate_tokens(reply) if reply else 0), False
    return Usage(prompt, completion), reported


class _Run:
    """The state of one workflow run: what is spent, what is made, how it ended."""

    def __init__(
        self,
        flow: Workflow,
        model: str,
        log: TurnLog,
        clock: Callable[[], float],
    ) -> None:
        self.flow = flow
        self.model = model
        self.log = log
        self.meter = BudgetMeter(flow.budget, clock)
        self.outputs: dict[str, str] = {}
        self.done: list[StepResult] = []
        self.estimated = 0
        self.stopped_by: Limit | None = None
        self.failed: WorkflowOutcome | None = None
        self.reason = ""

    def stop(self, outcome: WorkflowOutcome, reason: str, limit: Limit | None = None) -> None:
        self.failed, self.reason, self.stopped_by = outcome, reason, limit

    def resume(self, stored: Sequence[Turn]) -> int:
        """Take the stored steps that match the workflow's first steps; how many were taken."""
        taken = 0
        for step, turn in zip(self.flow.steps, stored, strict=False):
            if turn.step != step.id or turn.kind != step.kind:
                break
            self.outputs[step.output] = turn.text
            if step.kind == "tool":
                self.meter.tool_calls += 1
                args = json.loads(turn.asked)
            else:
                self.meter.tokens += turn.usage.total_tokens
                args = None
                if not turn.usage_reported:
                    self.estimated += turn.usage.total_tokens
            self.meter.started -= turn.latency_s  # stored time counts against the deadline
            self.done.append(
                StepResult(
                    step.id,
                    step.kind,
                    turn.text,
                    turn.usage.total_tokens,
                    args,
                    turn.latency_s,
                    not turn.usage_reported,
                    resumed=True,
                )
            )
            taken += 1
            over = self.meter.tokens > self.flow.budget.max_tokens
            if over:
                self.stop(
                    "incomplete",
                    f"step {step.id!r} went over the budget: tokens limit: "
                    f"{self.meter.tokens} tokens used > the limit "
                    f"{self.flow.budget.max_tokens}",
                    "tokens",
                )
                break
        return taken

    def turn(self, position: int, step: Step, **fields: Any) -> Turn:
        return Turn(self.log.run_id, self.model, position, step.id, step.kind, **fields)

    def result(self, failed_checks: tuple[str, ...] = ()) -> WorkflowResult:
        outcome: WorkflowOutcome = self.failed or (
            "invalid_output" if failed_checks else "complete"
        )
        return WorkflowResult(
            workflow=self.flow.id,
            model=self.model,
            outcome=outcome,
            stopped_by=self.stopped_by,
            reason=self.reason,
            steps=tuple(self.done),
            steps_total=len(self.flow.steps),
            outputs=dict(self.outputs),
            failed_checks=failed_checks,
            tokens=self.meter.tokens,
            tool_calls=self.meter.tool_calls,
            wall_s=self.meter.elapsed_s(),
            tokens_estimated=self.estimated,
        )

    def cancelled(self, position: int, step: Step, asked: str, seconds: float) -> None:
        """The step in flight was stopped at the deadline: kept as a "cancelled" turn."""
        self.log.save(
            self.turn(
                position,
                step,
                status="cancelled",
                asked=asked,
                text="",
                latency_s=seconds,
                error="cancelled at the wall-time limit",
            )
        )
        self._out_of_time(step)

    def _out_of_time(self, step: Step) -> None:
        limit = self.flow.budget.max_wall_s
        self.stop(
            "incomplete",
            f"step {step.id!r} cancelled at the wall-time limit {limit:g} s "
            f"({self.meter.elapsed_s():.2f} s elapsed)",
            "wall_time",
        )

    def not_run(self, step: Step, trip: tuple[Limit, str] | None) -> bool:
        """Stop before `step` if it would break a limit; whether it did."""
        if trip is not None:
            self.stop(
                "incomplete", f"step {step.id!r} not run: {trip[0]} limit: {trip[1]}", trip[0]
            )
        return trip is not None

    def prompt_of(self, step: Step) -> tuple[str, tuple[Message, ...], int]:
        text = render(step.prompt, self.outputs)
        messages = _messages(self.flow, text)
        return text, messages, sum(estimate_tokens(m.content) for m in messages)

    async def tool_step(self, position: int, step: Step, tools: ToolBox) -> None:
        if self.not_run(step, self.meter.before_tool()):
            return
        args = render_args(step.args, self.outputs)
        asked = json.dumps(args, ensure_ascii=False, sort_keys=True)
        self.meter.tool_calls += 1
        start = self.meter.clock()
        deadline = asyncio.timeout(self.meter.remaining_s())
        try:
            async with deadline:
                answer = await tools.call(step.tool, args)
        except TimeoutError:
            if not deadline.expired():
                raise
            self.cancelled(position, step, asked, self.meter.clock() - start)
            return
        except ToolFailed as e:
            seconds = self.meter.clock() - start
            self.failed_step(
                position, step, f"tool failed: {e}", asked=asked, text="", latency_s=seconds,
                error=str(e),
            )  # fmt: skip
            return
        seconds = self.meter.clock() - start
        self.log.save(
            self.turn(position, step, status="ok", asked=asked, text=answer, latency_s=seconds)
        )
        self.outputs[step.output] = answer
        self.done.append(StepResult(step.id, "tool", answer, 0, args, seconds))

    def failed_step(self, position: int, step: Step, why: str, **fields: Any) -> None:
        """The step's call (or tool) failed: kept as a "call_failed" turn, and the run ends."""
        self.log.save(self.turn(position, step, status="call_failed", **fields))
        self.stop("call_failed", f"step {step.id!r}: {why}")

    async def model_step(
        self,
        position: int,
        step: Step,
        caller: ModelCaller,
        params: GenerationParams,
        require_usage: bool,
    ) -> None:
        text, messages, prompt_tokens = self.prompt_of(step)
        if self.not_run(step, self.meter.before_model(prompt_tokens, step.max_tokens)):
            return
        left = self.meter.remaining_s()
        start = self.meter.clock()
        deadline = asyncio.timeout(left)
        try:
            async with deadline:
                result = await caller.call(
                    Prompt(messages, "workflow", self.flow.lang), _within(params, step, left)
                )
        except TimeoutError:
            if not deadline.expired():
                raise
            self.cancelled(position, step, text, self.meter.clock() - start)
            return
        seconds = self.meter.clock() - start
        if isinstance(result, CallFailure) and self.meter.remaining_s() <= DEADLINE_SLACK_S / 10:
            # its last attempt timed out with the deadline: the budget stopped it
            self.cancelled(position, step, text, seconds)
        elif isinstance(result, CallFailure):
            error = f"{result.error_type}: {result.error}"
            self.failed_step(
                position, step, f"call failed: {error}", asked=text, text="", latency_s=seconds,
                attempts=result.attempts, error=error,
            )  # fmt: skip
        else:
            self.answered(position, step, (text, messages), result, seconds, require_usage)

    def answered(
        self,
        position: int,
        step: Step,
        asked: tuple[str, tuple[Message, ...]],
        result: CallSuccess,
        seconds: float,
        require_usage: bool,
    ) -> None:
        """A model step's reply to `asked` (its text and messages): stored, its tokens counted
        against the budget."""
        text, messages = asked
        c = result.completion
        usage, reported = _counted(c.usage, messages, c.text)
        fields: dict[str, Any] = dict(
            asked=text,
            text=c.text,
            finish_reason=c.finish_reason,
            usage=usage,
            usage_reported=reported,
            latency_s=seconds,
            attempts=result.attempts,
            reported_model=c.model,
        )
        if require_usage and not reported:
            self.failed_step(position, step, f"call failed: {NO_USAGE}", error=NO_USAGE, **fields)
            return
        self.log.save(self.turn(position, step, status="ok", **fields))
        self.outputs[step.output] = c.text
        if not reported:
            self.estimated += usage.total_tokens
        self.done.append(
            StepResult(step.id, "model", c.text, usage.total_tokens, None, seconds, not reported)
        )
        over = self.meter.after_model(usage.total_tokens)
        if over:
            self.stop(
                "incomplete",
                f"step {step.id!r} went over the budget: {over[0]} limit: {over[1]}",
                over[0],
            )


def _within(params: GenerationParams, step: Step, left: float) -> GenerationParams:
    """A model step's parameters: its own max_tokens, and a request timeout of the time left
    plus a hair (at the deadline it is the deadline that must end the attempt: a request
    timeout firing at the same instant would read as a failed call, not as the budget)."""
    timeout = min(params.timeout_s, left + DEADLINE_SLACK_S)
    return replace(params, max_tokens=step.max_tokens, timeout_s=max(0.001, timeout))


async def run_workflow(
    flow: Workflow,
    caller: ModelCaller,
    tools: ToolBox,
    params: GenerationParams,
    clock: Callable[[], float] = time.monotonic,
    *,
    log: TurnLog | None = None,
    require_usage: bool = False,
) -> WorkflowResult:
    """Run (or resume, from the answered turns in `log`) `flow`; see the module docstring."""
    log = log or MemoryTurns(model=caller.provider.name)
    run = _Run(flow, caller.provider.name, log, clock)
    start = run.resume(log.answered())
    for position, step in enumerate(flow.steps, start=1):
        if position <= start:
            continue
        if step.kind == "tool":
            await run.tool_step(position, step, tools)
        else:
            await run.model_step(position, step, caller, params, require_usage)
        if run.failed:
            return run.result()
    failed = tuple(
        problem
        for req in flow.required
        for problem in check_output(req, run.outputs.get(req.output))
    )
    return run.result(failed)


def grade_workflow(flow: Workflow, model: str, turns: Sequence[Turn]) -> WorkflowResult:
    """The result of a stored workflow run under the current rules, calling nothing: the
    stored steps, then why the next one was not answered (a limit it would break, a failed or
    cancelled call), or the checks of the outputs when every step was answered."""
    run = _Run(flow, model, MemoryTurns(model=model), clock=lambda: 0.0)
    taken = run.resume(answered_prefix(list(turns)))
    if run.failed:
        return run.result()
    if taken == len(flow.steps):
        failed = tuple(
            p for req in flow.required for p in check_output(req, run.outputs.get(req.output))
        )
        return run.result(failed)
    step = flow.steps[taken]
    held = next((t for t in turns if t.position == taken + 1), None)
    if step.kind == "tool":
        trip = run.meter.before_tool()
    else:
        trip = run.meter.before_model(run.prompt_of(step)[2], step.max_tokens)
    if run.not_run(step, trip):
        return run.result()
    if held is not None and held.status == "cancelled":
        run.meter.started -= held.latency_s
        run._out_of_time(step)
    elif held is not None:
        what = "tool failed" if step.kind == "tool" else "call failed"
        run.stop("call_failed", f"step {step.id!r}: {what}: {held.error}")
    else:
        run.stop("incomplete", f"interrupted before step {step.id!r}: the same command resumes it")
    return run.result()
