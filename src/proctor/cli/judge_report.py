"""How `proctor judge --against` shows a judge's validation: a few lines in the terminal (its
`judge_validation.json` is written by `proctor.runs.judge_report`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:  # annotations only
    from proctor.audit.judge_validation import JudgeValidation


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _kappa(kappa: float | None, low: float | None, high: float | None) -> str:
    if kappa is None:
        return "undefined (one label on both sides)"
    if low is None or high is None:
        return f"{kappa:.3f}"
    return f"{kappa:.3f} (95 % interval {low:.3f} to {high:.3f})"


def print_validation(v: JudgeValidation, console: Console) -> None:
    o = v.overall
    what = "a / b / tie" if v.pairwise else f"pass = score >= {v.pass_score}"
    console.print(Text(f"Judge {v.judge} against {v.labels} ({what})", style="bold"))
    console.print(
        Text(
            f"  {o.n} of {v.labelled} labelled answers compared"
            f" ({v.unjudged} not judged, {v.unscored} without a valid verdict)"
        )
    )
    positive = "a" if v.pairwise else "pass"
    kappa = _kappa(o.kappa, o.kappa_low, o.kappa_high)
    console.print(Text(f"  agreement {_pct(o.share)} ({o.agree} of {o.n}); Cohen's kappa {kappa}"))
    console.print(
        Text(f"  base rate ({positive}): judge {_pct(o.judge_rate)}, humans {_pct(o.human_rate)}")
    )
    if len(v.per_model) > 1:
        for model, a in v.per_model.items():
            kappa = _kappa(a.kappa, a.kappa_low, a.kappa_high)
            console.print(Text(f"  {model}: agreement {_pct(a.share)} of {a.n}, kappa {kappa}"))
    for model, c in v.corrected.items():
        console.print(
            Text(
                f"  {model}: judge-measured accuracy {_pct(c.raw)} ({_pct(c.raw_low)}–"
                f"{_pct(c.raw_high)}); corrected by {c.labelled} labels (prediction-powered "
                f"inference): {_pct(c.estimate)} ({_pct(c.low)}–{_pct(c.high)}, 95 %)"
            )
        )
    if v.pairwise:
        console.print(
            Text(
                f"  position bias: {_pct(v.position_bias)} of {v.position_pairs} pairs had the same"
                " position win in both orders"
            )
        )
    if v.repeats > 1:
        console.print(
            Text(
                f"  self-consistency over {v.repeats} repeats: {_pct(v.self_consistency)} of"
                f" {v.consistency_items} answers got the same verdict every time"
            )
        )
