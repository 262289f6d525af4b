"""A workflow's result as `proctor workflow` prints it: outcome, score, steps, tokens, tool calls
and time, each step, the limit that stopped it and the failed checks (plain text, no markup)."""

from __future__ import annotations

from proctor.workflow.loop import WorkflowResult


def workflow_lines(result: WorkflowResult, tools: str = "") -> list[str]:
    """The lines; `tools`: how its tools ran (live, record, replay), shown when given."""
    score = "—" if result.score is None else f"{result.score:.0f}"
    tokens = f"{result.tokens} tokens"
    if result.tokens_estimated:
        tokens += f" ({result.tokens_estimated} estimated: the server reported no usage)"
    lines = [
        f"{result.workflow} · {result.model} · {tools + ' · ' if tools else ''}{result.outcome}"
        f" · score {score} · {len(result.steps)}/{result.steps_total} steps · {tokens}"
        f" · {result.tool_calls} tool calls · {result.wall_s:.1f} s"
    ]
    for s in result.steps:
        est = " estimated" if s.tokens_estimated else ""
        lines.append(f"  {s.step} ({s.kind}, {s.tokens} tokens{est}, {s.seconds:.1f} s)")
    if result.reason:
        lines.append(f"  stopped: {result.reason}")
    lines += [f"  failed check: {problem}" for problem in result.failed_checks]
    return lines
