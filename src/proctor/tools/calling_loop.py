"""The tool loop: ask, answer the model's calculator calls, ask again, until it gives a reply.

Only the calculator exists; its arithmetic is the generator's own (`proctor.tools.calculator`),
so a tool result is exact and can never be the reason an answer is wrong."""

from __future__ import annotations

from dataclasses import replace

from proctor._util.untrusted import loads_bounded
from proctor.calling.caller import CallFailure, CallResult, CallSuccess, ModelCaller
from proctor.tools.calculator import calculate
from proctor.types import Completion, GenerationParams, Message, Prompt, ToolCall, Usage

CALCULATOR = "calculator"


def run_tool(call: ToolCall) -> str:
    """The result of one tool call, as the text the model is shown."""
    if call.name != CALCULATOR:
        return f"error: unknown tool {call.name!r}; only {CALCULATOR!r} is offered"
    try:
        # bounded: a model (or server) may send arguments nested 100,000 deep
        args = loads_bounded(call.arguments_json or "{}", big_int_is_error=True)
    except ValueError:
        return "error: arguments are not JSON (or nest too deep)"
    expression = args.get("expression") if isinstance(args, dict) else None
    if not isinstance(expression, str):
        return 'error: expected arguments {"expression": "<arithmetic>"}'
    return calculate(expression)


async def call_with_calculator(
    caller: ModelCaller, prompt: Prompt, params: GenerationParams, max_rounds: int = 4
) -> CallResult:
    """Call with the calculator offered; answer its calls for at most `max_rounds` rounds.

    Returns the last reply (attempts and token usage summed over the rounds), or the first
    failure (with the attempts so far). A reply still asking for tools after the last round is
    returned as it is: graded, it has no answer."""
    if CALCULATOR not in prompt.tools:
        prompt = replace(prompt, tools=(*prompt.tools, CALCULATOR))
    attempts = 0
    usage = Usage()
    latency = 0.0
    rounds = 0
    while True:
        result = await caller.call(prompt, params)
        attempts += result.attempts
        if isinstance(result, CallFailure):
            return replace(result, attempts=attempts)
        c = result.completion
        usage = usage.plus(c.usage)
        latency += c.latency_s
        if not c.tool_calls or rounds >= max_rounds:
            return CallSuccess(_summed(c, usage, latency), attempts)
        rounds += 1
        answers = tuple(
            Message(role="tool", content=run_tool(call), tool_call_id=call.id)
            for call in c.tool_calls
        )
        asked = Message(role="assistant", content=c.text, tool_calls=c.tool_calls)
        prompt = replace(prompt, messages=(*prompt.messages, asked, *answers))


def _summed(c: Completion, usage: Usage, latency: float) -> Completion:
    return replace(c, usage=usage, latency_s=latency)
