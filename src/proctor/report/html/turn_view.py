"""A dialogue's or workflow's run page, turn by turn, from its stored grade
(`RunStatistics.turns`, the document the dialogue and workflow rooms store): for a dialogue
every turn's prompt, reply, the facts read from it and its checks (met, missed, the next stage
and why); for a workflow every step's tool call, output, tokens and time, with the budget line
(spent against the workflow's limits). Pure; a part a stored grade lacks shows as missing,
never as zero."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from proctor.stats.run_statistics import RunStatistics
from proctor.stats.turn_scores import TurnScores


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _fact(f: Mapping[str, Any]) -> str:
    where = ".".join(str(f.get(k) or "?") for k in ("entity", "attribute"))
    if f.get("unreadable"):
        return f"{where}: unreadable ({f.get('unreadable')})"
    value = f"{where} = {f.get('value')}" + (" (hedged)" if f.get("hedged") else "")
    quote = f.get("quote")
    return value + (f" · “{quote}”" if quote else "")


def _dialogue_turn(t: Mapping[str, Any]) -> dict[str, Any]:
    score = _num(t.get("score"))
    checks = [("met", str(c)) for c in _list(t.get("met"))]
    checks += [("missed", str(c)) for c in _list(t.get("missed"))]
    checks += [("contradiction", str(c)) for c in _list(t.get("contradictions"))]
    if t.get("unscored"):
        checks.append(("unscored", str(t.get("unscored"))))
    following = f"→ {t.get('next')} ({t.get('why_next')})" if t.get("next") else "the last turn"
    return {
        "title": f"turn {t.get('turn', '?')} · {t.get('stage', '?')}",
        "score": "—" if score is None else f"{score:.2f}",
        "prompt": str(t.get("asked") or ""),
        "reply": str(t.get("reply") or ""),
        "facts": [_fact(_map(f)) for f in _list(t.get("facts"))],
        "checks": checks,
        "meta": f"{t.get('tokens', '?')} tokens · finish {t.get('finish_reason', '?')}"
        f" · {following}",
    }


def _workflow_step(n: int, s: Mapping[str, Any], tools: Mapping[str, Any]) -> dict[str, Any]:
    args = s.get("tool_args")
    call = ""
    if s.get("kind") == "tool":
        name = str(tools.get(str(s.get("step"))) or "tool")
        call = f"{name}({json.dumps(args, ensure_ascii=False) if args is not None else ''})"
    seconds = _num(s.get("seconds"))
    tokens = f"{s.get('tokens', '?')} tokens"
    tokens += " (estimated)" if s.get("tokens_estimated") else ""
    meta = f"{s.get('kind', '?')} · {tokens} · " + ("?" if seconds is None else f"{seconds:.2f} s")
    return {
        "title": f"step {n} · {s.get('step', '?')}",
        "tool_call": call,
        "output": str(s.get("output") or ""),
        "meta": meta + (" · from the store (asked before a resume)" if s.get("resumed") else ""),
    }


def budget_line(detail: Mapping[str, Any]) -> str:
    """What the workflow spent against its budget, e.g. "budget: 29 of 4,000 tokens · 2 of 6
    tool calls · 0.0 of 120 s"; its spending alone when the grade holds no budget."""
    budget = _map(detail.get("budget"))
    tokens, calls, wall = (_num(detail.get(k)) for k in ("tokens", "tool_calls", "wall_s"))
    limits = [_num(budget.get(k)) for k in ("max_tokens", "max_tool_calls", "max_wall_s")]

    def part(spent: float | None, limit: float | None, unit: str, wall_time: bool = False) -> str:
        shown = "?" if spent is None else f"{spent:.1f}" if wall_time else f"{spent:,.0f}"
        if limit is None:
            return f"{shown} {unit}"
        cap = f"{limit:,.0f}" if not wall_time else f"{limit:g}"
        return f"{shown} of {cap} {unit}"

    line = " · ".join((part(tokens, limits[0], "tokens"), part(calls, limits[1], "tool calls"),
                       part(wall, limits[2], "s wall time", True)))  # fmt: skip
    head = "budget: " if budget else "spent (no budget in this grade; proctor score re-grades): "
    stopped = detail.get("stopped_by")
    return head + line + (f" · stopped by its {stopped} limit" if stopped else "")


def _transcript(scores: TurnScores) -> dict[str, Any]:
    detail = scores.detail
    view: dict[str, Any] = {
        "kind": scores.kind,
        "model": scores.model,
        "outcome": scores.outcome,
        "reason": scores.reason,
        "problems": list(scores.problems),
    }
    if scores.kind == "workflow":
        tools = _map(detail.get("tools"))
        steps = [_map(s) for s in _list(detail.get("steps"))]
        view["turns"] = [_workflow_step(n, s, tools) for n, s in enumerate(steps, 1)]
        view["budget"] = budget_line(detail)
    else:
        view["turns"] = [_dialogue_turn(_map(t)) for t in _list(detail.get("turns"))]
        view["budget"] = ""
    return view


def turn_transcripts(stats: RunStatistics) -> Sequence[dict[str, Any]]:
    """One transcript per model of a dialogue or workflow run; [] for any other run."""
    return [_transcript(t) for t in stats.turns]
