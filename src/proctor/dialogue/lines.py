"""A dialogue's result as `proctor dialogue` prints it: its outcome, each turn's stage, score
and contradictions, then the stage mean and consistency (plain text, no markup)."""

from __future__ import annotations

from proctor.dialogue.loop import DialogueResult


def dialogue_lines(result: DialogueResult, tools: str = "") -> list[str]:
    """The lines; `tools` is a workflow's (how its tools ran) and says nothing of a dialogue."""
    lines = [f"{result.tree} · {result.model} · {result.status} {result.reason}"]
    for t in result.turns:
        score = "—" if t.score is None else f"{t.score:.2f}"
        if t.finish_reason == "length":
            score += " (reply cut at max_tokens)"
        lines.append(f"  turn {t.turn} [{t.stage}] score {score} → {t.next} ({t.why_next})")
        if t.unscored:
            lines.append(f"    unscored: {t.unscored}")
        lines += [f"    {line}" for line in (*t.missed, *t.contradictions)]
    mean = "—" if result.stage_mean is None else f"{result.stage_mean:.2f}"
    consistency = "unscored" if result.consistency is None else f"{result.consistency:.2f}"
    lines.append(f"stage mean {mean} · consistency {consistency}")
    lines += [f"  contradiction: {c}" for c in result.contradictions]
    lines += [f"  consistency unscored: {why}" for why in result.consistency_unscored]
    return lines
